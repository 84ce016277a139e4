// DVE and POOL opcodes beyond the elementwise ones (docs/isa.md §7.6, §7.7).
#include <algorithm>
#include <cmath>
#include <vector>

#include "simulator/numerics/alu.h"
#include "simulator/reference/exec_internal.h"

namespace trnsim::reference {

using isa::AluOp;
using isa::Engine;
using isa::Instruction;
using isa::Opcode;

namespace {

bool IsBitvec(AluOp op) { return isa::AluOpClass(op) == isa::AluClass::kBitvec; }

// Sequential reduction of `n` elements read by `get`, starting from the first element.
template <typename Get>
float ReduceF(AluOp op, uint64_t n, Get get) {
  float acc = get(0);
  for (uint64_t i = 1; i < n; ++i) acc = numerics::ApplyAlu(op, acc, get(i));
  return acc;
}
template <typename Get>
uint32_t ReduceBits(AluOp op, uint64_t n, Get get) {
  uint32_t acc = get(0);
  for (uint64_t i = 1; i < n; ++i) acc = numerics::ApplyAluBits(op, acc, get(i));
  return acc;
}

Status TensorReduce(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (inst.count < 1 || inst.count > in.ap().num_dims) return InvalidError("bad axes count");
  const uint64_t g = in.ap().InnerElements(inst.count);
  if (dst.rows() != in.rows() || dst.elements() * g != in.elements())
    return ShapeError("tensor_reduce dst must be [P, F / reduced]");
  // All results are computed before any is written (dst may overlap in).
  std::vector<uint32_t> ib(dst.elements());
  std::vector<float> fv(dst.elements());
  for (uint64_t o = 0; o < dst.elements(); ++o) {
    if (IsBitvec(inst.op0)) {
      ib[o] = ReduceBits(inst.op0, g, [&](uint64_t i) { return in.ReadIntBits(o * g + i); });
    } else {
      float v = ReduceF(inst.op0, g, [&](uint64_t i) { return in.ReadF32(o * g + i); });
      fv[o] = inst.has_flag(isa::kFlagNegate) ? -v : v;
    }
  }
  for (uint64_t o = 0; o < dst.elements(); ++o)
    IsBitvec(inst.op0) ? dst.WriteIntBits(o, ib[o]) : dst.WriteF32(o, fv[o]);
  return Status::Ok();
}

Status CopyPredicated(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand pred, BindSlot(e, inst, 2, s, hbm));
  if (dst.elements() != in.elements() || pred.elements() != in.elements())
    return ShapeError("tensor_copy_predicated");
  const bool rev = inst.has_flag(isa::kFlagReversePred);
  std::vector<uint64_t> bits(in.elements());
  std::vector<bool> take(in.elements());
  for (uint64_t k = 0; k < in.elements(); ++k) {
    bits[k] = in.ReadRaw(k);
    take[k] = (pred.ReadRaw(k) != 0) != rev;
  }
  for (uint64_t k = 0; k < in.elements(); ++k)
    if (take[k]) dst.WriteRaw(k, bits[k]);
  return Status::Ok();
}

Status Transpose(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (dst.rows() != in.free() || dst.free() != in.rows()) return ShapeError("transpose");
  std::vector<uint64_t> bits(in.elements());
  for (uint64_t k = 0; k < in.elements(); ++k) bits[k] = in.ReadRaw(k);
  for (uint64_t p = 0; p < in.rows(); ++p)
    for (uint64_t f = 0; f < in.free(); ++f)
      dst.WriteRaw(f * in.rows() + p, bits[p * in.free() + f]);
  return Status::Ok();
}

Status Reciprocal(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (dst.elements() != in.elements()) return ShapeError("reciprocal");
  std::vector<float> v(in.elements());
  for (uint64_t k = 0; k < in.elements(); ++k) v[k] = 1.0f / in.ReadF32(k);
  for (uint64_t k = 0; k < in.elements(); ++k) dst.WriteF32(k, v[k]);
  return Status::Ok();
}

Status AffineSelect(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand expr, BindSlot(e, inst, 1, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand on_true, BindSlot(e, inst, 2, s, hbm));
  if (dst.elements() != expr.elements() || on_true.elements() != expr.elements())
    return ShapeError("affine_select");
  const bool bits = on_true.dtype() == dst.dtype();
  std::vector<uint64_t> raw(dst.elements());
  std::vector<float> fv(dst.elements());
  std::vector<bool> pick(dst.elements());
  for (uint64_t k = 0; k < dst.elements(); ++k) {
    pick[k] = isa::Compare<int32_t>(inst.cmp, expr.PatternValue(k), 0);
    if (pick[k] && bits)
      raw[k] = on_true.ReadRaw(k);
    else
      fv[k] = pick[k] ? on_true.ReadF32(k) : inst.imm_f32(0);
  }
  for (uint64_t k = 0; k < dst.elements(); ++k)
    (pick[k] && bits) ? dst.WriteRaw(k, raw[k]) : dst.WriteF32(k, fv[k]);
  return Status::Ok();
}

Status PartitionReduce(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (dst.elements() != in.free()) return ShapeError("tensor_partition_reduce dst is [1, F]");
  const uint64_t f = in.free(), p = in.rows();
  std::vector<uint32_t> ib(f);
  std::vector<float> fv(f);
  for (uint64_t i = 0; i < f; ++i) {
    if (IsBitvec(inst.op0)) {
      ib[i] = ReduceBits(inst.op0, p, [&](uint64_t r) { return in.ReadIntBits(r * f + i); });
    } else if (inst.op0 == AluOp::kAverage) {
      float sum = ReduceF(AluOp::kAdd, p, [&](uint64_t r) { return in.ReadF32(r * f + i); });
      fv[i] = sum / float(p);
    } else {
      fv[i] = ReduceF(inst.op0, p, [&](uint64_t r) { return in.ReadF32(r * f + i); });
    }
  }
  for (uint64_t i = 0; i < f; ++i)
    IsBitvec(inst.op0) ? dst.WriteIntBits(i, ib[i]) : dst.WriteF32(i, fv[i]);
  return Status::Ok();
}

// scalar_tensor_tensor, tensor_tensor_scan, tensor_scalar_reduce: per-row fp32 loops.
Status RowOps(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand data, BindSlot(e, inst, 1, s, hbm));
  std::optional<Operand> o2, o3;
  if (inst.ap[2].present()) {
    TRNSIM_ASSIGN_OR_RETURN(o2, BindSlot(e, inst, 2, s, hbm));
  }
  if (inst.ap[3].present()) {
    TRNSIM_ASSIGN_OR_RETURN(o3, BindSlot(e, inst, 3, s, hbm));
  }
  const uint64_t f = data.free(), n = data.elements();
  if (dst.elements() != n) return ShapeError("dst/data");
  const bool rev0 = inst.has_flag(isa::kFlagReverse0), rev1 = inst.has_flag(isa::kFlagReverse1);
  auto ap = [](AluOp op, float x, float y, bool rev) {
    return rev ? numerics::ApplyAlu(op, y, x) : numerics::ApplyAlu(op, x, y);
  };
  std::vector<float> y(n), red(data.rows());
  for (uint64_t r = 0; r < data.rows(); ++r) {
    if (inst.opcode == Opcode::kTensorTensorScan) {
      if (!o2 || o2->elements() != n) return ShapeError("tensor_tensor_scan data1");
      float acc = o3 ? o3->ReadF32(r * o3->free()) : inst.imm_f32(0);
      for (uint64_t i = 0; i < f; ++i) {
        acc = numerics::ApplyAlu(inst.op0, data.ReadF32(r * f + i), acc);
        acc = numerics::ApplyAlu(inst.op1, acc, o2->ReadF32(r * f + i));
        y[r * f + i] = acc;
      }
      continue;
    }
    const float s0 = o2 ? o2->ReadF32(r * o2->free()) : inst.imm_f32(0);
    for (uint64_t i = 0; i < f; ++i) {
      float t = ap(inst.op0, data.ReadF32(r * f + i), s0, rev0);
      if (inst.opcode == Opcode::kScalarTensorTensor) {
        if (!o3 || o3->elements() != n) return ShapeError("scalar_tensor_tensor operand1");
        t = ap(inst.op1, t, o3->ReadF32(r * f + i), rev1);
      }
      y[r * f + i] = t;
    }
    if (inst.opcode == Opcode::kTensorScalarReduce) {
      float v = ReduceF(inst.op1, f, [&](uint64_t i) { return y[r * f + i]; });
      red[r] = inst.has_flag(isa::kFlagNegate) ? -v : v;
    }
  }
  for (uint64_t k = 0; k < n; ++k) dst.WriteF32(k, y[k]);
  if (inst.opcode == Opcode::kTensorScalarReduce) {
    if (!o3) return InvalidError("tensor_scalar_reduce without reduce_res");
    for (uint64_t r = 0; r < data.rows(); ++r) o3->WriteF32(r * o3->free(), red[r]);
  }
  return Status::Ok();
}

