#include "tests/simulator/isa/samples.h"

namespace trnsim::isa::testing {
namespace {

constexpr Dtype kF32 = Dtype::kFloat32;
constexpr Dtype kBf16 = Dtype::kBfloat16;

Instruction Make(Opcode op) {
  Instruction i;
  i.opcode = op;
  return i;
}

AccessPattern Sb(int p, int64_t off, uint16_t n, Dtype d = kF32) {
  return SbufAp(0, p, off, d, {{n, 1}});
}

}  // namespace

std::vector<Sample> Samples() {
  std::vector<Sample> s;
  auto add = [&](Engine e, Instruction i) { s.push_back({e, i}); };
  const AccessPattern col = Sb(128, 60000, 1);  // [128, 1] fp32

  // ---- control --------------------------------------------------------------------------------
  add(Engine::kSp, Make(Opcode::kNop));
  {
    Instruction i = Make(Opcode::kSemWait);
    i.index = 3;
    i.cmp = CmpOp::kGe;
    i.imm[0] = 16;
    add(Engine::kSp, i);
  }
  {
    Instruction i = Make(Opcode::kSemUpdate);
    i.index = 255;
    i.sem_op = UpdateOp::kSemSub;
    i.imm[0] = 2;
    add(Engine::kAct, i);
  }
  for (Opcode op : {Opcode::kEventSet, Opcode::kEventClear, Opcode::kEventWait}) {
    Instruction i = Make(op);
    i.index = 7;
    add(Engine::kPool, i);
  }
  add(Engine::kDve, Make(Opcode::kBarrier));
  {
    Instruction i = Make(Opcode::kRegSet);
    i.reg0 = 63;
    i.imm[0] = static_cast<uint32_t>(-5);
    add(Engine::kSp, i);
  }
  {
    Instruction i = Make(Opcode::kRegAdd);
    i.reg0 = 1;
    i.imm[0] = 1;
    add(Engine::kSp, i);
    Instruction j = Make(Opcode::kRegAdd);
    j.reg0 = 1;
    j.reg1 = 2;
    j.flags = kFlagRegOperand;
    add(Engine::kPe, j);
  }
  {
    Instruction i = Make(Opcode::kRegLoad);
    i.reg0 = 4;
    i.ap[0] = HbmAp(2, 16, Dtype::kInt32, 1, 0, {{1, 1}});
    add(Engine::kSp, i);
    Instruction j = Make(Opcode::kRegStore);
    j.reg0 = 4;
    j.ap[0] = SbufAp(0, 1, 8, Dtype::kUint32, {{1, 1}});
    add(Engine::kDve, j);
  }
  {
    Instruction i = Make(Opcode::kBranch);
    i.reg0 = 1;
    i.cmp = CmpOp::kLt;
    i.imm[0] = 16;
    i.target = 0;
    add(Engine::kSp, i);
    Instruction j = Make(Opcode::kBranch);
    j.reg0 = 1;
    j.reg1 = 9;
    j.cmp = CmpOp::kNe;
    j.flags = kFlagRegOperand;
    j.target = 1;
    add(Engine::kAct, j);
  }
  {
    Instruction i = Make(Opcode::kDmaTrigger);
    i.index = 12;
    i.count = 3;
    AddWait(i, {WaitKind::kSemaphore, CmpOp::kGe, 5, 32});
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kRead, 6, 1});
    add(Engine::kSp, i);
  }
  {
    Instruction i = Make(Opcode::kDmaCopy);
    i.index = 2;
    i.ap[0] = SbufAp(0, 128, 0, kBf16, {{512, 1}});
    i.ap[1] = HbmAp(3, 0, kF32, 128, 1024, {{512, 2}});
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 0, 1});
    AddUpdate(i, {UpdateOp::kEventSet, UpdateWhen::kComplete, 9, 0});
    add(Engine::kSp, i);
  }
  // ---- PE -------------------------------------------------------------------------------------
  {
    Instruction i = Make(Opcode::kLoadStationary);
    i.ap[1] = SbufAp(0, 128, 0, kBf16, {{128, 1}});
    AddWait(i, {WaitKind::kSemaphore, CmpOp::kGe, 0, 1});
    add(Engine::kPe, i);
    Instruction j = Make(Opcode::kLoadStationary);
    j.flags = kFlagDoubleRow;
    j.ap[1] = SbufAp(0, 128, 0, Dtype::kFloat8E4, {{2, 128}, {128, 1}});
    add(Engine::kPe, j);
  }
  {
    Instruction i = Make(Opcode::kMultiplyMoving);
    i.flags = kFlagGroupFirst | kFlagGroupLast;
    i.ap[0] = PsumAp(0, 128, 2 * 2048, kF32, {{512, 1}});
    i.ap[1] = SbufAp(0, 128, 4096, kBf16, {{512, 1}});
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 1, 1});
    add(Engine::kPe, i);
    Instruction j = Make(Opcode::kMultiplyMoving);
    j.flags = kFlagAccumulate | kFlagGroupLast;
    j.ap[0] = PsumAp(0, 64, 0, kF32, {{256, 1}});
    j.ap[0].offset_reg = 3;
    j.ap[0].reg_stride_bytes = 1024;
    j.ap[1] = SbufAp(0, 128, 0, kF32, {{256, 1}});
    add(Engine::kPe, j);
  }
  {
    Instruction i = Make(Opcode::kNcTranspose);
    i.ap[0] = PsumAp(0, 64, 0, kBf16, {{128, 1}});
    i.ap[1] = SbufAp(0, 128, 0, kBf16, {{64, 1}});
    add(Engine::kPe, i);
  }
  // ---- ACT ------------------------------------------------------------------------------------
  {
    Instruction i = Make(Opcode::kActivation);
    i.func = ActFunc::kGeluApproxTanh;
    i.reduce_cmd = ReduceCmd::kResetReduce;
    i.set_imm_f32(0, 0.5f);
    i.set_imm_f32(1, -1.25f);
    i.ap[0] = Sb(128, 0, 512, kBf16);
    i.ap[1] = PsumAp(0, 128, 0, kF32, {{512, 1}});
    add(Engine::kAct, i);
    Instruction j = Make(Opcode::kActivation);
    j.func = ActFunc::kPrelu;
    j.set_imm_f32(2, 0.01f);
    j.ap[0] = Sb(128, 0, 512);
    j.ap[1] = Sb(128, 4096, 512);
    j.ap[2] = col;
    j.ap[3] = col;
    add(Engine::kAct, j);
  }
  {
    Instruction i = Make(Opcode::kActivationReduce);
    i.func = ActFunc::kExp;
    i.set_imm_f32(0, 1.0f);
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    i.ap[2] = col;
    i.ap[4] = col;
    add(Engine::kAct, i);
  }
  {
    Instruction i = Make(Opcode::kReadAccumulator);
    i.flags = kFlagNegate;
    i.ap[0] = col;
    add(Engine::kAct, i);
  }
  // ---- elementwise ----------------------------------------------------------------------------
  {
    Instruction i = Make(Opcode::kTensorCopy);
    i.ap[0] = Sb(128, 0, 512, kBf16);
    i.ap[1] = Sb(128, 8192, 512);
    add(Engine::kPool, i);
    i.ap[1] = PsumAp(0, 128, 0, kF32, {{512, 1}});
    add(Engine::kAct, i);
  }
  {
    Instruction i = Make(Opcode::kTensorScalar);
    i.op0 = AluOp::kMultiply;
    i.op1 = AluOp::kAdd;
    i.set_imm_f32(0, 2.0f);
    i.ap[3] = col;
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    add(Engine::kAct, i);
    Instruction j = Make(Opcode::kTensorScalar);
    j.op0 = AluOp::kBitwiseAnd;
    j.op1 = AluOp::kLeftShift;
    j.imm[0] = 0xFF;
    j.imm[1] = 4;
    j.flags = kFlagReverse1;
    j.ap[0] = Sb(128, 0, 512, Dtype::kInt32);
    j.ap[1] = Sb(128, 4096, 512, Dtype::kUint16);
    add(Engine::kDve, j);
  }
  {
    Instruction i = Make(Opcode::kTensorTensor);
    i.op0 = AluOp::kSubtract;
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    i.ap[2] = PsumAp(0, 128, 0, kF32, {{512, 1}});
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kMemset);
    i.ap[0] = Sb(128, 0, 512, kBf16);
    i.set_imm_f32(0, -0.0f);
    add(Engine::kDve, i);
    Instruction j = Make(Opcode::kMemset);
    j.ap[0] = Sb(32, 0, 64, Dtype::kInt8);
    j.imm[0] = static_cast<uint32_t>(-7);
    j.ap[0].start_partition = 96;
    add(Engine::kPool, j);
  }
  {
    Instruction i = Make(Opcode::kIota);
    i.ap[0] = SbufAp(0, 128, 0, Dtype::kInt32, {{4, 128}, {128, 1}});
    i.ap[1] = PatternAp(-3, 128, 512, {{4, 128}, {128, 1}});
    add(Engine::kPool, i);
  }
  // ---- DVE ------------------------------------------------------------------------------------
  {
    Instruction i = Make(Opcode::kTensorReduce);
    i.op0 = AluOp::kMaximum;
    i.count = 2;
    i.flags = kFlagNegate;
    i.ap[0] = Sb(128, 0, 4);
    i.ap[1] = SbufAp(0, 128, 4096, kBf16, {{4, 1024}, {8, 128}, {128, 1}});
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kTensorCopyPredicated);
    i.flags = kFlagReversePred;
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    i.ap[2] = Sb(128, 8192, 512, Dtype::kUint8);
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kTranspose);
    i.ap[0] = SbufAp(32, 16, 0, kBf16, {{32, 1}});
    i.ap[1] = SbufAp(32, 32, 4096, kBf16, {{16, 1}});
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kBnStats);
    i.ap[0] = Sb(128, 0, 6);
    i.ap[1] = Sb(128, 4096, 512, kBf16);
    add(Engine::kDve, i);
    Instruction j = Make(Opcode::kBnAggr);
    j.ap[0] = Sb(128, 0, 2);
    j.ap[1] = Sb(128, 4096, 12);
    add(Engine::kDve, j);
  }
  {
    Instruction i = Make(Opcode::kMax8);
    i.ap[0] = Sb(128, 0, 8);
    i.ap[1] = Sb(128, 4096, 1000);
    add(Engine::kDve, i);
    Instruction j = Make(Opcode::kNcFindIndex8);
    j.ap[0] = Sb(128, 0, 8, Dtype::kUint32);
    j.ap[1] = Sb(128, 4096, 1000);
    j.ap[2] = Sb(128, 64, 8);
    add(Engine::kDve, j);
    Instruction k = Make(Opcode::kNcMatchReplace8);
    k.set_imm_f32(0, -3.0e38f);
    k.ap[0] = Sb(128, 8192, 1000);
    k.ap[1] = Sb(128, 4096, 1000);
    k.ap[2] = Sb(128, 64, 8);
    k.ap[3] = Sb(128, 128, 8, Dtype::kUint16);
    add(Engine::kDve, k);
  }
  {
    Instruction i = Make(Opcode::kTensorScalarReduce);
    i.op0 = AluOp::kMultiply;
    i.op1 = AluOp::kAdd;
    i.set_imm_f32(0, 3.0f);
    i.flags = kFlagNegate;
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    i.ap[3] = col;
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kTensorTensorScan);
    i.op0 = AluOp::kMultiply;
    i.op1 = AluOp::kAdd;
    i.ap[3] = col;
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    i.ap[2] = Sb(128, 8192, 512);
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kScalarTensorTensor);
    i.op0 = AluOp::kSubtract;
    i.op1 = AluOp::kMultiply;
    i.set_imm_f32(0, 1.5f);
    i.flags = kFlagReverse0;
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    i.ap[3] = Sb(128, 8192, 512);
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kReciprocal);
    i.ap[0] = Sb(128, 0, 512);
    i.ap[1] = PsumAp(0, 128, 6 * 2048 + 64, kF32, {{512, 1}});
    add(Engine::kDve, i);
  }
  // ---- POOL -----------------------------------------------------------------------------------
  {
    Instruction i = Make(Opcode::kAffineSelect);
    i.cmp = CmpOp::kGe;
    i.set_imm_f32(0, -1e30f);
    i.ap[0] = Sb(128, 0, 128);
    i.ap[1] = PatternAp(0, 128, 1, {{128, -1}});
    i.ap[2] = Sb(128, 4096, 128);
    add(Engine::kPool, i);
  }
  {
    Instruction i = Make(Opcode::kLocalGather);
    i.count = 4;
    i.ap[0] = Sb(64, 0, 64, kBf16);
    i.ap[1] = Sb(64, 4096, 256, kBf16);
    i.ap[2] = Sb(64, 8192, 16, Dtype::kUint16);
    add(Engine::kPool, i);
  }
  {
    Instruction i = Make(Opcode::kTensorPartitionReduce);
    i.op0 = AluOp::kAdd;
    i.ap[0] = Sb(1, 0, 512);
    i.ap[1] = Sb(128, 4096, 512);
    add(Engine::kPool, i);
  }
  // ---- collectives ----------------------------------------------------------------------------
  {
    // all_reduce (add) over the whole world; the first sample is validate_case's Base.
    Instruction i = Make(Opcode::kCollective);
    i.count = static_cast<uint8_t>(CollectiveKind::kAllReduce);
    i.op0 = AluOp::kAdd;
    i.index = 7;
    i.imm[1] = 1;
    i.ap[0] = HbmAp(2, 0, kF32, 128, 512, {{512, 1}});
    i.ap[1] = HbmAp(1, 0, kF32, 128, 1024, {{512, 2}});
    AddUpdate(i, {UpdateOp::kSemSub, UpdateWhen::kRead, 4, 1});
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 5, 1});
    add(Engine::kSp, i);
  }
  {
    Instruction i = Make(Opcode::kCollective);  // all_gather in groups of 4, stride 2
    i.count = static_cast<uint8_t>(CollectiveKind::kAllGather);
    i.index = 8;
    i.imm[0] = 4;
    i.imm[1] = 2;
    i.ap[0] = HbmAp(2, 0, kBf16, 4, 256, {{256, 1}});
    i.ap[1] = HbmAp(1, 64, kBf16, 1, 0, {{256, 1}});
    add(Engine::kPool, i);
  }
  {
    Instruction i = Make(Opcode::kCollective);  // reduce_scatter (maximum) in pairs
    i.count = static_cast<uint8_t>(CollectiveKind::kReduceScatter);
    i.op0 = AluOp::kMaximum;
    i.imm[0] = 2;
    i.imm[1] = 1;
    i.ap[0] = HbmAp(2, 0, Dtype::kInt32, 1, 0, {{64, 1}});
    i.ap[1] = HbmAp(1, 0, Dtype::kInt32, 2, 64, {{64, 1}});
    add(Engine::kAct, i);
  }
  {
    Instruction i = Make(Opcode::kCollective);  // all_to_all of 64-bit elements
    i.count = static_cast<uint8_t>(CollectiveKind::kAllToAll);
    i.imm[0] = 8;
    i.imm[1] = 1;
    i.ap[0] = HbmAp(2, 0, Dtype::kUint64, 8, 16, {{16, 1}});
    i.ap[1] = HbmAp(1, 0, Dtype::kUint64, 8, 16, {{16, 1}});
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kCollective);  // permute backwards by one
    i.count = static_cast<uint8_t>(CollectiveKind::kPermute);
    i.imm[1] = 1;
    i.imm[2] = static_cast<uint32_t>(-1);
    i.ap[0] = HbmAp(2, 0, Dtype::kFloat8E4, 1, 0, {{4096, 1}});
    i.ap[1] = HbmAp(1, 0, Dtype::kFloat8E4, 1, 0, {{4096, 1}});
    add(Engine::kPe, i);
  }
  // ---- LNC=2 pair ------------------------------------------------------------------------------
  {
    Instruction i = Make(Opcode::kCoreBarrier);  // the first sample is validate_case's Base
    i.index = 9;
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 10, 1});
    add(Engine::kPool, i);
  }
  {
    Instruction i = Make(Opcode::kSendRecv);
    i.count = 3;
    i.index = 11;
    i.ap[0] = Sb(64, 8192, 256, kBf16);
    i.ap[1] = Sb(64, 0, 256, kBf16);
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 12, 1});
    add(Engine::kSp, i);
  }
  {
    Instruction i = Make(Opcode::kCoreBarrier);
    add(Engine::kAct, i);
  }
  // ---- debug output: an SBUF tile, an HBM tensor with a register offset, on two engines ------
  {
    Instruction i = Make(Opcode::kDebugPrint);
    i.index = 3;
    i.ap[1] = SbufAp(32, 32, 1024, kBf16, {{4, 64}, {16, 1}});
    AddWait(i, {WaitKind::kSemaphore, CmpOp::kGe, 5, 1});
    AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 6, 1});
    add(Engine::kDve, i);
  }
  {
    Instruction i = Make(Opcode::kDebugPrint);
    i.ap[1] = HbmAp(4, 8, Dtype::kInt64, 2, 32, {{2, 4}, {3, 1}});
    i.ap[1].offset_reg = 2;
    i.ap[1].reg_stride_bytes = 64;
    add(Engine::kPe, i);
  }
  Instruction end = Make(Opcode::kNotifyEnd);
  end.index = 42;
  add(Engine::kSp, end);
  return s;
}

std::vector<Instruction> SampleStream(Engine engine) {
  std::vector<Instruction> out;
  for (const Sample& s : Samples()) {
    if (s.engine == engine && s.inst.opcode != Opcode::kNotifyEnd) out.push_back(s.inst);
  }
  Instruction end;
  end.opcode = Opcode::kNotifyEnd;
  out.push_back(end);
  return out;
}

}  // namespace trnsim::isa::testing
