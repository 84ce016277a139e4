// The DMA engines as engines (docs/chip-model.md §3, docs/calibration.md §3): how a transfer
// is split over a core's 16 engines, what each engine's part costs, per-queue order, sharing an
// engine between queues, the HBM stack shared by two cores — driven on the DmaFabric directly.
// Expected figures are derived in the comments from the trn2 parameters (cost_specs.cc):
//   R = 23.34 GB/s (HBM read), W = 27.2 GB/s (wire), o = 2,353 ps per element,
//   semaphore 4 B / W = 148 ps (rounded up), dispatch 16,000 ps; engine 0 starts
//   L = 1,300,000 - 15 x 16,000 - (2,353 + 148) = 1,057,499 ps after the trigger, so a transfer
//   without payload lands 1.3 us after it (C-4).
#include "simulator/core/dma_fabric.h"

#include <gtest/gtest.h>

#include <vector>

#include "simulator/core/dma_split.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();
constexpr DurationPs kL = 1'057'499, kDispatch = 16'000, kO = 2'353, kSem = 148;

isa::AccessPattern Sbuf(int partitions, int free_elems, isa::Dtype dtype, int start = 0) {
  isa::AccessPattern ap;
  ap.memory = isa::Memory::kSbuf;
  ap.dtype = dtype;
  ap.num_dims = 1;
  ap.start_partition = uint16_t(start);
  ap.num_partitions = uint16_t(partitions);
  ap.sizes[0] = uint16_t(free_elems);
  ap.strides[0] = 1;
  return ap;
}

isa::AccessPattern Hbm(int rows, int free_elems, isa::Dtype dtype) {
  isa::AccessPattern ap;
  ap.memory = isa::Memory::kHbm;
  ap.dtype = dtype;
  ap.num_dims = 1;
  ap.num_partitions = uint16_t(rows);
  ap.partition_stride = free_elems;
  ap.sizes[0] = uint16_t(free_elems);
  ap.strides[0] = 1;
  return ap;
}

DmaSplit Copy(const isa::AccessPattern& dst, const isa::AccessPattern& src) {
  return SplitCopy(dst, src, 16, 8);
}

struct Fabric {
  explicit Fabric(std::vector<int> stacks = {0})
      : fabric(scheduler, kChip, std::move(stacks), EventPriority(100)) {}
  // Submits now; the landing goes to `out`.
  void Submit(DmaSplit split, int queue, DmaLanding* out, TimePs* landed, int core = 0) {
    DmaRequest r;
    r.core = core;
    r.queue = queue;
    r.split = std::move(split);
    r.dispatch_interval_ps = kChip.cost.dma_engine_dispatch_ps;
    r.on_land = [this, out, landed](const DmaLanding& l) {
      *out = l;
      *landed = scheduler.Now();
    };
    fabric.Submit(std::move(r));
  }
  void Run() { scheduler.RunUntilIdle(10'000'000); }
  Scheduler scheduler;
  DmaFabric fabric;
};

TEST(dma_split, FourPartitionsGoToOneEngine) {
  // C-1: A[4, 4096] bf16 -> SBUF partitions 0..3: engine 0 (partitions 0..7) takes 4 rows of
  // 8 KiB; the other 15 engines carry nothing.
  const DmaSplit s =
      Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16), Hbm(4, 4096, isa::Dtype::kBfloat16));
  ASSERT_EQ(s.engines.size(), 16u);
  EXPECT_EQ(s.engines[0].bytes, 32768u);
  EXPECT_EQ(s.engines[0].elements, 4u);
  for (int k = 1; k < 16; ++k) EXPECT_EQ(s.engines[size_t(k)].bytes, 0u) << k;
  EXPECT_TRUE(s.hbm_read);
  EXPECT_EQ(s.hbm_sides, 1);
  // Partitions 8..11 belong to engine 1.
  const DmaSplit t =
      Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16, 8), Hbm(4, 4096, isa::Dtype::kBfloat16));
  EXPECT_EQ(t.engines[0].bytes, 0u);
  EXPECT_EQ(t.engines[1].bytes, 32768u);
}

TEST(dma_split, FullPartitionsUseEveryEngineAndHbmToHbmIsEven) {
  // [128, 128] bf16: each engine gets 8 rows of 256 B (DMA overview, Example 2: 2 KiB each).
  const DmaSplit s =
      Copy(Sbuf(128, 128, isa::Dtype::kBfloat16), Hbm(128, 128, isa::Dtype::kBfloat16));
  for (const DmaEngineShare& e : s.engines) {
    EXPECT_EQ(e.bytes, 2048u);
    EXPECT_EQ(e.elements, 8u);
  }
  // HBM -> HBM, 64 KiB + 3 B in one run: engines 0..2 take 4097 B, the others 4096 B.
  const DmaSplit h = SplitEvenly(65539, 0, 16);
  EXPECT_EQ(h.engines[0].bytes, 4097u);
  EXPECT_EQ(h.engines[3].bytes, 4096u);
  EXPECT_EQ(h.engines[15].elements, 1u);
  uint64_t total = 0;
  for (const DmaEngineShare& e : h.engines) total += e.bytes;
  EXPECT_EQ(total, 65539u);
}