Status BnStats(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (dst.rows() != in.rows() || dst.free() != 6) return ShapeError("bn_stats dst is [P, 6]");
  const uint64_t f = in.free();
  std::vector<float> out(dst.elements());
  for (uint64_t r = 0; r < in.rows(); ++r)
    for (uint64_t parity = 0; parity < 2; ++parity) {
      float n = 0, sum = 0, mean = 0, m2 = 0;
      for (uint64_t i = parity; i < f; i += 2) {
        n += 1;
        sum = sum + in.ReadF32(r * f + i);
      }
      if (n > 0) mean = sum / n;
      for (uint64_t i = parity; i < f && n > 0; i += 2) {
        float d = in.ReadF32(r * f + i) - mean;
        m2 = m2 + d * d;
      }
      float* o = &out[r * 6 + parity * 3];
      o[0] = n;
      o[1] = mean;
      o[2] = m2;
    }
  for (uint64_t k = 0; k < out.size(); ++k) dst.WriteF32(k, out[k]);
  return Status::Ok();
}

Status BnAggr(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  const uint64_t f = in.free();
  if (dst.rows() != in.rows() || dst.free() != 2 || f % 3 != 0) return ShapeError("bn_aggr");
  std::vector<float> out(dst.elements());
  for (uint64_t r = 0; r < in.rows(); ++r) {
    auto at = [&](uint64_t g, int j) { return in.ReadF32(r * f + g * 3 + j); };
    float n = 0, wsum = 0, mean = 0, m2 = 0;
    for (uint64_t g = 0; g < f / 3; ++g) {
      n = n + at(g, 0);
      wsum = wsum + at(g, 0) * at(g, 1);
    }
    if (n > 0) {
      mean = wsum / n;
      for (uint64_t g = 0; g < f / 3; ++g) {
        float d = at(g, 1) - mean;
        m2 = m2 + (at(g, 2) + at(g, 0) * (d * d));
      }
    }
    out[r * 2] = mean;
    out[r * 2 + 1] = n > 0 ? m2 / n : 0.0f;
  }
  for (uint64_t k = 0; k < out.size(); ++k) dst.WriteF32(k, out[k]);
  return Status::Ok();
}

