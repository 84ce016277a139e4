// AccessPattern: the operand of every datapath instruction — which memory, which partitions (or
// rows), which bytes, in what order, as what element type. docs/isa.md §4 is the specification.
//
// Element order: an AP names rows x d0 x d1 x d2 x d3 elements (num_dims free dims, outermost
// first), visited row-major. Row r, free index (i0..i3) is at byte
//     offset + reg[offset_reg] * reg_stride_bytes + (sum_d i_d * strides[d]) * DtypeSize(dtype)
// of partition start_partition + r (SBUF/PSUM), or at that byte + r * partition_stride *
// DtypeSize(dtype) of variable var_id (HBM). A kPattern AP touches no memory: it generates the
// int32 value  offset + r * partition_stride + sum_d i_d * strides[d]  (iota, affine_select).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "simulator/isa/dtype.h"

namespace trnsim::isa {

enum class Memory : uint8_t {
  kNone = 0,     // operand absent
  kSbuf = 1,     // state buffer: partitions x sbuf_bytes_per_partition
  kPsum = 2,     // partial-sum buffer: partitions x psum banks x bank bytes
  kHbm = 3,      // a NEFF variable (var_id) in device memory
  kPattern = 4,  // an index generator, no memory (iota / affine_select)
};
inline constexpr int kMemoryCount = 5;
using MemoryMask = uint8_t;
constexpr MemoryMask MemoryBit(Memory m) {
  return static_cast<MemoryMask>(1u << static_cast<int>(m));
}
std::string_view MemoryName(Memory memory);  // "none", "sbuf", "psum", "hbm", "iota"

inline constexpr int kMaxFreeDims = 4;
inline constexpr uint8_t kNoRegister = 0xFF;

struct AccessPattern {
  Memory memory = Memory::kNone;
  Dtype dtype = Dtype::kUnknown;
  uint8_t num_dims = 0;              // free dims in use, 1..4
  uint8_t offset_reg = kNoRegister;  // register added to the offset (dynamic loops), or none
  uint16_t start_partition = 0;      // SBUF/PSUM: first partition; 0 for HBM/pattern
  uint16_t num_partitions = 0;       // partitions (SBUF/PSUM) or rows (HBM/pattern), >= 1
  int64_t offset = 0;                // bytes: within each partition / within the variable;
                                     // kPattern: the base value
  uint32_t var_id = 0;               // HBM: the NEFF variable's var_id; else 0
  int32_t partition_stride = 0;      // HBM/pattern: elements between rows; 0 on chip
  int32_t reg_stride_bytes = 0;      // bytes per unit of reg[offset_reg]; 0 without a register
  std::array<uint16_t, kMaxFreeDims> sizes{};   // dims >= num_dims are 0
  std::array<int32_t, kMaxFreeDims> strides{};  // elements; on chip they fit int16

  bool present() const { return memory != Memory::kNone; }
  bool on_chip() const { return memory == Memory::kSbuf || memory == Memory::kPsum; }
  // Elements per partition (row): the product of the free sizes.
  uint64_t FreeElements() const;
  // All elements: rows x FreeElements().
  uint64_t Elements() const;  // saturates at UINT64_MAX
  // Free size of the innermost `n` dims (n <= num_dims).
  uint64_t InnerElements(int n) const;

  bool operator==(const AccessPattern&) const = default;
};

// The byte span [lo, hi) one partition (SBUF/PSUM) or the whole variable (HBM) is touched at,
// taking the dynamic register as 0. Empty optional when the AP has no elements or no memory.
struct ByteRange {
  int64_t lo = 0;
  int64_t hi = 0;
};
std::optional<ByteRange> StaticByteRange(const AccessPattern& ap);

// Builders for the common shapes (innermost-contiguous, outermost dim first).
AccessPattern SbufAp(int start_partition, int num_partitions, int64_t offset_bytes, Dtype dtype,
                     std::initializer_list<std::pair<uint16_t, int32_t>> dims);
AccessPattern PsumAp(int start_partition, int num_partitions, int64_t offset_bytes, Dtype dtype,
                     std::initializer_list<std::pair<uint16_t, int32_t>> dims);
// rows x partition_stride, then the free dims.
AccessPattern HbmAp(uint32_t var_id, int64_t offset_bytes, Dtype dtype, uint16_t rows,
                    int32_t row_stride, std::initializer_list<std::pair<uint16_t, int32_t>> dims);
// value = base + row * row_step + sum(i_d * step_d); dtype int32.
AccessPattern PatternAp(int32_t base, uint16_t rows, int32_t row_step,
                        std::initializer_list<std::pair<uint16_t, int32_t>> dims);

}  // namespace trnsim::isa
