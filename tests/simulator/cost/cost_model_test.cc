// The per-instruction formulas on hand-computed cases (docs/calibration.md).
#include "simulator/cost/cost_model.h"

#include <gtest/gtest.h>

#include "simulator/spec/cost_spec.h"
#include "tests/simulator/cost/cost_test_util.h"

namespace trnsim::simulator::cost {
namespace {

using isa::AluOp;
using isa::Dtype;
using isa::Engine;
using isa::Instruction;
using isa::Opcode;
using testing::Make;
using testing::Psum;
using testing::Sbuf;
constexpr Dtype kBf16 = Dtype::kBfloat16;
constexpr Dtype kFp32 = Dtype::kFloat32;
constexpr Dtype kFp8 = Dtype::kFloat8E4;

const CostSpec kTrn2 = Trainium2CostSpec();
const CostSpec kTrn3 = Trainium3CostSpec();

uint64_t Cycles(const Instruction& inst, Engine e, const CostSpec& s = kTrn2) {
  return EstimateCost(inst, e, s).cycles;
}
uint64_t Cycles(const Instruction& inst, const CostSpec& s = kTrn2) {
  return EstimateCost(inst, s).cycles;
}
Instruction Matmul(Dtype d, uint16_t n, uint16_t flags = 0) {
  Instruction i = Make(Opcode::kMultiplyMoving, Psum(kFp32, n), Sbuf(d, n));
  i.flags = flags;
  return i;
}

// ---- PE ------------------------------------------------------------------------------------
TEST(cost_pe, MatmulBf16IsMovingFreeSize) {
  const InstructionCost c = EstimateCost(Matmul(kBf16, 512), kTrn2);
  EXPECT_EQ(c.engine, Engine::kPe);
  EXPECT_EQ(c.cycles, 512u);
  EXPECT_EQ(c.clock_hz, 2'400'000'000u);
  EXPECT_EQ(c.OccupancyPs(), 213'334u);  // 512 / 2.4 GHz = 213.33 ns, rounded up to a ps
  EXPECT_EQ(c.access_latency_cycles, 60u);
  EXPECT_EQ(c.dependent_overhead_cycles, 0u);
}
TEST(cost_pe, MatmulShortMovingIsMmInitLatency) {
  EXPECT_EQ(Cycles(Matmul(kBf16, 16)), 64u);
  EXPECT_EQ(Cycles(Matmul(kBf16, 64)), 64u);
  EXPECT_EQ(Cycles(Matmul(kBf16, 65)), 65u);
}
TEST(cost_pe, MatmulFp32IsFourTimesSlower) {
  EXPECT_EQ(Cycles(Matmul(kFp32, 512)), 2048u);
  EXPECT_EQ(Cycles(Matmul(kFp32, 16)), 256u);
  EXPECT_EQ(Cycles(Matmul(Dtype::kFloat32r, 128)), 128u);             // assumption: bf16 rate
  EXPECT_EQ(Cycles(Matmul(kFp32, 512, isa::kFlagTranspose)), 1024u);  // 2x faster fp32 transpose
  EXPECT_EQ(Cycles(Matmul(kFp32, 512, isa::kFlagOneZero)), 1024u);
  EXPECT_EQ(Cycles(Matmul(kBf16, 512, isa::kFlagOneZero)), 512u);  // hint only helps fp32
}
TEST(cost_pe, MatmulDoubleRowFp8TakesBf16Time) {
  Instruction i = Make(Opcode::kMultiplyMoving, Psum(kFp32, 512),
                       isa::SbufAp(0, 128, 0, kFp8, {{2, 512}, {512, 1}}));
  i.flags = isa::kFlagDoubleRow;
  EXPECT_EQ(Cycles(i), 512u);  // K = 256 logical, same time as bf16 K = 128
  EXPECT_EQ(Cycles(Matmul(kFp8, 512)), 512u);
}
TEST(cost_pe, FastLoadStationary) {
  Instruction ls = Make(Opcode::kLoadStationary, {}, Sbuf(kBf16, 128));
  EXPECT_EQ(Cycles(ls), 32u);  // 128 / 4 [PERF]
  ls.ap[1] = Sbuf(kFp32, 128);
  EXPECT_EQ(Cycles(ls), 128u);
  ls.ap[1] = isa::SbufAp(0, 128, 0, kFp8, {{2, 128}, {128, 1}});
  ls.flags = isa::kFlagDoubleRow;
  EXPECT_EQ(Cycles(ls), 32u);
  ls = Make(Opcode::kLoadStationary, {}, Sbuf(kBf16, 2));
  EXPECT_EQ(Cycles(ls), 1u);
}
TEST(cost_pe, NcTranspose) {
  EXPECT_EQ(Cycles(Make(Opcode::kNcTranspose, Psum(kBf16, 128, 32), Sbuf(kBf16, 32, 128))), 128u);
  EXPECT_EQ(Cycles(Make(Opcode::kNcTranspose, Psum(kBf16, 32, 128), Sbuf(kBf16, 128, 32))), 64u);
  EXPECT_EQ(Cycles(Make(Opcode::kNcTranspose, Psum(kBf16, 16, 16), Sbuf(kBf16, 16, 16))), 16u);
}

// ---- ACT -----------------------------------------------------------------------------------
TEST(cost_act, ActivationIsMaxMinIiN) {
  EXPECT_EQ(Cycles(Make(Opcode::kActivation, Sbuf(kBf16, 32), Sbuf(kBf16, 32))), 64u);
  Instruction a = Make(Opcode::kActivation, Sbuf(kBf16, 1000), Sbuf(kBf16, 1000));
  EXPECT_EQ(Cycles(a), 1000u);
  a.reduce_cmd = isa::ReduceCmd::kReduce;  // the reduction rides along for free
  EXPECT_EQ(Cycles(a), 1000u);
  EXPECT_EQ(Cycles(a, kTrn3), 1000u);  // activation itself is not widened on NC-v4
  EXPECT_EQ(EstimateCost(a, kTrn2).clock_hz, 1'200'000'000u);
  EXPECT_EQ(EstimateCost(a, kTrn2).dependent_overhead_cycles, 0u);
}
TEST(cost_act, ReduceAndReadout) {
  Instruction ar = Make(Opcode::kActivationReduce, Sbuf(kBf16, 512), Sbuf(kBf16, 512));
  ar.ap[4] = Sbuf(kFp32, 1);
  EXPECT_EQ(Cycles(ar), 576u);  // max(64, 512) + MIN_II
  EXPECT_EQ(Cycles(Make(Opcode::kReadAccumulator, Sbuf(kFp32, 1))), 64u);
}
TEST(cost_act, CopyIsTwiceAsFastOnTrn3For16Bit) {
  const Instruction c = Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024));
  EXPECT_EQ(Cycles(c, Engine::kAct, kTrn2), 1024u);
  EXPECT_EQ(Cycles(c, Engine::kAct, kTrn3), 512u);
  const Instruction f = Make(Opcode::kTensorCopy, Sbuf(kFp32, 1024), Sbuf(kFp32, 1024));
  EXPECT_EQ(Cycles(f, Engine::kAct, kTrn3), 1024u);
}

// ---- DVE -----------------------------------------------------------------------------------
TEST(cost_dve, PerfModeTensorCopy) {
  const Instruction fast = Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024));
  EXPECT_EQ(Cycles(fast, Engine::kDve), 256u);  // 4x: SBUF, bf16, contiguous
  EXPECT_EQ(EstimateCost(fast, Engine::kDve, kTrn2).dependent_overhead_cycles, 100u);
  const Instruction psum = Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Psum(kBf16, 1024));
  EXPECT_EQ(Cycles(psum, Engine::kDve), 512u);  // 2x: one side in PSUM
  const Instruction strided =
      Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024, 128, 2));
  EXPECT_EQ(Cycles(strided, Engine::kDve), 512u);  // 2x: not contiguous (4 B stride, no penalty)
  const Instruction wide = Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024, 128, 16));
  EXPECT_EQ(Cycles(wide, Engine::kDve), 1024u);  // 2x perf, then 32 B stride halves it
  const Instruction fp32 = Make(Opcode::kTensorCopy, Sbuf(kFp32, 1024), Sbuf(kFp32, 1024));
  EXPECT_EQ(Cycles(fp32, Engine::kDve), 512u);  // capped by the 256-element fp32 width
  const Instruction tiny = Make(Opcode::kTensorScalar, Sbuf(kBf16, 32), Sbuf(kBf16, 32));
  EXPECT_EQ(Cycles(tiny, Engine::kDve), 64u);  // MIN_II
}
TEST(cost_dve, ClockConversionDiffersBetweenGenerations) {
  const Instruction c = Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024));
  EXPECT_EQ(EstimateCost(c, Engine::kDve, kTrn2).OccupancyPs(), 266'667u);  // 256 / 0.96 GHz
  EXPECT_EQ(EstimateCost(c, Engine::kDve, kTrn3).OccupancyPs(), 213'334u);  // 256 / 1.2 GHz
}
TEST(cost_act, LargeInnermostStrideHalvesBandwidth) {
  // fp32 stride 4 elements = 16 B: no penalty; stride 8 = 32 B > 16 B: twice the cycles.
  EXPECT_EQ(Cycles(Make(Opcode::kActivation, Sbuf(kFp32, 512), Sbuf(kFp32, 512, 128, 4))), 512u);
  EXPECT_EQ(Cycles(Make(Opcode::kActivation, Sbuf(kFp32, 512), Sbuf(kFp32, 512, 128, 8))), 1024u);
}
TEST(cost_dve, Fp8WidthDiffersBetweenGenerations) {
  const Instruction c = Make(Opcode::kTensorScalar, Sbuf(kFp8, 1024), Sbuf(kFp8, 1024));
  EXPECT_EQ(Cycles(c, Engine::kDve, kTrn2), 512u);  // fp8 is "other": 256 wide
  EXPECT_EQ(Cycles(c, Engine::kDve, kTrn3), 256u);  // 512 BF16/FP16/FP8
  EXPECT_EQ(EstimateCost(c, Engine::kDve, kTrn2).clock_hz, 960'000'000u);
  EXPECT_EQ(EstimateCost(c, Engine::kDve, kTrn3).clock_hz, 1'200'000'000u);
}
TEST(cost_dve, DynamicCopyHasLongMinIi) {
  Instruction c = Make(Opcode::kTensorCopy, Sbuf(kBf16, 64), Sbuf(kBf16, 64));
  c.ap[1].offset_reg = 3;
  c.ap[1].reg_stride_bytes = 2;
  EXPECT_EQ(Cycles(c, Engine::kDve), 600u);
}
TEST(cost_dve, TensorTensor) {
  Instruction t =
      Make(Opcode::kTensorTensor, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024), Sbuf(kBf16, 1024));
  t.op0 = AluOp::kAdd;
  EXPECT_EQ(Cycles(t), 512u);  // N (bf16 SBUF add), then the 2x perf mode
  t.op0 = AluOp::kDivide;
  EXPECT_EQ(Cycles(t), 1024u);  // 2N, perf mode still applies
  t = Make(Opcode::kTensorTensor, Sbuf(kFp32, 1024), Sbuf(kFp32, 1024), Sbuf(kFp32, 1024));
  t.op0 = AluOp::kAdd;
  EXPECT_EQ(Cycles(t), 2048u);  // 2N
  t.ap[2] = Psum(kFp32, 1024);
  EXPECT_EQ(Cycles(t), 1024u);  // PSUM + SBUF: N
  t = Make(Opcode::kTensorTensor, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024), Sbuf(kBf16, 1024));
  t.op0 = AluOp::kAdd;
  EXPECT_EQ(Cycles(t, Engine::kPool), 1024u);  // no perf mode on GpSimd
}
TEST(cost_dve, TensorReduce) {
  Instruction r = Make(Opcode::kTensorReduce, Sbuf(kBf16, 1), Sbuf(kBf16, 1024));
  r.op0 = AluOp::kAdd;
  EXPECT_EQ(Cycles(r), 512u);
  r.op0 = AluOp::kMaximum;
  EXPECT_EQ(Cycles(r), 512u);
  r.op0 = AluOp::kMinimum;
  EXPECT_EQ(Cycles(r), 1024u);
  r = Make(Opcode::kTensorReduce, Sbuf(kFp32, 1), Sbuf(kFp32, 1024));
  r.op0 = AluOp::kAdd;
  EXPECT_EQ(Cycles(r), 1024u);
  Instruction tsr = Make(Opcode::kTensorScalarReduce, Sbuf(kFp32, 256), Sbuf(kFp32, 256));
  tsr.ap[3] = Sbuf(kFp32, 1);
  EXPECT_EQ(Cycles(tsr), 320u);  // max(64, 256) + MIN_II
}
TEST(cost_dve, ScalarTensorTensorAndScan) {
  Instruction s =
      Make(Opcode::kScalarTensorTensor, Sbuf(kBf16, 512), Sbuf(kBf16, 512), {}, Sbuf(kBf16, 512));
  s.op0 = AluOp::kSubtract;
  s.op1 = AluOp::kMultiply;
  EXPECT_EQ(Cycles(s), 512u);
  s.op1 = AluOp::kAdd;
  EXPECT_EQ(Cycles(s), 1024u);
  const Instruction scan =
      Make(Opcode::kTensorTensorScan, Sbuf(kFp32, 512), Sbuf(kFp32, 512), Sbuf(kFp32, 512));
  EXPECT_EQ(Cycles(scan), 1024u);
  Instruction p = Make(Opcode::kTensorCopyPredicated, Sbuf(kFp32, 512), Sbuf(kFp32, 512),
                       Sbuf(Dtype::kUint8, 512));
  EXPECT_EQ(Cycles(p), 1024u);
  p.ap[1] = Psum(kFp32, 512);
  EXPECT_EQ(Cycles(p), 512u);
}
TEST(cost_dve, MemsetBnAndSpecials) {
  Instruction m = Make(Opcode::kMemset, Sbuf(kBf16, 1024));
  EXPECT_EQ(Cycles(m), 512u);  // zero in bf16: N/2
  m.set_imm_f32(0, 1.0f);
  EXPECT_EQ(Cycles(m), 1024u);
  EXPECT_EQ(Cycles(Make(Opcode::kBnStats, Sbuf(kFp32, 6), Sbuf(kFp32, 512))), 512u);
  EXPECT_EQ(Cycles(Make(Opcode::kBnAggr, Sbuf(kFp32, 2), Sbuf(kFp32, 6))), 64u);
  EXPECT_EQ(Cycles(Make(Opcode::kBnAggr, Sbuf(kFp32, 2), Sbuf(kFp32, 60))), 260u);  // 13*20
  EXPECT_EQ(Cycles(Make(Opcode::kReciprocal, Sbuf(kFp32, 100), Sbuf(kFp32, 100))), 800u);
  EXPECT_EQ(Cycles(Make(Opcode::kMax8, Sbuf(kFp32, 8), Sbuf(kFp32, 16384))), 16384u);
  EXPECT_EQ(Cycles(Make(Opcode::kTranspose, Sbuf(kFp32, 32, 32), Sbuf(kFp32, 32, 32))), 64u);
}

