// Chip spec tables: the Trainium2 numbers the driver and runtime rely on, and Trainium3 as
// Trainium2 plus its documented overrides.
#include "simulator/spec/chip_spec.h"

#include <gtest/gtest.h>

namespace trnsim::simulator {
namespace {

TEST(ChipSpecTest, Trainium2Numbers) {
  const ChipSpec& s = Trainium2Spec();
  EXPECT_EQ(s.name, "Trainium2");
  EXPECT_EQ(s.device_arch, "NDv3");
  EXPECT_EQ(s.core_arch, "NCv3");
  EXPECT_EQ(s.neuroncore_version, "v3");
  EXPECT_EQ(s.physical_cores, 8);
  EXPECT_EQ(s.hbm_stacks, 4);
  EXPECT_EQ(s.hbm_bytes_per_stack, 24 * kGiB);
  EXPECT_EQ(s.hbm_bytes_per_stack, 0x600000000ull);  // V3_HBM_ACTIVE_SIZE
  EXPECT_EQ(s.HbmBytes(), 96 * kGiB);
  EXPECT_EQ(s.CoresPerHbmStack(), 2);
  EXPECT_EQ(s.dma_engines_per_core, 16);
  EXPECT_EQ(s.dma_queues_per_engine, 16);
  EXPECT_EQ(s.neuronlink_ports, 4);
}

TEST(ChipSpecTest, Trainium2HbmBaseAddresses) {
  const ChipSpec& s = Trainium2Spec();
  EXPECT_EQ(s.hbm_base_pa[0], 0x0ull);
  EXPECT_EQ(s.hbm_base_pa[1], 0x4000000000ull);
  EXPECT_EQ(s.hbm_base_pa[2], 0x800000000000ull);
  EXPECT_EQ(s.hbm_base_pa[3], 0x804000000000ull);
}

TEST(ChipSpecTest, HbmWindowsDoNotOverlap) {
  for (const ChipSpec* s : {&Trainium2Spec(), &Trainium3Spec()}) {
    ASSERT_LE(s->hbm_stacks, kMaxHbmStacksPerChip);
    for (int a = 0; a < s->hbm_stacks; ++a) {
      for (int b = a + 1; b < s->hbm_stacks; ++b) {
        uint64_t lo = s->hbm_base_pa[a], hi = s->hbm_base_pa[b];
        EXPECT_LE(lo + s->hbm_bytes_per_stack, hi) << s->name << " stacks " << a << "," << b;
      }
    }
  }
}

TEST(ChipSpecTest, Trainium3OverridesTrainium2) {
  const ChipSpec& t2 = Trainium2Spec();
  const ChipSpec& t3 = Trainium3Spec();
  EXPECT_EQ(t3.name, "Trainium3");
  EXPECT_EQ(t3.core_arch, "NCv4");
  EXPECT_EQ(t3.hbm_bytes_per_stack, 36 * kGiB);
  EXPECT_EQ(t3.HbmBytes(), 144 * kGiB);
  // Inherited unchanged.
  EXPECT_EQ(t3.physical_cores, t2.physical_cores);
  EXPECT_EQ(t3.hbm_stacks, t2.hbm_stacks);
  EXPECT_EQ(t3.hbm_base_pa, t2.hbm_base_pa);
  EXPECT_EQ(t3.dma_engines_per_core, t2.dma_engines_per_core);
  EXPECT_EQ(t3.dma_queues_per_engine, t2.dma_queues_per_engine);
  EXPECT_EQ(t3.device_revision, t2.device_revision);
}

TEST(ChipSpecTest, NeuronLinkAndCcFiguresAreConsistent) {
  for (const ChipSpec* s : {&Trainium2Spec(), &Trainium3Spec()}) {
    SCOPED_TRACE(s->name);
    // A port's one-way figure is the chip figure over every port and both directions.
    EXPECT_EQ(s->neuronlink_bytes_per_s_per_direction * 2 * uint64_t(s->neuronlink_ports),
              s->neuronlink_bytes_per_s_per_chip);
    EXPECT_EQ(s->cc_onchip_bytes_per_s, s->cost.hbm_bytes_per_s_per_chip / 2);
    EXPECT_EQ(s->cc_onchip_step_latency_ps, s->cost.dma_start_latency_ps);
    EXPECT_GE(s->neuronlink_hop_latency_ps, 1'000'000u);  // [INTRA] 1-2 us per hop
    EXPECT_LE(s->neuronlink_hop_latency_ps, 2'000'000u);
  }
  EXPECT_EQ(Trainium2Spec().neuronlink_bytes_per_s_per_chip, 1'280'000'000'000u);
  EXPECT_EQ(Trainium3Spec().neuronlink_bytes_per_s_per_chip, 2'560'000'000'000u);
}

TEST(ChipSpecTest, SpecsAreSingletons) {
  EXPECT_EQ(&Trainium2Spec(), &Trainium2Spec());
  EXPECT_EQ(&Trainium3Spec(), &Trainium3Spec());
  EXPECT_NE(&Trainium2Spec(), &Trainium3Spec());
}

TEST(ChipSpecTest, HbmStackOfCore) {
  const ChipSpec& s = Trainium2Spec();
  const int expected[8] = {0, 0, 1, 1, 2, 2, 3, 3};
  for (int core = 0; core < s.physical_cores; ++core) {
    EXPECT_EQ(s.HbmStackOfCore(core), expected[core]) << "core " << core;
  }
  for (int core = 0; core < Trainium3Spec().physical_cores; ++core) {
    EXPECT_EQ(Trainium3Spec().HbmStackOfCore(core), expected[core]) << "core " << core;
  }
}

TEST(ChipSpecTest, DerivedFiguresFollowFields) {
  ChipSpec s;
  s.physical_cores = 12;
  s.hbm_stacks = 3;
  s.hbm_bytes_per_stack = 5 * kMiB;
  EXPECT_EQ(s.CoresPerHbmStack(), 4);
  EXPECT_EQ(s.HbmBytes(), 15 * kMiB);
  EXPECT_EQ(s.HbmStackOfCore(3), 0);
  EXPECT_EQ(s.HbmStackOfCore(4), 1);
  EXPECT_EQ(s.HbmStackOfCore(11), 2);
}

}  // namespace
}  // namespace trnsim::simulator
