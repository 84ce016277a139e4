// TensorE dynamics (simulator/core/pe_pipeline.h, pe_throttle.h; docs/chip-model.md §2): the
// dI/dt limiter's ramp and re-engagement, fp32 matmuls and weight loads as two passes, the
// array's fill and drain — first on the limiter alone, then through whole programs on the chip
// model. Every expected figure is derived from the trn2 parameters (cost_specs.cc) in the
// comment next to it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/core/execution.h"
#include "simulator/core/pe_throttle.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

constexpr DurationPs kNs = 1000;

// ---- the limiter alone ----------------------------------------------------------------------

// trn2: start 500‰, ramp 3 µs in 8 steps of 375 ns, window 3 µs, engage below 500‰.
CostSpec Trn2Cost() { return Trainium2Spec().cost; }

TEST(PeThrottleTest, TheTrn2ParametersAreC8s) {
  const CostSpec c = Trn2Cost();
  EXPECT_EQ(c.pe_didt_start_limit_permille, 500);
  EXPECT_EQ(c.pe_didt_ramp_ps, 3000 * kNs);
  EXPECT_EQ(c.pe_didt_ramp_steps, 8);
  EXPECT_EQ(c.pe_didt_window_ps, 3000 * kNs);
  EXPECT_EQ(c.pe_didt_engage_permille, 500);
  const CostSpec t3 = Trainium3Spec().cost;  // C-8: "On Trn2 and Trn3"
  EXPECT_EQ(t3.pe_didt_start_limit_permille, 500);
  EXPECT_EQ(t3.pe_didt_ramp_ps, 3000 * kNs);
}

TEST(PeThrottleTest, AColdArrayStartsAtHalfRate) {
  PeThrottle t(Trn2Cost());
  // 100 ns of full-rate work inside the first step (500‰): 200 ns.
  EXPECT_EQ(t.Stream(0, 100 * kNs), 200 * kNs);
  EXPECT_EQ(t.throttled_ps(), 100 * kNs);
  EXPECT_EQ(t.LimitPermilleAt(0), 500u);
  EXPECT_EQ(t.LimitPermilleAt(375 * kNs), 562u);   // 500 + 500 * 1/8, rounded down
  EXPECT_EQ(t.LimitPermilleAt(2999 * kNs), 937u);  // step 7: 500 + 500 * 7/8
  EXPECT_EQ(t.LimitPermilleAt(3000 * kNs), 1000u);
}