// ---- POOL ----------------------------------------------------------------------------------
TEST(cost_pool, GpSimdStartPlusN) {
  const Instruction iota =
      Make(Opcode::kIota, Sbuf(Dtype::kInt32, 128), isa::PatternAp(0, 128, 1, {{128, 1}}));
  EXPECT_EQ(Cycles(iota, Engine::kPool), 278u);  // 150 + 128
  Instruction sel = Make(Opcode::kAffineSelect, Sbuf(kFp32, 64),
                         isa::PatternAp(0, 128, 1, {{64, 1}}), Sbuf(kFp32, 64));
  EXPECT_EQ(Cycles(sel), 214u);
  EXPECT_EQ(EstimateCost(sel, kTrn2).engine, Engine::kPool);
  EXPECT_EQ(Cycles(Make(Opcode::kTensorCopy, Sbuf(kBf16, 1024), Sbuf(kBf16, 1024)), Engine::kPool),
            1024u);
}
TEST(cost_pool, LocalGatherFormula) {
  // e = 1, fp32: C = ((28 + 4) / 4) / min(4 / 4, 1) = 8; 16 x 64 indices -> 1024 / 8 = 128.
  Instruction g = Make(Opcode::kLocalGather, Sbuf(kFp32, 64, 16), Sbuf(kFp32, 64, 16),
                       Sbuf(Dtype::kUint16, 64, 16));
  g.count = 1;
  EXPECT_EQ(Cycles(g), 278u);
  // e = 4, bf16: C = (44 / 16) / min(2, 4) = 1.375; 256 indices x 4 / 1.375 = 744.7 -> 745.
  g = Make(Opcode::kLocalGather, Sbuf(kBf16, 64, 16), Sbuf(kBf16, 64, 16),
           Sbuf(Dtype::kUint16, 16, 16));
  g.count = 4;
  EXPECT_EQ(Cycles(g), 895u);
}

