// Elementwise opcodes (tensor_copy, tensor_scalar, tensor_tensor, memset, iota) and the ACT
// opcodes (activation, activation_reduce, read_accumulator); dispatch of the rest.
#include <vector>

#include "simulator/isa/dtype.h"
#include "simulator/numerics/activation.h"
#include "simulator/numerics/alu.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/reference/exec_internal.h"

namespace trnsim::reference {

using isa::AluOp;
using isa::Engine;
using isa::Instruction;
using isa::Opcode;

namespace {

bool IsInt32Type(isa::Dtype d) { return d == isa::Dtype::kInt32 || d == isa::Dtype::kUint32; }

bool PoolExactOp(AluOp op) {
  switch (op) {
    case AluOp::kBypass:
    case AluOp::kAdd:
    case AluOp::kSubtract:
    case AluOp::kMultiply:
    case AluOp::kMaximum:
    case AluOp::kMinimum:
    case AluOp::kEqual:
    case AluOp::kNotEqual:
    case AluOp::kGreaterEqual:
    case AluOp::kGreater:
    case AluOp::kLessEqual:
    case AluOp::kLess:
      return true;
    default:
      return false;
  }
}

bool IsBitvec(AluOp op) { return isa::AluOpClass(op) == isa::AluClass::kBitvec; }

// Element k's scalar for row `row`: the [P, 1] operand, or the immediate (fp32 bits).
float ScalarF(const Operand* op, uint64_t row, float imm) {
  return op ? op->ReadF32(row * op->free()) : imm;
}

Status TensorCopy(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  if (dst.elements() != in.elements()) return ShapeError("tensor_copy dst/in");
  bool same = dst.dtype() == in.dtype();
  std::vector<uint64_t> raw(in.elements());
  std::vector<float> f(in.elements());
  for (uint64_t k = 0; k < in.elements(); ++k)
    same ? void(raw[k] = in.ReadRaw(k)) : void(f[k] = in.ReadF32(k));
  for (uint64_t k = 0; k < dst.elements(); ++k)
    same ? dst.WriteRaw(k, raw[k]) : dst.WriteF32(k, f[k]);
  return Status::Ok();
}

// tensor_scalar (two scalars) and tensor_tensor (one tensor operand): one routine, three paths.
Status Elementwise(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  const bool tt = inst.opcode == Opcode::kTensorTensor;
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  std::optional<Operand> opnd[2];
  for (int j = 0; j < 2; ++j) {
    if (!inst.ap[2 + j].present()) continue;
    TRNSIM_ASSIGN_OR_RETURN(opnd[j], BindSlot(e, inst, 2 + j, s, hbm));
  }
  const uint64_t n = in.elements();
  if (dst.elements() != n) return ShapeError("dst/in");
  if (tt && (!opnd[0] || opnd[0]->elements() != n)) return ShapeError("in0/in1");
  const AluOp op0 = inst.op0, op1 = tt ? AluOp::kBypass : inst.op1;
  const bool rev0 = inst.has_flag(isa::kFlagReverse0), rev1 = inst.has_flag(isa::kFlagReverse1);
  bool all_int32 = IsInt32Type(dst.dtype()) && IsInt32Type(in.dtype());
  for (auto& o : opnd) all_int32 = all_int32 && (!o || IsInt32Type(o->dtype()));
  const bool bitvec = IsBitvec(op0) || IsBitvec(op1);
  const bool exact =
      !bitvec && e == Engine::kPool && all_int32 && PoolExactOp(op0) && PoolExactOp(op1);
  std::vector<uint32_t> out_bits(n);
  std::vector<float> out_f(n);
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t row = k / in.free();
    if (bitvec || exact) {
      auto ints = [&](int j) -> uint32_t {  // operand j as 32 integer bits
        if (tt) return opnd[0]->ReadIntBits(k);
        if (opnd[j]) return opnd[j]->ReadIntBits(row * opnd[j]->free());
        if (isa::ImmIsInteger(inst, j)) return inst.imm[j];
        return uint32_t(numerics::Fp32ToInt32(inst.imm_f32(j)));
      };
      const bool sgn = in.dtype() == isa::Dtype::kInt32 || !IsInt32Type(in.dtype());
      auto apply = [&](AluOp op, uint32_t x, uint32_t y) {
        return bitvec ? numerics::ApplyAluBits(op, x, y) : numerics::ApplyAluInt(op, x, y, sgn);
      };
      uint32_t x = in.ReadIntBits(k), s0 = ints(0);
      uint32_t t = op0 == AluOp::kBypass ? x : rev0 ? apply(op0, s0, x) : apply(op0, x, s0);
      if (!tt && op1 != AluOp::kBypass) {
        uint32_t s1 = ints(1);
        t = rev1 ? apply(op1, s1, t) : apply(op1, t, s1);
      }
      out_bits[k] = t;
    } else {
      float x = in.ReadF32(k);
      float s0 =
          tt ? opnd[0]->ReadF32(k) : ScalarF(opnd[0] ? &*opnd[0] : nullptr, row, inst.imm_f32(0));
      float t = op0 == AluOp::kBypass ? x
                : rev0                ? numerics::ApplyAlu(op0, s0, x)
                                      : numerics::ApplyAlu(op0, x, s0);
      if (!tt && op1 != AluOp::kBypass) {
        float s1 = ScalarF(opnd[1] ? &*opnd[1] : nullptr, row, inst.imm_f32(1));
        t = rev1 ? numerics::ApplyAlu(op1, s1, t) : numerics::ApplyAlu(op1, t, s1);
      }
      out_f[k] = t;
    }
  }
  for (uint64_t k = 0; k < n; ++k) {
    if (bitvec || exact) {
      // Integer result truncated to an integer dst; an int path never has a float dst.
      if (isa::IsFloat(dst.dtype()))
        dst.WriteF32(k, float(int32_t(out_bits[k])));
      else
        dst.WriteIntBits(k, out_bits[k]);
    } else {
      dst.WriteF32(k, out_f[k]);
    }
  }
  return Status::Ok();
}

Status Memset(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  const bool integer = isa::ImmIsInteger(inst, 0);
  for (uint64_t k = 0; k < dst.elements(); ++k) {
    if (integer && !isa::IsFloat(dst.dtype()))
      dst.WriteIntBits(k, inst.imm[0]);
    else
      dst.WriteF32(k, integer ? float(inst.imm_i32(0)) : inst.imm_f32(0));
  }
  return Status::Ok();
}

Status Iota(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand expr, BindSlot(e, inst, 1, s, hbm));
  if (dst.elements() != expr.elements()) return ShapeError("iota dst/expr");
  for (uint64_t k = 0; k < dst.elements(); ++k) {
    int32_t v = expr.PatternValue(k);
    if (isa::IsFloat(dst.dtype()))
      dst.WriteF32(k, float(v));  // int32 -> fp32 RNE
    else
      dst.WriteIntBits(k, uint32_t(v));
  }
  return Status::Ok();
}

