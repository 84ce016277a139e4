// OnChipAllocator: first-fit allocation of byte ranges of SBUF or PSUM partitions.
//
// Every allocation reserves the same byte range [offset, offset + bytes) in all partitions (a
// tile on fewer partitions still owns the range everywhere: simple, and what kernels do). The
// range is aligned to `align` bytes (a power of two; 0 picks the memory's default: 32 bytes in
// SBUF, 4 in PSUM). In PSUM an allocation of at most one bank never straddles a bank boundary
// and a larger one starts on a bank, so a matmul may write any allocated PSUM tile
// (docs/isa.md §9: a multi-bank matmul destination starts on a bank).
//
// Failures are NRT_RESOURCE (does not fit) or NRT_INVALID (bad request) with a message naming
// the tile; nothing aborts. Thread safety: none.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status_or.h"
#include "tools/kernel_builder/tile.h"

namespace trnsim::kb {

class OnChipAllocator {
 public:
  // `bank_bytes` > 0 only for PSUM.
  OnChipAllocator(isa::Memory memory, int partitions, int64_t bytes_per_partition,
                  int64_t bank_bytes);

  StatusOr<Tile> Allocate(std::string_view name, isa::Dtype dtype, int partitions, int64_t cols,
                          int64_t align = 0);
  // Frees the range a tile from Allocate() starts at. NRT_INVALID if no allocation starts there.
  Status Free(const Tile& tile);

  int64_t capacity_bytes() const { return bytes_per_partition_; }
  int64_t bytes_in_use() const { return in_use_; }
  int64_t high_water_bytes() const { return high_water_; }

 private:
  std::string MemoryLabel() const;

  isa::Memory memory_;
  int partitions_;
  int64_t bytes_per_partition_;
  int64_t bank_bytes_;
  std::map<int64_t, int64_t> blocks_;  // offset -> bytes, allocated ranges
  int64_t in_use_ = 0;
  int64_t high_water_ = 0;
};

}  // namespace trnsim::kb
