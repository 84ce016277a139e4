// The cost tables (spec sanity, trn2 vs trn3), every opcode on every engine, and the DMA model.
#include <gtest/gtest.h>

#include <cmath>

#include "simulator/cost/cost_model.h"
#include "simulator/isa/opcode.h"
#include "simulator/spec/chip_spec.h"
#include "simulator/spec/cost_spec.h"
#include "tests/simulator/cost/cost_test_util.h"

namespace trnsim::simulator::cost {
namespace {

using isa::Engine;
using isa::Memory;

const CostSpec kTrn2 = Trainium2CostSpec();
const CostSpec kTrn3 = Trainium3CostSpec();

// ---- spec tables ---------------------------------------------------------------------------
TEST(cost_spec, PePeakMatchesPublishedBf16PerCore) {
  for (const CostSpec* s : {&kTrn2, &kTrn3}) {
    // 128 x 128 MACs x 2 FLOP x 2.4 GHz = 78.6 TFLOPS vs the published 79 [NKI-ARCH-TRN2/3].
    EXPECT_NEAR(s->PePeakBf16Flops() / 79e12, 1.0, 0.01);
    EXPECT_NEAR(s->PePeakBf16Flops() * s->pe_double_row_factor / 158e12, 1.0, 0.01);  // fp8
    EXPECT_NEAR(s->PePeakBf16Flops() / s->pe_fp32_slowdown / 20e12, 1.0, 0.02);       // 19.7 vs 20
  }
}
TEST(cost_spec, ChipSpecsCarryTheirCostTables) {
  EXPECT_EQ(Trainium2Spec().cost.dve_clock_hz, 960'000'000u);
  EXPECT_EQ(Trainium3Spec().cost.dve_clock_hz, 1'200'000'000u);
  EXPECT_EQ(Trainium2Spec().cost.pe_clock_hz, kTrn2.pe_clock_hz);
  EXPECT_EQ(Trainium2Spec().cost.dma_engines_per_core, Trainium2Spec().dma_engines_per_core);
  EXPECT_EQ(Trainium2Spec().cost.cores_sharing_hbm_bandwidth, Trainium2Spec().physical_cores);
}
TEST(cost_spec, Trn3IsTrn2PlusOverrides) {
  EXPECT_EQ(kTrn3.pe_clock_hz, kTrn2.pe_clock_hz);
  EXPECT_EQ(kTrn3.act_clock_hz, kTrn2.act_clock_hz);
  EXPECT_EQ(kTrn3.min_ii_cycles, kTrn2.min_ii_cycles);
  EXPECT_EQ(kTrn3.dve_elems_per_cycle_16bit, kTrn2.dve_elems_per_cycle_16bit);
  EXPECT_GT(kTrn3.dve_clock_hz, kTrn2.dve_clock_hz);
  EXPECT_EQ(kTrn3.act_elems_per_cycle_16bit, 2 * kTrn2.act_elems_per_cycle_16bit);
  EXPECT_GT(kTrn3.hbm_bytes_per_s_per_chip, kTrn2.hbm_bytes_per_s_per_chip);
  EXPECT_GT(kTrn3.dma_engine_bytes_per_s, kTrn2.dma_engine_bytes_per_s);
}
TEST(cost_spec, DmaAndHbmAggregatesMatchChipPages) {
  // 16 engines x 27.2 GB/s x 8 cores = 3.48 TB/s ~ [TRN2-CHIP] 3.5 TB/s; trn3 4.92 ~ 4.9.
  EXPECT_NEAR(16.0 * 8 * kTrn2.dma_engine_bytes_per_s / 3.5e12, 1.0, 0.01);
  EXPECT_NEAR(16.0 * 8 * kTrn3.dma_engine_bytes_per_s / 4.9e12, 1.0, 0.01);
  EXPECT_EQ(kTrn2.HbmBytesPerSPerCore(), 362'500'000'000u);  // 2.9 TB/s / 8
}

// ---- every opcode ----------------------------------------------------------------------------
// A plausible operand for a slot: the slot's first allowed memory, bf16 (fp32 in PSUM).
isa::AccessPattern OperandFor(const isa::OperandSpec& spec) {
  if (spec.memories & isa::MemoryBit(Memory::kPattern)) return isa::PatternAp(0, 128, 1, {{64, 1}});
  if (spec.memories & isa::MemoryBit(Memory::kSbuf))
    return isa::SbufAp(0, 128, 0, isa::Dtype::kBfloat16, {{64, 1}});
  if (spec.memories & isa::MemoryBit(Memory::kPsum))
    return isa::PsumAp(0, 128, 0, isa::Dtype::kFloat32, {{64, 1}});
  return isa::HbmAp(1, 0, isa::Dtype::kBfloat16, 128, 64, {{64, 1}});
}

TEST(cost_table, EveryOpcodeOnEveryEngineHasAPositiveCost) {
  int checked = 0;
  for (const isa::OpcodeInfo& info : isa::AllOpcodes()) {
    isa::Instruction inst;
    inst.opcode = info.opcode;
    inst.count = 1;
    for (int i = 0; i < isa::kMaxOperands; ++i)
      if (info.operands[i].presence != isa::Presence::kNone)
        inst.ap[i] = OperandFor(info.operands[i]);
    EXPECT_NE(info.engines & isa::EngineBit(HomeEngine(info.opcode)), 0) << info.mnemonic;
    for (int e = 0; e < isa::kEngineCount; ++e) {
      const Engine engine = static_cast<Engine>(e);
      if ((info.engines & isa::EngineBit(engine)) == 0) continue;
      for (const CostSpec* spec : {&kTrn2, &kTrn3}) {
        const InstructionCost c = EstimateCost(inst, engine, *spec);
        EXPECT_GT(c.cycles, 0u) << info.mnemonic << " on " << isa::EngineName(engine);
        EXPECT_EQ(c.clock_hz, EngineClockHz(engine, *spec)) << info.mnemonic;
        EXPECT_GT(c.OccupancyPs(), 0u) << info.mnemonic;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 2 * static_cast<int>(isa::AllOpcodes().size()));
}

}  // namespace
}  // namespace trnsim::simulator::cost