TEST(dma_fabric, C1OneEngineCarriesTheDataAndFifteenWriteTheSemaphore) {
  Fabric f;
  DmaLanding l;
  TimePs landed = 0;
  f.Submit(Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16), Hbm(4, 4096, isa::Dtype::kBfloat16)), 0, &l,
           &landed);
  f.Run();
  ASSERT_EQ(l.parts.size(), 16u);
  // Engine 0: 32768 B / R = ceil(1,403,941.7) = 1,403,942 ps; 5 elements (4 rows + the
  // semaphore) x o = 11,765 ps; the semaphore's 4 B at W = 148 ps: 1,415,855 ps — C-1's
  // measured 1,416 ns.
  EXPECT_EQ(l.parts[0].bytes, 32768u);
  EXPECT_EQ(l.parts[0].start_ps, kL);
  EXPECT_EQ(l.parts[0].end_ps - l.parts[0].start_ps, 1'415'855u);
  for (int k = 1; k < 16; ++k) {  // engine k: dispatched k x 16 ns later; o + 148 ps
    EXPECT_EQ(l.parts[size_t(k)].bytes, 0u);
    EXPECT_EQ(l.parts[size_t(k)].start_ps, kL + uint64_t(k) * kDispatch) << k;
    EXPECT_EQ(l.parts[size_t(k)].end_ps - l.parts[size_t(k)].start_ps, kO + kSem) << k;
  }
  EXPECT_EQ(landed, kL + 1'415'855u);
  EXPECT_EQ(l.start_ps, kL);
}

TEST(dma_fabric, C2StoreRunsAtTheWireRate) {
  // SBUF -> HBM, the same 32 KiB: 32768 B / W = ceil(1,204,705.9) = 1,204,706 ps + 11,765 +
  // 148 = 1,216,619 ps (C-2's store ≈1.2 µs).
  Fabric f;
  DmaLanding l;
  TimePs landed = 0;
  f.Submit(Copy(Hbm(4, 4096, isa::Dtype::kBfloat16), Sbuf(4, 4096, isa::Dtype::kBfloat16)), 0, &l,
           &landed);
  f.Run();
  EXPECT_EQ(l.parts[0].end_ps - l.parts[0].start_ps, 1'216'619u);
}

