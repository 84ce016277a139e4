// Stream: the typed helpers of the datapath instructions (PE, ACT, DVE, POOL).
#include "tools/kernel_builder/stream.h"

namespace trnsim::kb {

using isa::AccessPattern;
using isa::Instruction;
using isa::Opcode;

namespace {

Instruction Make(Opcode op) {
  Instruction i;
  i.opcode = op;
  return i;
}

}  // namespace

InstRef Stream::LoadStationary(const AccessPattern& stationary) {
  Instruction i = Make(Opcode::kLoadStationary);
  i.ap[isa::kSrc] = stationary;
  return Emit(i);
}

InstRef Stream::MultiplyMoving(const AccessPattern& dst, const AccessPattern& moving, bool first,
                               bool last) {
  Instruction i = Make(Opcode::kMultiplyMoving);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = moving;
  i.flags = static_cast<uint16_t>((first ? isa::kFlagGroupFirst : isa::kFlagAccumulate) |
                                  (last ? isa::kFlagGroupLast : 0));
  return Emit(i);
}

MatmulRefs Stream::Matmul(const AccessPattern& dst, const AccessPattern& stationary,
                          const AccessPattern& moving, bool first, bool last) {
  MatmulRefs r;
  r.stationary = LoadStationary(stationary);
  if (r.stationary.valid()) r.moving = MultiplyMoving(dst, moving, first, last);
  return r;
}

InstRef Stream::Transpose(const AccessPattern& dst, const AccessPattern& in) {
  Instruction i = Make(engine_ == isa::Engine::kPe ? Opcode::kNcTranspose : Opcode::kTranspose);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = in;
  return Emit(i);
}

InstRef Stream::Activation(const AccessPattern& dst, const AccessPattern& in, isa::ActFunc f,
                           const ActArgs& args) {
  Instruction i = Make(Opcode::kActivation);
  i.func = f;
  i.reduce_cmd = args.reduce_cmd;
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = in;
  SetScalar(i, 2, args.bias);
  SetScalar(i, 3, args.scale);
  i.set_imm_f32(2, args.alpha);
  return Emit(i);
}

InstRef Stream::TensorCopy(const AccessPattern& dst, const AccessPattern& in) {
  Instruction i = Make(Opcode::kTensorCopy);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = in;
  return Emit(i);
}

InstRef Stream::TensorTensor(const AccessPattern& dst, const AccessPattern& in0,
                             const AccessPattern& in1, isa::AluOp op) {
  Instruction i = Make(Opcode::kTensorTensor);
  i.op0 = op;
  i.ap[0] = dst;
  i.ap[1] = in0;
  i.ap[2] = in1;
  return Emit(i);
}

InstRef Stream::TensorScalar(const AccessPattern& dst, const AccessPattern& in, isa::AluOp op0,
                             const Scalar& operand0, isa::AluOp op1, const Scalar& operand1) {
  Instruction i = Make(Opcode::kTensorScalar);
  i.op0 = op0;
  i.op1 = op1;
  i.ap[0] = dst;
  i.ap[1] = in;
  SetScalar(i, 2, operand0);
  if (op1 != isa::AluOp::kBypass) SetScalar(i, 3, operand1);
  return Emit(i);
}

InstRef Stream::ScalarTensorTensor(const AccessPattern& dst, const AccessPattern& data,
                                   isa::AluOp op0, const Scalar& operand0, isa::AluOp op1,
                                   const AccessPattern& operand1) {
  Instruction i = Make(Opcode::kScalarTensorTensor);
  i.op0 = op0;
  i.op1 = op1;
  i.ap[0] = dst;
  i.ap[1] = data;
  SetScalar(i, 2, operand0);
  i.ap[3] = operand1;
  return Emit(i);
}

InstRef Stream::TensorReduce(const AccessPattern& dst, const AccessPattern& in, isa::AluOp op,
                             int axes, bool negate) {
  Instruction i = Make(Opcode::kTensorReduce);
  i.op0 = op;
  i.count = static_cast<uint8_t>(axes);
  if (negate) i.flags = isa::kFlagNegate;
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = in;
  return Emit(i);
}

InstRef Stream::Reciprocal(const AccessPattern& dst, const AccessPattern& in) {
  Instruction i = Make(Opcode::kReciprocal);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = in;
  return Emit(i);
}

InstRef Stream::Memset(const AccessPattern& dst, const Scalar& value) {
  Instruction i = Make(Opcode::kMemset);
  i.ap[isa::kDst] = dst;
  i.imm[0] = value.bits();
  return Emit(i);
}

InstRef Stream::Iota(const AccessPattern& dst, const AccessPattern& pattern) {
  Instruction i = Make(Opcode::kIota);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = pattern;
  return Emit(i);
}

}  // namespace trnsim::kb
