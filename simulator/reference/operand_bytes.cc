#include "simulator/reference/operand_bytes.h"

#include <cstring>
#include <string>

#include "simulator/isa/text.h"
#include "simulator/reference/operand.h"

namespace trnsim::reference {

StatusOr<isa::AccessPattern> ResolveOperand(isa::Engine engine, const isa::AccessPattern& ap,
                                            CoreState& state, HbmView& hbm) {
  int32_t reg = 0;
  if (ap.offset_reg != isa::kNoRegister) {
    if (ap.offset_reg >= 64 || int(engine) >= isa::kEngineCount)
      return InvalidError("register index out of range: " + isa::FormatAccessPattern(ap));
    reg = state.regs[int(engine)][ap.offset_reg];
  }
  TRNSIM_RETURN_IF_ERROR(Operand::Bind(ap, reg, state, hbm).status());
  isa::AccessPattern out = ap;
  out.offset = ap.offset + int64_t(reg) * ap.reg_stride_bytes;  // Bind bounded both terms
  out.offset_reg = isa::kNoRegister;
  out.reg_stride_bytes = 0;
  return out;
}

StatusOr<std::vector<uint8_t>> ReadOperandBytes(const isa::AccessPattern& ap, CoreState& state,
                                                HbmView& hbm) {
  if (ap.offset_reg != isa::kNoRegister)
    return InvalidError("ReadOperandBytes takes a resolved pattern (no register offset)");
  TRNSIM_ASSIGN_OR_RETURN(Operand op, Operand::Bind(ap, 0, state, hbm));
  const size_t esize = size_t(isa::DtypeSize(ap.dtype));
  std::vector<uint8_t> out(op.elements() * esize);
  const int inner = ap.num_dims - 1;
  if (!op.is_pattern() && ap.strides[inner] == 1) {
    // Unit-stride innermost runs are contiguous in memory: one copy per run (the host is
    // little-endian, so memory order is the element bytes' order).
    const uint64_t run = ap.sizes[inner];
    for (uint64_t k = 0; k < op.elements(); k += run) {
      std::memcpy(out.data() + k * esize, op.ElementAddress(k), run * esize);
    }
    return out;
  }
  for (uint64_t k = 0; k < op.elements(); ++k) {
    const uint64_t bits = op.ReadRaw(k);
    for (size_t b = 0; b < esize; ++b) out[k * esize + b] = uint8_t(bits >> (8 * b));
  }
  return out;
}

Status WriteOperandBytes(const isa::AccessPattern& ap, std::span<const uint8_t> bytes,
                         CoreState& state, HbmView& hbm) {
  if (ap.offset_reg != isa::kNoRegister)
    return InvalidError("WriteOperandBytes takes a resolved pattern (no register offset)");
  TRNSIM_ASSIGN_OR_RETURN(Operand op, Operand::Bind(ap, 0, state, hbm));
  const size_t esize = size_t(isa::DtypeSize(ap.dtype));
  if (bytes.size() != op.elements() * esize)
    return InvalidError(std::to_string(bytes.size()) + " bytes for " +
                        std::to_string(op.elements()) + " elements of " + std::to_string(esize) +
                        " bytes: " + isa::FormatAccessPattern(ap));
  for (uint64_t k = 0; k < op.elements(); ++k) {
    uint64_t bits = 0;
    for (size_t b = 0; b < esize; ++b) bits |= uint64_t(bytes[k * esize + b]) << (8 * b);
    op.WriteRaw(k, bits);
  }
  return Status::Ok();
}

}  // namespace trnsim::reference
