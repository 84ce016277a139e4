// Search and gather opcodes: nc_find_index8, nc_match_replace8 (DVE), local_gather (POOL)
// (docs/isa.md §7.6, §7.7).
#include <string>
#include <vector>

#include "simulator/reference/exec_internal.h"

namespace trnsim::reference {

using isa::Engine;
using isa::Instruction;
using isa::Opcode;

namespace {

constexpr uint32_t kNotFound = 0xFFFFFFFFu;  // truncated to 0xFFFF for a uint16 dst

Status FindIndex8(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand data, BindSlot(e, inst, 1, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand vals, BindSlot(e, inst, 2, s, hbm));
  if (dst.rows() != data.rows() || vals.rows() != data.rows() || dst.free() != 8 ||
      vals.free() != 8)
    return ShapeError("nc_find_index8 dst and vals are [P, 8]");
  const uint64_t f = data.free();
  std::vector<uint32_t> out(dst.elements(), kNotFound);
  for (uint64_t r = 0; r < data.rows(); ++r)
    for (uint64_t j = 0; j < 8; ++j) {
      const float v = vals.ReadF32(r * 8 + j);
      for (uint64_t k = 0; k < f; ++k)
        if (data.ReadF32(r * f + k) == v) {
          out[r * 8 + j] = uint32_t(k);
          break;
        }
    }
  for (uint64_t k = 0; k < out.size(); ++k) dst.WriteIntBits(k, out[k]);
  return Status::Ok();
}

Status MatchReplace8(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand data, BindSlot(e, inst, 1, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand vals, BindSlot(e, inst, 2, s, hbm));
  std::optional<Operand> idx;
  if (inst.ap[3].present()) {
    TRNSIM_ASSIGN_OR_RETURN(idx, BindSlot(e, inst, 3, s, hbm));
  }
  const uint64_t f = data.free();
  if (dst.elements() != data.elements() || vals.rows() != data.rows() || vals.free() != 8 ||
      (idx && (idx->rows() != data.rows() || idx->free() != 8)))
    return ShapeError("nc_match_replace8");
  std::vector<float> w(data.elements());
  std::vector<uint32_t> where(data.rows() * 8, kNotFound);
  for (uint64_t k = 0; k < w.size(); ++k) w[k] = data.ReadF32(k);
  for (uint64_t r = 0; r < data.rows(); ++r)
    for (int j = 7; j >= 0; --j) {
      const float v = vals.ReadF32(r * 8 + uint64_t(j));
      for (uint64_t k = 0; k < f; ++k)
        if (w[r * f + k] == v) {
          w[r * f + k] = inst.imm_f32(0);
          where[r * 8 + uint64_t(j)] = uint32_t(k);
          break;
        }
    }
  for (uint64_t k = 0; k < w.size(); ++k) dst.WriteF32(k, w[k]);
  if (idx)
    for (uint64_t k = 0; k < where.size(); ++k) idx->WriteIntBits(k, where[k]);
  return Status::Ok();
}

Status LocalGather(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand index, BindSlot(e, inst, 2, s, hbm));
  const uint64_t epi = inst.count;
  if (epi == 0 || in.rows() % 16 != 0 || dst.rows() != in.rows() || index.rows() != in.rows() ||
      dst.free() != index.free() * epi)
    return ShapeError("local_gather: 16-partition groups, dst.F = index.F * elems_per_index");
  const uint64_t groups = in.rows() / 16;
  const uint64_t src_n = 16 * in.free(), idx_n = 16 * index.free(), dst_n = 16 * dst.free();
  std::vector<uint64_t> out(dst.elements());
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t j = 0; j < idx_n; ++j) {
      const uint64_t v = index.ReadRaw(g * idx_n + j);
      if ((v + 1) * epi > src_n)
        return InvalidError("execution error: local_gather index " + std::to_string(v) +
                            " outside its group's " + std::to_string(src_n) + " elements");
      for (uint64_t t = 0; t < epi; ++t)
        out[g * dst_n + j * epi + t] = in.ReadRaw(g * src_n + v * epi + t);
    }
  for (uint64_t k = 0; k < out.size(); ++k) dst.WriteRaw(k, out[k]);
  return Status::Ok();
}

}  // namespace

Status ExecuteGather(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  switch (inst.opcode) {
    case Opcode::kNcFindIndex8:
      return FindIndex8(e, inst, s, hbm);
    case Opcode::kNcMatchReplace8:
      return MatchReplace8(e, inst, s, hbm);
    case Opcode::kLocalGather:
      return LocalGather(e, inst, s, hbm);
    default:
      return Unsupported(inst);
  }
}

}  // namespace trnsim::reference
