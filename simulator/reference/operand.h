// Operand: an access pattern bound to memory for one execution — the register offset resolved,
// every byte it can touch bounds-checked once, then element (row, flat free index) addressed by
// docs/isa.md §4's formula. Internal to simulator/reference.
#pragma once

#include <cstdint>

#include "common/status_or.h"
#include "simulator/isa/access_pattern.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::reference {

class Operand {
 public:
  // Binds `ap` with `reg_value` the signed value of its offset register (0 without one).
  static StatusOr<Operand> Bind(const isa::AccessPattern& ap, int32_t reg_value, CoreState& state,
                                HbmView& hbm);

  uint64_t rows() const { return rows_; }
  uint64_t free() const { return free_; }
  uint64_t elements() const { return rows_ * free_; }
  isa::Dtype dtype() const { return ap_.dtype; }
  bool is_pattern() const { return ap_.memory == isa::Memory::kPattern; }
  int partition(uint64_t row) const { return ap_.start_partition + int(row); }
  const isa::AccessPattern& ap() const { return ap_; }

  // Element k in §4 order (row-major over rows x free).
  float ReadF32(uint64_t k) const;                  // converted to fp32 (§6.1)
  uint32_t ReadIntBits(uint64_t k) const;           // integer dtype, sign/zero-extended to 32 bits
  uint64_t ReadRaw(uint64_t k) const;               // raw bits (pattern: the int32 value)
  void WriteF32(uint64_t k, float v) const;         // converted from fp32 with RNE
  void WriteIntBits(uint64_t k, uint32_t v) const;  // truncated to the dtype's width
  void WriteRaw(uint64_t k, uint64_t bits) const;
  int32_t PatternValue(uint64_t k) const;
  // Where element k's bytes are in memory (not for a pattern): with an innermost stride of 1,
  // the elements from k to the end of its innermost run follow it contiguously.
  const uint8_t* ElementAddress(uint64_t k) const { return Addr(k); }

 private:
  uint8_t* Addr(uint64_t k) const;
  int64_t ElementByte(uint64_t k) const;  // byte within the partition / variable

  isa::AccessPattern ap_;
  int64_t base_ = 0;  // offset + reg_value * reg_stride_bytes
  uint64_t rows_ = 0, free_ = 0;
  int esize_ = 0;
  uint8_t* mem_ = nullptr;  // partition 0 / variable start
  uint64_t row_pitch_ = 0;  // bytes between partitions (on chip)
  numerics::Rounding rounding_;  // of WriteF32 (first_index unused: element k uses k)
};

}  // namespace trnsim::reference
