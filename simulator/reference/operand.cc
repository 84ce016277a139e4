#include "simulator/reference/operand.h"

#include <cstring>
#include <string>

#include "simulator/isa/text.h"
#include "simulator/numerics/alu.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::reference {

using isa::Memory;

StatusOr<Operand> Operand::Bind(const isa::AccessPattern& ap, int32_t reg_value, CoreState& state,
                                HbmView& hbm) {
  Operand op;
  op.ap_ = ap;
  op.rows_ = ap.num_partitions;
  op.free_ = ap.FreeElements();
  op.esize_ = isa::DtypeSize(ap.dtype);
  if (ap.num_dims < 1 || ap.num_dims > isa::kMaxFreeDims || op.rows_ == 0 || op.esize_ == 0)
    return InvalidError("malformed access pattern " + isa::FormatAccessPattern(ap));
  // The interpreter materialises operands; refuse absurd (e.g. stride-0 65535^4) patterns.
  if (op.rows_ * op.free_ > (uint64_t{1} << 31) || op.free_ > (uint64_t{1} << 31))
    return InvalidError("access pattern too large for the reference interpreter: " +
                        isa::FormatAccessPattern(ap));
  op.rounding_.mode = state.rounding;
  op.rounding_.seed = state.rounding_stream;
  if (ap.memory == Memory::kPattern) return op;
  if (ap.offset > (int64_t{1} << 48) || ap.offset < -(int64_t{1} << 48))
    return InvalidError("execution error: offset out of range: " + isa::FormatAccessPattern(ap));
  op.base_ = ap.offset + int64_t(reg_value) * ap.reg_stride_bytes;
  // The lowest and highest element byte the AP touches.
  int64_t lo = op.base_, hi = op.base_;
  for (int d = 0; d < ap.num_dims; ++d) {
    int64_t span = int64_t(ap.sizes[d] - 1) * ap.strides[d] * op.esize_;
    (span < 0 ? lo : hi) += span;
  }
  int64_t limit = 0;
  const std::string where =
      isa::FormatAccessPattern(ap) + " (register value " + std::to_string(reg_value) + ")";
  switch (ap.memory) {
    case Memory::kSbuf:
    case Memory::kPsum: {
      bool sbuf = ap.memory == Memory::kSbuf;
      limit = sbuf ? state.limits.sbuf_bytes_per_partition : state.limits.psum_bytes_per_partition;
      if (ap.start_partition + op.rows_ > uint64_t(state.limits.partitions))
        return InvalidError("execution error: partitions out of range: " + where);
      op.mem_ = sbuf ? state.sbuf.data() : state.psum.data();
      op.row_pitch_ = uint64_t(limit);
      break;
    }
    case Memory::kHbm: {
      auto var = hbm.Var(ap.var_id);
      if (!var.ok())
        return InvalidError("execution error: unknown HBM var_id " + std::to_string(ap.var_id) +
                            ": " + where);
      int64_t row_span = int64_t(op.rows_ - 1) * ap.partition_stride * op.esize_;
      (row_span < 0 ? lo : hi) += row_span;
      limit = int64_t(var->size());
      op.mem_ = var->data();
      break;
    }
    default:
      return InvalidError("access pattern without memory");
  }
  if (lo < 0 || hi + op.esize_ > limit)
    return InvalidError("execution error: access outside its memory (bytes [" + std::to_string(lo) +
                        ", " + std::to_string(hi + op.esize_) + ") of " + std::to_string(limit) +
                        "): " + where);
  return op;
}

int64_t Operand::ElementByte(uint64_t k) const {
  uint64_t row = k / free_, i = k % free_;
  int64_t elem = 0;
  for (int d = ap_.num_dims - 1; d >= 0; --d) {
    elem += int64_t(i % ap_.sizes[d]) * ap_.strides[d];
    i /= ap_.sizes[d];
  }
  int64_t byte = base_ + elem * esize_;
  if (ap_.memory == Memory::kHbm) byte += int64_t(row) * ap_.partition_stride * esize_;
  return byte;
}

uint8_t* Operand::Addr(uint64_t k) const {
  int64_t byte = ElementByte(k);
  if (ap_.memory == Memory::kHbm) return mem_ + byte;
  return mem_ + (ap_.start_partition + k / free_) * row_pitch_ + byte;
}

int32_t Operand::PatternValue(uint64_t k) const {
  uint64_t row = k / free_, i = k % free_;
  uint32_t v = uint32_t(ap_.offset) + uint32_t(row) * uint32_t(ap_.partition_stride);
  for (int d = ap_.num_dims - 1; d >= 0; --d) {
    v += uint32_t(i % ap_.sizes[d]) * uint32_t(ap_.strides[d]);
    i /= ap_.sizes[d];
  }
  return int32_t(v);
}

uint64_t Operand::ReadRaw(uint64_t k) const {
  if (is_pattern()) return uint32_t(PatternValue(k));
  uint64_t bits = 0;
  std::memcpy(&bits, Addr(k), esize_);  // little-endian host
  return bits;
}

float Operand::ReadF32(uint64_t k) const {
  if (is_pattern()) return float(PatternValue(k));
  float v = 0;
  numerics::ConvertToFp32(ap_.dtype, Addr(k), &v, 1);
  return v;
}

uint32_t Operand::ReadIntBits(uint64_t k) const {
  if (is_pattern()) return uint32_t(PatternValue(k));
  return numerics::ExtendIntBits(ap_.dtype, ReadRaw(k));
}

void Operand::WriteF32(uint64_t k, float v) const {
  numerics::Rounding r = rounding_;
  r.first_index = k;
  numerics::ConvertFromFp32(&v, ap_.dtype, Addr(k), 1, r);
}

void Operand::WriteIntBits(uint64_t k, uint32_t v) const { WriteRaw(k, v); }

void Operand::WriteRaw(uint64_t k, uint64_t bits) const { std::memcpy(Addr(k), &bits, esize_); }

}  // namespace trnsim::reference
