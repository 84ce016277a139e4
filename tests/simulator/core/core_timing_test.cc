// The chip model's timing rules on hand-written programs: occupancy from the cost model, wait
// accounting and semaphore hand-off latency, deadlock reports, DMA bandwidth and start latency,
// in-order completion per queue, bandwidth sharing between queues, HBM contention between the
// two cores of a stack, the execution limits and cancellation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "simulator/core/execution.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();

struct Core {
  explicit Core(int core = 0) : state(isa::LimitsFor(kChip)) { run.core = core; }
  void Add(const std::string& text) {
    StatusOr<isa::Program> p = isa::ParseProgram(text);
    ASSERT_TRUE(p.ok()) << p.status().message();
    programs.push_back(std::move(*p));
  }
  CoreRun& Run() {
    for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
    run.state = &state;
    run.hbm = &hbm;
    return run;
  }
  std::vector<isa::Program> programs;
  reference::CoreState state;
  reference::VectorHbm hbm;
  CoreRun run;
};

StatusOr<ExecutionResult> RunOne(Core& c, const ExecuteOptions& o = {}) {
  CoreRun r = c.Run();
  return Execute(kChip, std::span<const CoreRun>(&r, 1), o);
}

DurationPs CostPs(const std::string& line, isa::Engine e) {
  isa::Instruction i = isa::ParseInstruction(line).value();
  return cost::EstimateCost(i, e, kChip.cost).OccupancyPs();
}

constexpr char kCopy[] =
    "tensor_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 in=sbuf[p0:128, 4096 + [512 x 1]] fp32";