TEST(dma_fabric, C4TinyTransferLandsAfterOnePointThreeMicroseconds) {
  // One 4-byte element on engine 0; engine 15 starts L + 15 x 16 ns and takes o + 148 ps:
  // 1,057,499 + 240,000 + 2,501 = 1,300,000 ps. Engine 0's part: 2 elements, 4 B / R = 172 ps
  // + 2 x o + 148 = 5,026 ps, done long before.
  Fabric f;
  DmaLanding l;
  TimePs landed = 0;
  f.Submit(Copy(Sbuf(1, 2, isa::Dtype::kBfloat16), Hbm(1, 2, isa::Dtype::kBfloat16)), 0, &l,
           &landed);
  f.Run();
  EXPECT_EQ(landed, 1'300'000u);
  EXPECT_EQ(l.parts[0].end_ps - l.parts[0].start_ps, 5'026u);
}

TEST(dma_fabric, EveryEngineServesItsRowsOfAFullTransfer) {
  // [128, 128] bf16: every engine 8 x 256 B = 2048 B / R = ceil(87,746.4) = 87,747 ps + 9 x o
  // (21,177) + 148 = 109,072 ps; the transfer lands when engine 15 (dispatched 240 ns late) ends.
  Fabric f;
  DmaLanding l;
  TimePs landed = 0;
  f.Submit(Copy(Sbuf(128, 128, isa::Dtype::kBfloat16), Hbm(128, 128, isa::Dtype::kBfloat16)), 0, &l,
           &landed);
  f.Run();
  for (const DmaPartRecord& p : l.parts) EXPECT_EQ(p.end_ps - p.start_ps, 109'072u);
  EXPECT_EQ(landed, kL + 15 * kDispatch + 109'072u);
  EXPECT_EQ(f.fabric.engine_busy_ps(0, 3), 109'072u);
}

TEST(dma_fabric, OneQueueIsInOrderPerEngine) {
  // Two C-1 loads on queue 0: engine 0 serves the second only after the first (1,415,855 ps
  // each, back to back from L); both were ready at L.
  Fabric f;
  DmaLanding a, b;
  TimePs la = 0, lb = 0;
  const DmaSplit s =
      Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16), Hbm(4, 4096, isa::Dtype::kBfloat16));
  f.Submit(s, 0, &a, &la);
  f.Submit(s, 0, &b, &lb);
  f.Run();
  EXPECT_EQ(la, kL + 1'415'855u);
  EXPECT_EQ(b.parts[0].start_ps, la);
  EXPECT_EQ(lb, kL + 2 * 1'415'855u);
  EXPECT_EQ(f.fabric.counters(0, 0).transfers, 2u);
  EXPECT_EQ(f.fabric.counters(0, 0).bytes, 65536u);
}

TEST(dma_fabric, TwoQueuesShareAnEngineRoundRobin) {
  // The same two loads on queues 0 and 1: engine 0 serves both heads at half speed each, so
  // both end together after 2 x 1,415,855 ps of service (rounding: within 2 ps).
  Fabric f;
  DmaLanding a, b;
  TimePs la = 0, lb = 0;
  const DmaSplit s =
      Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16), Hbm(4, 4096, isa::Dtype::kBfloat16));
  f.Submit(s, 0, &a, &la);
  f.Submit(s, 1, &b, &lb);
  f.Run();
  EXPECT_NEAR(double(la), double(kL + 2 * 1'415'855u), 2.0);
  EXPECT_NEAR(double(lb), double(kL + 2 * 1'415'855u), 2.0);
  EXPECT_EQ(a.parts[0].start_ps, kL);
  EXPECT_EQ(b.parts[0].start_ps, kL);
  // A load on partitions 8..11 (engine 1) on another queue shares no data engine with it: each
  // transfer's data part is slowed only by the other's semaphore write on its engine (2,501 ps
  // of engine time: o + 148 ps).
  Fabric g;
  DmaLanding c, d;
  TimePs lc = 0, ld = 0;
  g.Submit(s, 0, &c, &lc);
  g.Submit(Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16, 8), Hbm(4, 4096, isa::Dtype::kBfloat16)), 1,
           &d, &ld);
  g.Run();
  EXPECT_EQ(lc, kL + 1'415'855u + kO + kSem);
  EXPECT_EQ(ld, kL + kDispatch + 1'415'855u + kO + kSem);
}

TEST(dma_fabric, TwoCoresOnOneStackShareItsBandwidth) {
  // HBM -> HBM, 64 MiB per core in 64 KiB runs, 16 engines each: alone a core's engines read
  // at 16 x 23.34 = 373.4 GB/s and its bytes cross the stack twice (746.9 GB/s > 725): the
  // stack binds even alone, at 725 / 2 = 362.5 GB/s of copy. Two cores on one stack get half
  // of that each; on two stacks each gets it all.
  const uint64_t bytes = 64ull << 20;
  auto rate = [&](std::vector<int> stacks) {
    Fabric f(stacks);
    DmaLanding l0, l1;
    TimePs t0 = 0, t1 = 0;
    DmaSplit s = SplitEvenly(bytes, 65536, 16);
    s.hbm_read = true;
    s.hbm_sides = 2;
    f.Submit(s, 0, &l0, &t0, 0);
    if (stacks.size() > 1) f.Submit(s, 0, &l1, &t1, 1);
    f.Run();
    return double(bytes) * 1e12 / double(t0 - kL - 15 * kDispatch);
  };
  const double alone = rate({0});
  EXPECT_NEAR(alone, 362.5e9, 0.01 * 362.5e9);
  EXPECT_NEAR(rate({0, 0}), alone / 2, 0.01 * alone);
  EXPECT_NEAR(rate({0, 1}), alone, 0.01 * alone);
}

TEST(dma_fabric, Trn3IsFasterPerEngine) {
  // Trn3: R = 33.49 GB/s, o = 1,667 ps: 32768 / 33.49 GB/s = 978,442 ps + 5 x 1,667 + 105
  // (4 B / 38.4 GB/s) = 986,882 ps.
  Scheduler scheduler;
  DmaFabric fabric(scheduler, Trainium3Spec(), {0}, EventPriority(100));
  DmaLanding l;
  DmaRequest r;
  r.split = Copy(Sbuf(4, 4096, isa::Dtype::kBfloat16), Hbm(4, 4096, isa::Dtype::kBfloat16));
  r.on_land = [&](const DmaLanding& x) { l = x; };
  fabric.Submit(std::move(r));
  scheduler.RunUntilIdle(1000);
  EXPECT_EQ(l.parts[0].end_ps - l.parts[0].start_ps, 986'882u);
}

}  // namespace
}  // namespace trnsim::simulator::core