// ---- control, sync, dma --------------------------------------------------------------------
TEST(cost_control, FixedCosts) {
  EXPECT_EQ(Cycles(Make(Opcode::kNop)), 4u);
  EXPECT_EQ(Cycles(Make(Opcode::kSemWait)), 4u);
  EXPECT_EQ(Cycles(Make(Opcode::kBranch), Engine::kPe), 4u);
  // dma_copy with pre-built descriptors (no DGE flag): dma_static_issue 50 ns at 1.2 GHz.
  Instruction copy = Make(Opcode::kDmaCopy);
  const InstructionCost d = EstimateCost(copy, kTrn2);
  EXPECT_EQ(d.engine, Engine::kSp);
  EXPECT_EQ(d.cycles, 60u);
  EXPECT_EQ(d.OccupancyPs(), 50'000u);
  EXPECT_EQ(d.access_latency_cycles, 0u);
  // hwdge (C-3): 600 ns = 720 cycles at 1.2 GHz on SP or ACT.
  copy.flags = isa::kFlagHwdge;
  EXPECT_EQ(Cycles(copy, Engine::kAct), 720u);
  EXPECT_EQ(EstimateCost(copy, Engine::kSp, kTrn2).OccupancyPs(), 600'000u);
  // swdge on POOL: GPSIMD_START (150 cycles = 125 ns) + 16 engines x 30 ns = 605 ns = 726
  // cycles at 1.2 GHz.
  copy.flags = isa::kFlagSwdge;
  EXPECT_EQ(Cycles(copy, Engine::kPool), 726u);
  // dma_trigger (NEFF descriptors, pre-built): 50 ns at 0.96 GHz = 48 cycles.
  EXPECT_EQ(Cycles(Make(Opcode::kDmaTrigger), Engine::kDve), 48u);
  // collective / sendrecv / debug_print keep the DGE figure: 600 ns.
  EXPECT_EQ(DmaIssuePs(Make(Opcode::kSendRecv), kTrn2), 600'000u);
}

}  // namespace
}  // namespace trnsim::simulator::cost