TEST(CoreTimingTest, AnEngineIsBusyForItsInstructionsCosts) {
  Core c;
  c.Add(std::string(".engine dve\n") + kCopy + "\n" + kCopy + "\nnotify_end\n");
  StatusOr<ExecutionResult> r = RunOne(c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const EngineStats& dve = r->cores[0].engines[int(isa::Engine::kDve)];
  const DurationPs want =
      2 * CostPs(kCopy, isa::Engine::kDve) + CostPs("notify_end", isa::Engine::kDve);
  EXPECT_EQ(dve.busy_ps, want);
  EXPECT_EQ(dve.instructions, 3u);
  EXPECT_EQ(dve.wait_ps, 0u);
  EXPECT_GE(r->cores[0].duration_ps, want);
  EXPECT_EQ(r->cores[0].engines[int(isa::Engine::kPe)].instructions, 0u);
}

TEST(CoreTimingTest, AConsumerIssuesWhenItsProducerCompletes) {
  Core c;
  c.Add(std::string(".engine act\n") + kCopy + " then S[1] += 1 @complete\nnotify_end\n");
  c.Add(".engine dve\nwait S[1] >= 1 " + std::string(kCopy) + "\nnotify_end\n");
  StatusOr<ExecutionResult> r = RunOne(c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const isa::Instruction copy = isa::ParseInstruction(kCopy).value();
  const cost::InstructionCost act = cost::EstimateCost(copy, isa::Engine::kAct, kChip.cost);
  const DurationPs act_done = act.OccupancyPs() + act.clock().CyclesToPs(act.access_latency_cycles);
  // DVE waited exactly until ACT's @complete update.
  EXPECT_EQ(r->cores[0].engines[int(isa::Engine::kDve)].wait_ps, act_done);
  EXPECT_EQ(c.state.sem[1], 1u);
}

TEST(CoreTimingTest, WeightsLoadInTheBackgroundWhileTheArrayStreams) {
  const std::string load = "load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16";
  const std::string mm =
      "multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 4096 + "
      "[512 x 1]] bf16 first last";
  // The dI/dt limiter off (pe_dynamics_test.cc covers it), so the matmuls stream at full rate.
  ChipSpec chip = kChip;
  chip.cost.pe_didt_start_limit_permille = 1000;
  Core c;
  c.Add(".engine pe\n" + load + "\n" + mm + "\n" + load + "\n" + mm + "\nnotify_end\n");
  CoreRun run = c.Run();
  StatusOr<ExecutionResult> r = Execute(chip, std::span<const CoreRun>(&run, 1), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const DurationPs load_ps = CostPs(load, isa::Engine::kPe), mm_ps = CostPs(mm, isa::Engine::kPe);
  ASSERT_GT(load_ps, 0u);
  const Clock pe = Clock::FromHz(chip.cost.pe_clock_hz);
  const DurationPs fill_ps = pe.CyclesToPs(uint64_t(chip.cost.pe_fill_cycles));
  const DurationPs drain_ps = pe.CyclesToPs(uint64_t(chip.cost.pe_drain_cycles));
  // The second load overlaps the first matmul, and the second matmul streams right after the
  // first (no fill): the PE is busy for one load, the first matmul's fill, two streams and the
  // second's drain — not 2 loads + 2 matmuls.
  EXPECT_EQ(r->cores[0].engines[int(isa::Engine::kPe)].busy_ps,
            load_ps + fill_ps + 2 * mm_ps + drain_ps);
  // Done when the second matmul's results have drained into PSUM.
  EXPECT_EQ(r->cores[0].duration_ps, load_ps + fill_ps + 2 * mm_ps + drain_ps);
}

TEST(CoreTimingTest, ADeadlockIsATimeoutNamingTheStuckEngines) {
  Core c;
  c.Add(".engine pe\nwait S[7] >= 2 nop\nnotify_end\n");
  c.Add(".engine sp\nsem_update S[7] += 1\nnotify_end\n");
  StatusOr<ExecutionResult> r = RunOne(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  EXPECT_NE(r.status().message().find("deadlock"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("PE instruction 0 (nop) waits for S[7] >= 2 (S[7] = 1)"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().find("SP instruction"), std::string::npos)
      << "SP ended and must not be named: " << r.status().message();
}

TEST(CoreTimingTest, ExecutionErrorsNameTheInstruction) {
  Core c;
  c.Add(
      ".engine pe\nmultiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 "
      "moving=sbuf[p0:128, 0 + [512 x 1]] bf16 first last\nnotify_end\n");
  StatusOr<ExecutionResult> r = RunOne(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("PE instruction 0 (multiply_moving)"), std::string::npos)
      << r.status().message();
}

TEST(CoreTimingTest, BarrierWaitsForTheEnginesTransfers) {
  Core c;
  c.hbm.vars[1] = std::vector<uint8_t>(128 * 4096);
  c.Add(
      ".engine sp\n"
      "dma_copy dst=sbuf[p0:128, 0 + [1024 x 1]] fp32 src=hbm[var1 + 0, [128 x 1024, 1024 x 1]] "
      "fp32 queue=0\n"
      "barrier then S[2] = 9 @read\nnotify_end\n");
  StatusOr<ExecutionResult> r = RunOne(c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The barrier waited at least the DMA start latency.
  EXPECT_GE(r->cores[0].engines[int(isa::Engine::kSp)].wait_ps, kChip.cost.dma_start_latency_ps);
  EXPECT_EQ(c.state.sem[2], 9u);
  EXPECT_EQ(r->cores[0].queues[0].bytes, 128u * 4096);
  EXPECT_EQ(r->cores[0].queues[0].transfers, 1u);
  EXPECT_EQ(r->cores[0].hbm_read_bytes, 128u * 4096);
}

// C-3 / [NKI-ARCH-TRN2]: a hwdge dma_copy on ACT runs its ~600 ns on the DGE block while the
// ACT instruction before it computes; only what is left occupies ACT. On SP nothing hides it.
TEST(CoreTimingTest, HwdgeOnActHidesBehindThePreviousInstruction) {
  const std::string act_copy =
      "tensor_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 in=sbuf[p0:128, 4096 + [512 x 1]] fp32";
  const std::string load =
      "dma_copy dst=sbuf[p0:128, 8192 + [16 x 1]] fp32 src=hbm[var1 + 0, [128 x 16, 16 x 1]] "
      "fp32 queue=0 hwdge";
  Core c;
  c.hbm.vars[1] = std::vector<uint8_t>(128 * 64);
  c.Add(".engine act\n" + act_copy + "\n" + load + "\nnotify_end\n");
  c.Add(".engine sp\n" + load + "\n" + load + "\nnotify_end\n");
  ExecutionTrace trace;
  ExecuteOptions o;
  o.trace = &trace;
  StatusOr<ExecutionResult> r = RunOne(c, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // ACT's tensor_copy: Stream(512) = 512 cycles at 1.2 GHz = 426,667 ps (rounded); the DGE
  // started with it, so the dma_copy occupies ACT for 600,000 - 426,667 = 173,333 ps.
  const DurationPs copy_ps = CostPs(act_copy, isa::Engine::kAct);
  std::vector<DurationPs> act, sp;
  for (const TraceInstruction& t : trace.instructions) {
    if (t.opcode != "dma_copy") continue;
    (t.engine == isa::Engine::kAct ? act : sp).push_back(t.duration_ps);
  }
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(act[0], 600'000u - copy_ps);
  // SP: its first dma_copy has nothing before it, the second follows a DMA issue (not compute):
  // both 600 ns — hiding is ScalarE's.
  EXPECT_EQ(sp, (std::vector<DurationPs>{600'000u, 600'000u}));
}

// One HBM->SBUF transfer of `bytes` per queue in `queues`, all issued by SP.
std::string Loads(int queues, int rows_per_transfer) {
  std::string s = ".engine sp\n";
  for (int q = 0; q < queues; ++q)
    s += "dma_copy dst=sbuf[p0:" + std::to_string(rows_per_transfer) + ", " +
         std::to_string(q * 4096) + " + [1024 x 1]] fp32 src=hbm[var1 + 0, [" +
         std::to_string(rows_per_transfer) + " x 1024, 1024 x 1]] fp32 queue=" + std::to_string(q) +
         "\n";
  return s + "notify_end\n";
}

TEST(CoreTimingTest, ALargeTransferStreamsAtTheCoresDmaBandwidth) {
  Core c;
  c.hbm.vars[1] = std::vector<uint8_t>(128 * 4096);
  c.Add(Loads(1, 128));
  StatusOr<ExecutionResult> r = RunOne(c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // [128 x 4 KiB] HBM -> SBUF (docs/chip-model.md §3): each of the 16 engines reads 8 rows,
  // 32768 B at the HBM-read rate 23.34 GB/s = 1,403,942 ps, + 9 elements (8 rows and the
  // semaphore) x 2,353 ps + the semaphore's 4 B at 27.2 GB/s (148 ps) = 1,425,267 ps; the 16
  // engines together read 368 GB/s, under the stack's 725 GB/s. Engine 15 starts
  // 1,300,000 - 2,501 = 1,297,499 ps after the trigger at 0 (C-4's start latency) and ends
  // last: the queue is busy from 0 to 2,722,766 ps.
  EXPECT_EQ(r->cores[0].queues[0].busy_ps, 1'297'499u + 1'425'267u);
}

TEST(CoreTimingTest, QueuesShareBandwidthAndEachCompletesInOrder) {
  Core one, two;
  one.hbm.vars[1] = two.hbm.vars[1] = std::vector<uint8_t>(128 * 4096);
  one.Add(Loads(1, 128));
  two.Add(Loads(2, 128));
  StatusOr<ExecutionResult> a = RunOne(one), b = RunOne(two);
  ASSERT_TRUE(a.ok() && b.ok());
  // Two equal transfers on two queues share every engine round-robin: together they take
  // about twice the streaming time of one, not the same time (exactly: 2,848,033 ps against
  // 1,422,766 ps beyond the 1.3 us start — the second is triggered 50 ns later).
  const double stream_one = double(a->cores[0].duration_ps - kChip.cost.dma_start_latency_ps);
  const double stream_two = double(b->cores[0].duration_ps - kChip.cost.dma_start_latency_ps);
  EXPECT_GT(stream_two, 1.8 * stream_one);
  EXPECT_LT(stream_two, 2.2 * stream_one);

  // Same queue: the second transfer lands after the first; the queue is busy for both.
  Core same;
  same.hbm.vars[1] = std::vector<uint8_t>(128 * 4096);
  same.Add(
      ".engine sp\n"
      "dma_copy dst=sbuf[p0:128, 0 + [1024 x 1]] fp32 src=hbm[var1 + 0, [128 x 1024, 1024 x 1]] "
      "fp32 queue=3 then S[1] += 1 @complete\n"
      "dma_copy dst=sbuf[p0:1, 8192 + [16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32 "
      "queue=3 then S[1] = 7 @complete\n"
      "barrier\nnotify_end\n");
  StatusOr<ExecutionResult> s = RunOne(same);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(same.state.sem[1], 7u) << "the small transfer must land last";
  EXPECT_EQ(s->cores[0].queues[3].transfers, 2u);
}

// Each of `cores` copies 4 MiB HBM -> HBM on 4 queues; returns the longest core's time.
DurationPs CopyTime(std::vector<int> cores) {
  std::vector<std::unique_ptr<Core>> cs;
  std::vector<CoreRun> runs;
  for (int core : cores) {
    cs.push_back(std::make_unique<Core>(core));
    Core& c = *cs.back();
    c.hbm.vars[1] = std::vector<uint8_t>(4 << 20);
    c.hbm.vars[2] = std::vector<uint8_t>(4 << 20);
    std::string s = ".engine sp\n";
    for (int q = 0; q < 4; ++q)
      s += "dma_copy dst=hbm[var2 + " + std::to_string(q << 20) +
           ", [256 x 1024, 1024 x 1]] fp32 src=hbm[var1 + " + std::to_string(q << 20) +
           ", [256 x 1024, 1024 x 1]] fp32 queue=" + std::to_string(q) + "\n";
    c.Add(s + "notify_end\n");
    runs.push_back(c.Run());
  }
  StatusOr<ExecutionResult> r = Execute(kChip, runs);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->duration_ps : 0;
}

TEST(CoreTimingTest, TwoCoresOnOneHbmStackContendAndCoresOnTwoStacksDoNot) {
  ASSERT_EQ(kChip.HbmStackOfCore(0), kChip.HbmStackOfCore(1));
  ASSERT_NE(kChip.HbmStackOfCore(0), kChip.HbmStackOfCore(2));
  const DurationPs alone = CopyTime({0});
  const DurationPs shared = CopyTime({0, 1});
  const DurationPs apart = CopyTime({0, 2});
  EXPECT_EQ(apart, alone);
  // HBM -> HBM copies are HBM-bound on one stack: two cores take about twice as long.
  EXPECT_GT(double(shared), 1.7 * double(alone));
}

TEST(CoreTimingTest, LimitsStopAnEndlessProgram) {
  Core c;
  c.Add(".engine pool\nreg_set r1 = 0\nbranch r1 == 0 -> 1\nnotify_end\n");
  ExecuteOptions o;
  o.max_events = 10000;
  StatusOr<ExecutionResult> r = RunOne(c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  // With no host timeout (NEURON_RT_EXEC_TIMEOUT=0) the event budget, not host time, stops it.
  EXPECT_NE(r.status().message().find("did not finish within 10000 simulator events"),
            std::string::npos)
      << r.status().message();
  Core d;
  d.Add(".engine pool\nreg_set r1 = 0\nbranch r1 == 0 -> 1\nnotify_end\n");
  ExecuteOptions t;
  t.host_timeout = std::chrono::milliseconds(50);
  r = RunOne(d, t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  EXPECT_NE(r.status().message().find("execution timeout"), std::string::npos);
}

// Issue 20 F5: with NEURON_RT_EXEC_TIMEOUT=0 an endless loop ran 253 s, the 2^32-event budget
// ~9 min at 8 M events/s. The default budget stops the fastest loop within a minute of host time
// at the fastest event rate, and leaves real kernels (the largest sample: ~63,000 events) over
// 4,000 times their need.
TEST(CoreTimingTest, TheDefaultEventBudgetBoundsAnEndlessLoopsHostTime) {
  EXPECT_EQ(ExecuteOptions{}.max_events, kDefaultMaxEvents);
  EXPECT_EQ(ExecuteOptions{}.host_timeout.count(), 0);
  EXPECT_LE(kDefaultMaxEvents / kFastestEventsPerSecond, 60u);  // seconds: ~34
  EXPECT_GE(kDefaultMaxEvents / 63'000, 4'000u);
}

// ExecuteOptions::cancel, set from another thread, stops an endless program: NRT_FAILURE.
TEST(CoreTimingTest, CancelStopsARunningExecution) {
  Core c;
  c.Add(".engine pool\nreg_set r1 = 0\nbranch r1 == 0 -> 1\nnotify_end\n");
  std::atomic<bool> cancel{false};
  ExecuteOptions o;
  o.cancel = &cancel;
  o.host_timeout = std::chrono::seconds(60);  // a safety net, far above the cancel
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  StatusOr<ExecutionResult> r = RunOne(c, o);
  canceller.join();
  // Cancelled, not timed out (the host timeout would give NRT_TIMEOUT).
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailure) << r.status().message();
  EXPECT_NE(r.status().message().find("cancelled"), std::string::npos);
  // Already set: nothing runs.
  Core d;
  d.Add(".engine pool\nnotify_end\n");
  EXPECT_EQ(RunOne(d, o).status().code(), StatusCode::kFailure);
}

TEST(CoreTimingTest, BadRunsAreRefused) {
  Core c;
  c.Add(".engine sp\nnotify_end\n");
  CoreRun r = c.Run();
  r.core = kChip.physical_cores;
  EXPECT_EQ(Execute(kChip, std::span<const CoreRun>(&r, 1)).status().code(), StatusCode::kInvalid);
  r.core = 0;
  CoreRun twice[2] = {r, r};
  EXPECT_EQ(Execute(kChip, twice).status().code(), StatusCode::kInvalid);
  r.state = nullptr;
  EXPECT_EQ(Execute(kChip, std::span<const CoreRun>(&r, 1)).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(Execute(kChip, {}).status().code(), StatusCode::kInvalid);
  Core wrong;  // a trn2-sized state on trn3
  wrong.Add(".engine sp\nnotify_end\n");
  CoreRun w = wrong.Run();
  EXPECT_EQ(Execute(Trainium3Spec(), std::span<const CoreRun>(&w, 1)).status().code(),
            StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::simulator::core
