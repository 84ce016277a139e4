// The cost tables (spec sanity, trn2 vs trn3), every opcode on every engine, and the DMA model.
#include <gtest/gtest.h>

#include <cmath>

#include "simulator/cost/cost_model.h"
#include "simulator/cost/dma_cost.h"
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

// ---- DMA ---------------------------------------------------------------------------------------
TEST(cost_dma, HandComputedTransfer) {
  // 1 MiB in 4 KiB chunks over 16 engines and 16 descriptors, on chip: per engine 64 KiB + 16
  // chunks x 256 B overhead = 69,632 B at 27.2 GB/s = 2,560 ns; + 1 descriptor x 100 ns; + the
  // 1,300 ns start latency.
  DmaTransfer t{.bytes = 1 << 20, .chunk_bytes = 4096, .descriptors = 16, .engines = 16};
  EXPECT_EQ(DmaCost(t, kTrn2), 3'960'000u);
  // From HBM: the core's HBM share (362.5 GB/s) binds: 1 MiB / 362.5 GB/s = 2,892,623.45 ps.
  t.hbm_sides = 1;
  EXPECT_EQ(DmaCost(t, kTrn2), 1'300'000u + 2'892'624u);
}
TEST(cost_dma, MonotonicInBytes) {
  DurationPs previous = 0;
  for (uint64_t bytes = 0; bytes <= (4u << 20); bytes += 12'345) {
    const DurationPs ps = DmaCost({.bytes = bytes, .chunk_bytes = 2048, .hbm_sides = 1}, kTrn2);
    EXPECT_GE(ps, previous) << bytes;
    previous = ps;
  }
  EXPECT_EQ(DmaCost({.bytes = 0}, kTrn2),
            kTrn2.dma_start_latency_ps + kTrn2.dma_descriptor_overhead_ps);
}
TEST(cost_dma, SmallChunksArePenalised) {
  EXPECT_DOUBLE_EQ(DmaChunkEfficiency(256, kTrn2), 0.5);
  EXPECT_GT(DmaChunkEfficiency(2048, kTrn2), 0.88);
  EXPECT_GT(DmaChunkEfficiency(4096, kTrn2), 0.94);
  EXPECT_LT(DmaChunkEfficiency(64, kTrn2), 0.25);
  DurationPs previous = ~DurationPs{0};
  for (uint64_t chunk : {32u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u, 65536u}) {
    const DurationPs ps = DmaCost({.bytes = 8 << 20, .chunk_bytes = chunk}, kTrn2);
    EXPECT_LT(ps, previous) << chunk;
    previous = ps;
  }
}
TEST(cost_dma, LargeHbmCopyReachesTheCoreShare) {
  const uint64_t bytes = 64ull << 20;
  const DurationPs ps =
      DmaCost({.bytes = bytes, .chunk_bytes = 65536, .descriptors = 1024, .hbm_sides = 1}, kTrn2);
  const double rate = static_cast<double>(bytes) * 1e12 / static_cast<double>(ps);
  EXPECT_GT(rate, 0.95 * 362.5e9);
  EXPECT_LE(rate, 362.5e9);
}
TEST(cost_dma, FewerEnginesAreSlowerAndTrn3IsFaster) {
  const DmaTransfer all{.bytes = 1 << 20, .chunk_bytes = 4096, .descriptors = 16};
  DmaTransfer one = all;
  one.engines = 1;
  EXPECT_GT(DmaCost(one, kTrn2), DmaCost(all, kTrn2));
  EXPECT_LT(DmaCost(all, kTrn3), DmaCost(all, kTrn2));
  // A full 64 KiB descriptor on one engine: ~2.4 us at 27.2 GB/s (driver note: ~2 us at 32 GB/s).
  const DurationPs d = DmaCost({.bytes = 65536, .engines = 1}, kTrn2) - kTrn2.dma_start_latency_ps;
  EXPECT_GT(d, 2'000'000u);
  EXPECT_LT(d, 2'600'000u);
}

}  // namespace
}  // namespace trnsim::simulator::cost
