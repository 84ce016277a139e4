// PE opcodes: load_stationary, multiply_moving (docs/isa.md §6.2, §7.3), nc_transpose.
#include <string>
#include <vector>

#include "simulator/reference/exec_internal.h"

namespace trnsim::reference {

using isa::Engine;
using isa::Instruction;
using isa::Opcode;

namespace {

bool IsFp32Class(isa::Dtype d) { return d == isa::Dtype::kFloat32 || d == isa::Dtype::kFloat32r; }

void Load(const Operand& in, bool double_row, Stationary& st) {
  st = Stationary{};
  st.loaded = true;
  st.dtype = in.dtype();
  st.k = uint32_t(in.rows());
  st.double_row = double_row;
  st.m = uint32_t(double_row ? in.free() / 2 : in.free());
  for (uint64_t k = 0; k < in.elements(); ++k) {
    st.value.push_back(in.ReadF32(k));
    st.bits.push_back(uint32_t(in.ReadRaw(k)));
  }
}

Status LoadStationary(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  Load(in, inst.has_flag(isa::kFlagDoubleRow), s.stationary);
  return Status::Ok();
}

Status MultiplyMoving(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  const Stationary& st = s.stationary;
  if (!st.loaded) return InvalidError("execution error: multiply_moving before load_stationary");
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand mv, BindSlot(e, inst, 1, s, hbm));
  const bool dr = inst.has_flag(isa::kFlagDoubleRow);
  const uint32_t rows_per_k = dr ? 2 : 1;
  if (mv.rows() != st.k || dr != st.double_row)
    return InvalidError("execution error: moving K " + std::to_string(mv.rows()) +
                        (dr ? " (double_row)" : "") + " does not match the stationary's K " +
                        std::to_string(st.k) + (st.double_row ? " (double_row)" : ""));
  if (IsFp32Class(mv.dtype()) != IsFp32Class(st.dtype))
    return InvalidError("execution error: moving and stationary dtype classes differ");
  const uint64_t n = mv.free() / rows_per_k;
  if (dst.rows() != st.m || dst.free() != n)
    return InvalidError("execution error: dst is [" + std::to_string(dst.rows()) + ", " +
                        std::to_string(dst.free()) + "], the product is [" + std::to_string(st.m) +
                        ", " + std::to_string(n) + "]");
  if (inst.has_flag(isa::kFlagTranspose)) {
    // Bit-exact pass-through: dst[m][k] = stationary[k][m] (moving is the identity).
    if (n != st.k) return InvalidError("execution error: transpose needs N == K");
    for (uint32_t m = 0; m < st.m; ++m)
      for (uint32_t k = 0; k < st.k; ++k) {
        uint64_t idx = uint64_t(m) * n + k;
        if (dst.dtype() == st.dtype)
          dst.WriteRaw(idx, st.bits[uint64_t(k) * st.m + m]);
        else
          dst.WriteF32(idx, st.value[uint64_t(k) * st.m + m]);
      }
    return Status::Ok();
  }
  std::vector<float> moving(mv.elements());
  for (uint64_t k = 0; k < mv.elements(); ++k) moving[k] = mv.ReadF32(k);
  const bool acc = inst.has_flag(isa::kFlagAccumulate);
  std::vector<float> out(st.m * n);
  for (uint32_t m = 0; m < st.m; ++m) {
    for (uint64_t j = 0; j < n; ++j) {
      float sum = 0.0f;  // sequential over k (and the double_row pair j2), fp32
      for (uint32_t k = 0; k < st.k; ++k)
        for (uint32_t j2 = 0; j2 < rows_per_k; ++j2) {
          float a = st.value[(uint64_t(k) * rows_per_k + j2) * st.m + m];
          float b = moving[(uint64_t(k) * rows_per_k + j2) * n + j];
          float p = a * b;
          sum = sum + p;
        }
      out[m * n + j] = acc ? dst.ReadF32(m * n + j) + sum : sum;
    }
  }
  for (uint64_t i = 0; i < out.size(); ++i) dst.WriteF32(i, out[i]);
  return Status::Ok();
}

Status NcTranspose(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (dst.rows() != in.free() || dst.free() != in.rows())
    return ShapeError("nc_transpose dst must be [F, P] of in");
  std::vector<uint64_t> bits(in.elements());
  for (uint64_t k = 0; k < in.elements(); ++k) bits[k] = in.ReadRaw(k);
  for (uint64_t p = 0; p < in.rows(); ++p)
    for (uint64_t f = 0; f < in.free(); ++f)
      dst.WriteRaw(f * in.rows() + p, bits[p * in.free() + f]);
  Load(in, false, s.stationary);  // afterwards the stationary buffer holds `in`
  return Status::Ok();
}

}  // namespace

Status ExecutePe(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  switch (inst.opcode) {
    case Opcode::kLoadStationary:
      return LoadStationary(e, inst, s, hbm);
    case Opcode::kMultiplyMoving:
      return MultiplyMoving(e, inst, s, hbm);
    case Opcode::kNcTranspose:
      return NcTranspose(e, inst, s, hbm);
    default:
      return Unsupported(inst);
  }
}

}  // namespace trnsim::reference