Status Max8(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  const uint64_t f = in.free();
  if (dst.rows() != in.rows() || dst.free() != 8 || f < 8) return ShapeError("max8");
  std::vector<float> out(dst.elements());
  for (uint64_t r = 0; r < in.rows(); ++r) {
    std::vector<float> row(f);
    for (uint64_t i = 0; i < f; ++i) row[i] = in.ReadF32(r * f + i);
    auto greater = [](float a, float b) {  // NaN counts as largest
      if (std::isnan(a)) return !std::isnan(b);
      return !std::isnan(b) && a > b;
    };
    std::stable_sort(row.begin(), row.end(), greater);
    for (int j = 0; j < 8; ++j) out[r * 8 + j] = row[j];
  }
  for (uint64_t k = 0; k < out.size(); ++k) dst.WriteF32(k, out[k]);
  return Status::Ok();
}

}  // namespace

Status ExecuteVector(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  switch (inst.opcode) {
    case Opcode::kTensorReduce:
      return TensorReduce(e, inst, s, hbm);
    case Opcode::kTensorCopyPredicated:
      return CopyPredicated(e, inst, s, hbm);
    case Opcode::kTranspose:
      return Transpose(e, inst, s, hbm);
    case Opcode::kReciprocal:
      return Reciprocal(e, inst, s, hbm);
    case Opcode::kAffineSelect:
      return AffineSelect(e, inst, s, hbm);
    case Opcode::kTensorPartitionReduce:
      return PartitionReduce(e, inst, s, hbm);
    case Opcode::kScalarTensorTensor:
    case Opcode::kTensorTensorScan:
    case Opcode::kTensorScalarReduce:
      return RowOps(e, inst, s, hbm);
    case Opcode::kBnStats:
      return BnStats(e, inst, s, hbm);
    case Opcode::kBnAggr:
      return BnAggr(e, inst, s, hbm);
    case Opcode::kMax8:
      return Max8(e, inst, s, hbm);
    case Opcode::kNcFindIndex8:
    case Opcode::kNcMatchReplace8:
    case Opcode::kLocalGather:
      return ExecuteGather(e, inst, s, hbm);
    default:
      return Unsupported(inst);
  }
}

}  // namespace trnsim::reference