// activation and activation_reduce.
Status Activation(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand in, BindSlot(e, inst, 1, s, hbm));
  std::optional<Operand> bias, scale, res;
  if (inst.ap[2].present()) {
    TRNSIM_ASSIGN_OR_RETURN(bias, BindSlot(e, inst, 2, s, hbm));
  }
  if (inst.ap[3].present()) {
    TRNSIM_ASSIGN_OR_RETURN(scale, BindSlot(e, inst, 3, s, hbm));
  }
  const bool with_res = inst.opcode == Opcode::kActivationReduce;
  if (with_res) {
    if (!inst.ap[4].present()) return InvalidError("activation_reduce without reduce_res");
    TRNSIM_ASSIGN_OR_RETURN(res, BindSlot(e, inst, 4, s, hbm));
  }
  if (dst.elements() != in.elements()) return ShapeError("activation dst/in");
  const isa::ReduceCmd cmd = with_res ? isa::ReduceCmd::kResetReduce : inst.reduce_cmd;
  const float alpha = inst.imm_f32(2);
  const uint64_t f = in.free();
  std::vector<float> y(in.elements());
  for (uint64_t k = 0; k < in.elements(); ++k) {
    const uint64_t r = k / f;
    float sc = ScalarF(scale ? &*scale : nullptr, r, inst.imm_f32(0));
    float b = ScalarF(bias ? &*bias : nullptr, r, inst.imm_f32(1));
    float pre = in.ReadF32(k) * sc;
    pre = pre + b;
    y[k] = numerics::ApplyActivation(inst.func, pre, alpha);
  }
  for (uint64_t k = 0; k < in.elements(); ++k) dst.WriteF32(k, y[k]);
  for (uint64_t r = 0; r < in.rows(); ++r) {
    float& acc = s.acc[in.partition(r) % 128];
    if (cmd == isa::ReduceCmd::kReset) acc = 0.0f;
    if (cmd == isa::ReduceCmd::kReduce || cmd == isa::ReduceCmd::kResetReduce) {
      float sum = cmd == isa::ReduceCmd::kReduce ? acc : 0.0f;
      for (uint64_t i = 0; i < f; ++i) sum = sum + y[r * f + i];
      acc = sum;
    }
    if (with_res) res->WriteF32(r * res->free(), acc);
  }
  return Status::Ok();
}

Status ReadAccumulator(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, BindSlot(e, inst, 0, s, hbm));
  const bool neg = inst.has_flag(isa::kFlagNegate);
  for (uint64_t r = 0; r < dst.rows(); ++r) {
    float a = s.acc[dst.partition(r) % 128];
    dst.WriteF32(r * dst.free(), neg ? -a : a);
  }
  return Status::Ok();
}

}  // namespace

Status ExecuteDatapath(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  switch (inst.opcode) {
    case Opcode::kTensorCopy:
      return TensorCopy(e, inst, s, hbm);
    case Opcode::kTensorScalar:
    case Opcode::kTensorTensor:
      return Elementwise(e, inst, s, hbm);
    case Opcode::kMemset:
      return Memset(e, inst, s, hbm);
    case Opcode::kIota:
      return Iota(e, inst, s, hbm);
    case Opcode::kActivation:
    case Opcode::kActivationReduce:
      return Activation(e, inst, s, hbm);
    case Opcode::kReadAccumulator:
      return ReadAccumulator(e, inst, s, hbm);
    case Opcode::kLoadStationary:
    case Opcode::kMultiplyMoving:
    case Opcode::kNcTranspose:
      return ExecutePe(e, inst, s, hbm);
    default:
      return ExecuteVector(e, inst, s, hbm);
  }
}

}  // namespace trnsim::reference