TEST(PeThrottleTest, TheLimitRampsToFullOverThreeMicroseconds) {
  PeThrottle t(Trn2Cost());
  // Steps k = 0..7 of 375 ns at 500 + 500k/8 ‰ = 500, 562, 625, 687, 750, 812, 875, 937: the
  // ramp does 375 ns x 5748 / 1000 = 2155.5 ns of work; the rest of 3000 ns of work, 844.5 ns,
  // runs at full rate after it.
  EXPECT_EQ(t.Stream(0, 3000 * kNs), 3000 * kNs + 844'500);
  EXPECT_EQ(t.throttled_ps(), 844'500u);
  // Back to back after the ramp: full rate.
  EXPECT_EQ(t.Stream(3844'500, 1000 * kNs), 4844'500u);
}

TEST(PeThrottleTest, AGapThatLeavesTheWindowUnderHalfUtilisedReEngagesIt) {
  PeThrottle t(Trn2Cost());
  const TimePs end = t.Stream(0, 3000 * kNs);  // 3844.5 ns, ramp done
  // 2 µs later the window [t - 3 µs, t) holds 1 µs of full-rate work: 33% < 50%: engaged, and
  // the next stream starts at 500‰ again.
  const TimePs t2 = end + 2000 * kNs;
  EXPECT_EQ(t.Stream(t2, 100 * kNs), t2 + 200 * kNs);
}

TEST(PeThrottleTest, AShortGapAfterFullRateWorkKeepsFullRate) {
  PeThrottle t(Trn2Cost());
  const TimePs end = t.Stream(0, 3000 * kNs);
  // 1 µs later the window holds 2 µs of full-rate work: 67% >= 50%: still at full rate.
  const TimePs t2 = end + 1000 * kNs;
  EXPECT_EQ(t.Stream(t2, 100 * kNs), t2 + 100 * kNs);
}

TEST(PeThrottleTest, ARampIsNotReCheckedBeforeAWholeWindowHasPassed) {
  PeThrottle t(Trn2Cost());
  EXPECT_EQ(t.Stream(0, 100 * kNs), 200 * kNs);
  // 1.2 µs after the ramp began the window still reaches before it: no re-check, the ramp goes
  // on — step 3 (1.125 .. 1.5 µs) at 687‰: 100 ns of work in ceil(100 000 x 1000 / 687) ps.
  EXPECT_EQ(t.Stream(1200 * kNs, 100 * kNs), 1200 * kNs + (100'000'000 + 686) / 687);
}

TEST(PeThrottleTest, AStartLimitOfOneThousandPermilleDisablesIt) {
  CostSpec c = Trn2Cost();
  c.pe_didt_start_limit_permille = 1000;
  PeThrottle t(c);
  EXPECT_EQ(t.Stream(5, 100 * kNs), 5 + 100 * kNs);
  EXPECT_EQ(t.throttled_ps(), 0u);
}

// ---- whole programs on the chip model -------------------------------------------------------

struct Core {
  explicit Core(const ChipSpec& chip) : state(isa::LimitsFor(chip)) {}
  void Add(const std::string& text) {
    StatusOr<isa::Program> p = isa::ParseProgram(text);
    ASSERT_TRUE(p.ok()) << p.status().message();
    programs.push_back(std::move(*p));
  }
  StatusOr<ExecutionResult> Run(const ChipSpec& chip, ExecutionTrace* trace = nullptr) {
    for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
    run.state = &state;
    run.hbm = &hbm;
    ExecuteOptions o;
    o.trace = trace;
    return Execute(chip, std::span<const CoreRun>(&run, 1), o);
  }
  std::vector<isa::Program> programs;
  reference::CoreState state;
  reference::VectorHbm hbm;
  CoreRun run;
};

// trn2 with the dI/dt limiter off, to see fill, drain and passes alone.
ChipSpec Unthrottled() {
  ChipSpec chip = Trainium2Spec();
  chip.cost.pe_didt_start_limit_permille = 1000;
  return chip;
}

const std::string kLoadBf16 = "load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16";
const std::string kMmBf16 =
    "multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 4096 + "
    "[512 x 1]] bf16 first last";
const std::string kLoadFp32 = "load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] fp32";
const std::string kMmFp32 =
    "multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 4096 + "
    "[512 x 1]] fp32 first last";

DurationPs PeCycles(uint64_t cycles) {
  return Clock::FromHz(Trainium2Spec().cost.pe_clock_hz).CyclesToPs(cycles);
}

TEST(PeDynamicsTest, AnFp32MatmulAndItsWeightLoadAreTwoPassesEach) {
  const ChipSpec chip = Unthrottled();
  Core c(chip);
  c.Add(".engine pe\n" + kLoadFp32 + "\n" + kMmFp32 + "\nnotify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(chip, &trace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The statistics count the program's 3 instructions (the reference interpreter's steps);
  // the trace has an entry per pass: 2 + 2 + notify_end.
  EXPECT_EQ(r->cores[0].engines[int(isa::Engine::kPe)].instructions, 3u);
  EXPECT_EQ(trace.instructions.size(), 5u);
  std::vector<const TraceInstruction*> mm, ls;
  for (const TraceInstruction& t : trace.instructions) {
    if (t.opcode == "multiply_moving") mm.push_back(&t);
    if (t.opcode == "load_stationary") ls.push_back(&t);
  }
  ASSERT_EQ(mm.size(), 2u);
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(mm[0]->pc, mm[1]->pc);
  // The weight load: 128/4 x 4 = 128 cycles, two back-to-back halves of 64.
  EXPECT_EQ(ls[0]->start_ps, 0u);
  EXPECT_EQ(ls[0]->duration_ps, PeCycles(64));
  EXPECT_EQ(ls[1]->start_ps, PeCycles(64));
  // The matmul: 512 x 4 = 2048 cycles, two passes of 1024. The first starts on an idle array
  // (fill, 0 cycles on trn2 — see cost_specs.cc) when the weights have landed; the second
  // streams right after it; each shows its drain (420 cycles) after its stream.
  const CostSpec& s = chip.cost;
  const DurationPs fill = PeCycles(uint64_t(s.pe_fill_cycles));
  const DurationPs drain = PeCycles(uint64_t(s.pe_drain_cycles));
  const TimePs start = PeCycles(128);
  EXPECT_EQ(mm[0]->start_ps, start);
  EXPECT_EQ(mm[0]->duration_ps, fill + PeCycles(1024) + drain);
  EXPECT_EQ(mm[1]->start_ps, start + fill + PeCycles(1024));
  EXPECT_EQ(mm[1]->duration_ps, PeCycles(1024) + drain);
  EXPECT_TRUE(mm[1]->waits.empty());
  // Busy: the load, then the array until the second pass's drain has ended.
  EXPECT_EQ(r->cores[0].engines[int(isa::Engine::kPe)].busy_ps,
            start + fill + 2 * PeCycles(1024) + drain);
  EXPECT_EQ(TraceEngineBusyPs(trace, 0, isa::Engine::kPe),
            r->cores[0].engines[int(isa::Engine::kPe)].busy_ps);
}

TEST(PeDynamicsTest, OnlyAMatmulThatFindsTheArrayIdlePaysTheFill) {
  ChipSpec chip = Unthrottled();
  chip.cost.pe_fill_cycles = 100;  // a visible fill for this test
  // Two matmuls back to back, then one that must wait for ACT's semaphore (set long after).
  Core c(chip);
  c.Add(".engine pe\n" + kLoadBf16 + "\n" + kMmBf16 + "\n" + kMmBf16 + "\nwait S[1] >= 1 " +
        kMmBf16 + "\nnotify_end\n");
  c.Add(
      ".engine act\n"
      "activation dst=sbuf[p0:128, 8192 + [4096 x 1]] fp32 in=sbuf[p0:128, 8192 + [4096 x 1]] "
      "fp32 bias=0.0 scale=1.0 alpha=0.0 func=copy reduce_cmd=idle then S[1] += 1 @complete\n"
      "notify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(chip, &trace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<const TraceInstruction*> mm;
  for (const TraceInstruction& t : trace.instructions)
    if (t.opcode == "multiply_moving") mm.push_back(&t);
  ASSERT_EQ(mm.size(), 3u);
  const DurationPs stream = PeCycles(512), fill = PeCycles(100);
  const DurationPs drain = PeCycles(uint64_t(chip.cost.pe_drain_cycles));
  // The first starts on a cold array: fill + stream + drain. The second was waiting for the
  // array and streams the instant the first's stream ends: no fill.
  EXPECT_EQ(mm[0]->duration_ps, fill + stream + drain);
  EXPECT_EQ(mm[1]->start_ps, mm[0]->start_ps + fill + stream);
  EXPECT_EQ(mm[1]->duration_ps, stream + drain);
  // The third issued after the array had gone idle (ACT's 4096-element activation takes
  // ~3.4 µs): fill again.
  EXPECT_GT(mm[2]->start_ps, mm[1]->start_ps + stream);
  EXPECT_EQ(mm[2]->duration_ps, fill + stream + drain);
}

TEST(PeDynamicsTest, AMatmulsResultsAreVisibleAfterTheDrain) {
  const ChipSpec chip = Unthrottled();
  Core c(chip);
  c.Add(".engine pe\n" + kLoadBf16 + "\n" + kMmBf16 + " then S[2] += 1 @complete\nnotify_end\n");
  c.Add(
      ".engine dve\nwait S[2] >= 1 tensor_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 "
      "in=psum[p0:128, bank0 + [512 x 1]] fp32\nnotify_end\n");
  StatusOr<ExecutionResult> r = c.Run(chip);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // DVE waits from 0 until the load (32 cycles), the fill, the 512-cycle stream and the drain
  // are over.
  const CostSpec& s = chip.cost;
  EXPECT_EQ(r->cores[0].engines[int(isa::Engine::kDve)].wait_ps,
            PeCycles(32) + PeCycles(uint64_t(s.pe_fill_cycles)) + PeCycles(512) +
                PeCycles(uint64_t(s.pe_drain_cycles)));
}

TEST(PeDynamicsTest, OnTrn2TheFirstMatmulsOfAKernelRunAtHalfRate) {
  const ChipSpec& chip = Trainium2Spec();
  // Matmuls of 128 moving columns: 128 cycles, 53.334 ns at full rate.
  const std::string mm128 =
      "multiply_moving dst=psum[p0:128, bank0 + [128 x 1]] fp32 moving=sbuf[p0:128, 4096 + "
      "[128 x 1]] bf16 first last";
  Core c(chip);
  c.Add(".engine pe\n" + kLoadBf16 + "\n" + mm128 + "\n" + mm128 + "\n" + mm128 + "\nnotify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(chip, &trace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<const TraceInstruction*> mm;
  for (const TraceInstruction& t : trace.instructions)
    if (t.opcode == "multiply_moving") mm.push_back(&t);
  ASSERT_EQ(mm.size(), 3u);
  // The ramp begins with the first stream (after the fill); its first step lasts 375 ns at
  // 500‰, so the first two streams each take twice their full-rate time: 2 x 53.334 ns.
  const DurationPs stream = PeCycles(128);
  const DurationPs fill = PeCycles(uint64_t(chip.cost.pe_fill_cycles));
  EXPECT_EQ(mm[1]->start_ps - mm[0]->start_ps, fill + 2 * stream);
  EXPECT_EQ(mm[2]->start_ps - mm[1]->start_ps, 2 * stream);
  EXPECT_GT(r->cores[0].engines[int(isa::Engine::kPe)].busy_ps, 0u);
}

TEST(PeDynamicsTest, Trn3HasTheSameLimiter) {
  const ChipSpec& chip = Trainium3Spec();
  const std::string mm128 =
      "multiply_moving dst=psum[p0:128, bank0 + [128 x 1]] fp32 moving=sbuf[p0:128, 4096 + "
      "[128 x 1]] bf16 first last";
  Core c(chip);
  c.Add(".engine pe\n" + kLoadBf16 + "\n" + mm128 + "\n" + mm128 + "\nnotify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(chip, &trace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<const TraceInstruction*> mm;
  for (const TraceInstruction& t : trace.instructions)
    if (t.opcode == "multiply_moving") mm.push_back(&t);
  ASSERT_EQ(mm.size(), 2u);
  // Same PE clock (2.4 GHz) and limiter as trn2: the first stream at 500‰.
  EXPECT_EQ(mm[1]->start_ps - mm[0]->start_ps,
            PeCycles(uint64_t(chip.cost.pe_fill_cycles)) + 2 * PeCycles(128));
}

}  // namespace
}  // namespace trnsim::simulator::core
