// Clock: exact, drift-free cycle <-> picosecond conversion for the Trainium clocks.
#include "simulator/sched/sim_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace trnsim::simulator {
namespace {

using u128 = unsigned __int128;

static_assert(Clock::FromMhz(2400).EdgePs(12) == 5000, "usable in constant expressions");

// The Trainium clocks: {MHz, cycles, ps} where `cycles` cycles last exactly `ps` picoseconds.
struct ExactPeriod {
  uint64_t mhz;
  uint64_t cycles;
  uint64_t ps;
};
constexpr ExactPeriod kTrainiumClocks[] = {
    {2400, 12, 5000},  // trn2 PE: 416.67 ps
    {1200, 6, 5000},   // trn2 ACT / POOL: 833.33 ps
    {960, 3, 3125},    // trn2 DVE: 1041.67 ps
    {1120, 7, 6250},   // 892.86 ps
    {1400, 7, 5000},   // 714.29 ps
    {2800, 7, 2500},   // 357.14 ps
};

// Checks the ceil rule from its definition: t is the smallest ps with t * hz >= cycle * 10^12.
void ExpectCeilEdge(const Clock& clock, uint64_t cycle) {
  const TimePs t = clock.EdgePs(cycle);
  const u128 exact = static_cast<u128>(cycle) * kPsPerSecond;
  EXPECT_GE(static_cast<u128>(t) * clock.hz(), exact) << clock.hz() << " Hz, cycle " << cycle;
  if (t > 0) {
    EXPECT_LT(static_cast<u128>(t - 1) * clock.hz(), exact) << clock.hz() << " Hz, cycle " << cycle;
  }
}

TEST(sched_Clock, FirstEdgesRoundUp) {
  const Clock pe = Clock::FromMhz(2400);
  EXPECT_EQ(pe.EdgePs(0), 0u);
  EXPECT_EQ(pe.EdgePs(1), 417u);  // 416.67 rounded up
  EXPECT_EQ(pe.EdgePs(2), 834u);  // 833.33 rounded up
  EXPECT_EQ(pe.EdgePs(3), 1250u);
  const Clock dve = Clock::FromMhz(960);
  EXPECT_EQ(dve.EdgePs(1), 1042u);
  EXPECT_EQ(dve.EdgePs(3), 3125u);
  EXPECT_EQ(Clock::FromHz(kPsPerSecond).EdgePs(123), 123u);  // 1 THz: one cycle per ps
  EXPECT_EQ(Clock::FromHz(1).EdgePs(2), 2 * kPsPerSecond);
}

TEST(sched_Clock, NoDriftOverBillionsOfCycles) {
  for (const ExactPeriod& c : kTrainiumClocks) {
    const Clock clock = Clock::FromMhz(c.mhz);
    EXPECT_EQ(clock.hz(), c.mhz * 1'000'000);
    // Every whole period lands exactly, however far out: 10^9 periods is 3..12 * 10^9 cycles.
    for (uint64_t m : {1ull, 1000ull, 999'999'937ull, 1'000'000'000ull, 4'000'000'000ull}) {
      EXPECT_EQ(clock.EdgePs(m * c.cycles), m * c.ps) << c.mhz << " MHz, " << m << " periods";
    }
    // Cycle counts past 10^9 that are not whole periods follow the ceil rule exactly.
    for (uint64_t n : {1'000'000'000ull, 1'000'000'001ull, 1'234'567'891ull, 10'000'000'007ull,
                       1'000'000'000'003ull}) {
      ExpectCeilEdge(clock, n);
      EXPECT_EQ(clock.CyclesToPs(n), clock.EdgePs(n));
      // The edge is the exact time rounded up: at most 1 ps above its floor, for any n.
      const u128 floor_ps = static_cast<u128>(n) * kPsPerSecond / clock.hz();
      EXPECT_LE(static_cast<u128>(clock.EdgePs(n)) - floor_ps, 1u);
    }
  }
}

TEST(sched_Clock, SpansBetweenEdgesTelescope) {
  // Summing 10^6 edge-to-edge spans starting near cycle 10^9 gives the exact endpoint.
  const Clock dve = Clock::FromMhz(960);
  const uint64_t start = 1'000'000'000;
  uint64_t sum_ps = 0;
  for (uint64_t k = start; k < start + 1'000'000; ++k) sum_ps += dve.EdgePs(k + 1) - dve.EdgePs(k);
  EXPECT_EQ(dve.EdgePs(start) + sum_ps, dve.EdgePs(start + 1'000'000));
  // Each span is floor or ceil of the rational period (1041.67 ps).
  const uint64_t span = dve.EdgePs(start + 1) - dve.EdgePs(start);
  EXPECT_TRUE(span == 1041 || span == 1042) << span;
}

TEST(sched_Clock, NextEdgeAlignsToTheClock) {
  const Clock pe = Clock::FromMhz(2400);
  EXPECT_EQ(pe.NextEdgePs(0), 0u);
  EXPECT_EQ(pe.NextEdgePs(1), 417u);
  EXPECT_EQ(pe.NextEdgePs(417), 417u);  // on an edge: stays
  EXPECT_EQ(pe.NextEdgePs(418), 834u);
  EXPECT_EQ(pe.NextEdgePs(1250), 1250u);
  EXPECT_EQ(pe.EdgeAfterPs(1, 2), 1250u);  // starts on edge 1, ends on edge 3
  EXPECT_EQ(pe.EdgeAfterPs(0, 0), 0u);
}

TEST(sched_Clock, EdgeQueriesAgreeOnRandomTimes) {
  std::mt19937_64 rng(42);
  for (const ExactPeriod& c : kTrainiumClocks) {
    const Clock clock = Clock::FromMhz(c.mhz);
    for (int i = 0; i < 20000; ++i) {
      const TimePs now = rng() >> 20;  // up to ~1.7e13 ps (17 s), beyond 10^10 cycles
      const uint64_t k = clock.CycleAtOrAfter(now);
      const TimePs edge = clock.NextEdgePs(now);
      ASSERT_EQ(edge, clock.EdgePs(k));
      ASSERT_GE(edge, now);
      if (k > 0) {
        ASSERT_LT(clock.EdgePs(k - 1), now);
      }
      // CyclesElapsed counts edges <= now.
      const uint64_t done = clock.CyclesElapsed(now);
      ASSERT_LE(clock.EdgePs(done), now);
      ASSERT_GT(clock.EdgePs(done + 1), now);
      ASSERT_EQ(clock.CyclesElapsed(clock.EdgePs(done)), done);
    }
  }
}

TEST(sched_ClockDeathTest, RejectsBadFrequenciesAndOverflow) {
  EXPECT_DEATH(Clock::FromHz(0), "frequency out of range");
  EXPECT_DEATH(Clock::FromHz(kPsPerSecond + 1), "frequency out of range");
  EXPECT_DEATH(Clock::FromHz(1).EdgePs(uint64_t{1} << 62), "overflows");
}

TEST(sched_Time, UnitHelpers) {
  EXPECT_EQ(NanosecondsToPs(3), 3000u);
  EXPECT_EQ(MicrosecondsToPs(2), 2'000'000u);
  EXPECT_GT(kTimeNeverPs, MicrosecondsToPs(1'000'000'000));
}

}  // namespace
}  // namespace trnsim::simulator
