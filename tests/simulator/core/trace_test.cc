// ExecuteOptions::trace (simulator/core/trace.h): recording changes no result, time or
// statistic; the trace agrees with the chip model's counters; every wait names the update
// that satisfied it; transfers carry their queue, bytes and times; a trace stops at its limits
// (TraceLimits), marked truncated with the events it dropped counted.
#include "simulator/core/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "simulator/core/execution.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();

struct Core {
  Core() : state(isa::LimitsFor(kChip)) {
    hbm.vars[1] = std::vector<uint8_t>(2 << 20);
    for (size_t i = 0; i < hbm.vars[1].size(); ++i) hbm.vars[1][i] = uint8_t(i * 7 + 3);
    hbm.vars[2] = std::vector<uint8_t>(2 << 20);
  }
  void Add(const std::string& text) {
    StatusOr<isa::Program> p = isa::ParseProgram(text);
    ASSERT_TRUE(p.ok()) << p.status().message();
    programs.push_back(std::move(*p));
  }
  CoreRun Run() {
    CoreRun run;
    for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
    run.state = &state;
    run.hbm = &hbm;
    return run;
  }
  std::vector<isa::Program> programs;
  reference::CoreState state;
  reference::VectorHbm hbm;
};

// Loads on two queues, ACT then DVE then PE work chained by semaphores, a store at the end.
void AddPipeline(Core& c) {
  c.Add(
      ".engine sp\n"
      "dma_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 src=hbm[var1 + 0, [128 x 2048, 512 x 1]] "
      "fp32 queue=0 then S[1] += 1 @complete\n"
      "dma_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 src=hbm[var1 + 2048, [128 x 2048, 512 x "
      "1]] fp32 queue=1 then S[1] += 1 @complete\n"
      "wait S[3] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 2048, 512 x 1]] fp32 src=sbuf[p0:128, "
      "8192 + [512 x 1]] fp32 queue=2 then S[4] += 1 @complete\n"
      "wait S[4] >= 1 notify_end\n");
  c.Add(
      ".engine act\n"
      "wait S[1] >= 2 tensor_copy dst=sbuf[p0:128, 4096 + [512 x 1]] fp32 in=sbuf[p0:128, 0 + "
      "[512 x 1]] fp32 then S[2] += 1 @complete\n"
      "notify_end\n");
  c.Add(
      ".engine dve\n"
      "wait S[2] >= 1 tensor_copy dst=sbuf[p0:128, 8192 + [512 x 1]] fp32 in=sbuf[p0:128, 4096 + "
      "[512 x 1]] fp32 then S[3] += 1 @complete\n"
      "notify_end\n");
  c.Add(
      ".engine pe\n"
      "load_stationary stationary=sbuf[p0:128, 16384 + [128 x 1]] bf16\n"
      "multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 20480 + [512 "
      "x 1]] bf16 first last\n"
      "load_stationary stationary=sbuf[p0:128, 16384 + [128 x 1]] bf16\n"
      "multiply_moving dst=psum[p0:128, bank1 + [512 x 1]] fp32 moving=sbuf[p0:128, 20480 + [512 "
      "x 1]] bf16 first last\n"
      "notify_end\n");
}

StatusOr<ExecutionResult> RunOne(Core& c, ExecutionTrace* trace) {
  CoreRun r = c.Run();
  ExecuteOptions o;
  o.trace = trace;
  return Execute(kChip, std::span<const CoreRun>(&r, 1), o);
}

TEST(TraceTest, RecordingChangesNoResultTimeOrStatistic) {
  Core off, on;
  AddPipeline(off);
  AddPipeline(on);
  ExecutionTrace trace;
  StatusOr<ExecutionResult> a = RunOne(off, nullptr);
  StatusOr<ExecutionResult> b = RunOne(on, &trace);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_FALSE(trace.instructions.empty());
  EXPECT_EQ(a->duration_ps, b->duration_ps);
  EXPECT_EQ(a->events, b->events);
  ASSERT_EQ(a->cores.size(), b->cores.size());
  const CoreStats &x = a->cores[0], &y = b->cores[0];
  EXPECT_EQ(x.duration_ps, y.duration_ps);
  EXPECT_EQ(x.instructions, y.instructions);
  EXPECT_EQ(x.hbm_read_bytes, y.hbm_read_bytes);
  EXPECT_EQ(x.hbm_write_bytes, y.hbm_write_bytes);
  for (int e = 0; e < isa::kEngineCount; ++e) {
    EXPECT_EQ(x.engines[e].busy_ps, y.engines[e].busy_ps) << e;
    EXPECT_EQ(x.engines[e].wait_ps, y.engines[e].wait_ps) << e;
    EXPECT_EQ(x.engines[e].instructions, y.engines[e].instructions) << e;
    EXPECT_EQ(x.engines[e].flops, y.engines[e].flops) << e;
  }
  ASSERT_EQ(x.queues.size(), y.queues.size());
  for (size_t q = 0; q < x.queues.size(); ++q) {
    EXPECT_EQ(x.queues[q].transfers, y.queues[q].transfers);
    EXPECT_EQ(x.queues[q].bytes, y.queues[q].bytes);
    EXPECT_EQ(x.queues[q].busy_ps, y.queues[q].busy_ps);
  }
  EXPECT_EQ(off.state.sbuf, on.state.sbuf);
  EXPECT_EQ(off.state.psum, on.state.psum);
  EXPECT_EQ(off.state.sem, on.state.sem);
  EXPECT_EQ(off.hbm.vars, on.hbm.vars);
}

TEST(TraceTest, TheTraceAgreesWithTheCounters) {
  Core c;
  AddPipeline(c);
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = RunOne(c, &trace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const CoreStats& s = r->cores[0];
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const isa::Engine engine = isa::Engine(e);
    EXPECT_EQ(TraceEngineBusyPs(trace, 0, engine), s.engines[e].busy_ps) << e;
    uint64_t count = 0;
    DurationPs wait = 0;
    for (const TraceInstruction& t : trace.instructions) {
      if (t.engine != engine) continue;
      ++count;
      wait += t.wait_ps;
      EXPECT_LE(t.start_ps + t.duration_ps, r->duration_ps);
    }
    EXPECT_EQ(count, s.engines[e].instructions) << e;
    EXPECT_EQ(wait, s.engines[e].wait_ps) << e;
  }
  // PE busy is the union of overlapping load/matmul slices, not their sum.
  DurationPs pe_sum = 0;
  for (const TraceInstruction& t : trace.instructions)
    if (t.engine == isa::Engine::kPe) pe_sum += t.duration_ps;
  EXPECT_GT(pe_sum, s.engines[int(isa::Engine::kPe)].busy_ps);

  uint64_t transfers = 0, bytes = 0;
  for (const QueueStats& q : s.queues) {
    transfers += q.transfers;
    bytes += q.bytes;
  }
  ASSERT_EQ(trace.dmas.size(), transfers);
  uint64_t traced_bytes = 0;
  // Engine 0 of a transfer starts 1.3 us - 15 x 16 ns - one semaphore element (2,353 + 148 ps)
  // after the trigger (docs/chip-model.md §3.2): 1,057,499 ps.
  const DurationPs first_engine_ps = kChip.cost.dma_start_latency_ps -
                                     15 * kChip.cost.dma_engine_dispatch_ps -
                                     kChip.cost.dma_element_overhead_ps - 148;
  ASSERT_EQ(trace.dma_parts.size(), 16 * trace.dmas.size());
  for (size_t i = 0; i < trace.dmas.size(); ++i) {
    const TraceDma& d = trace.dmas[i];
    traced_bytes += d.bytes;
    EXPECT_EQ(d.start_ps, d.submit_ps + first_engine_ps);
    EXPECT_GT(d.end_ps, d.start_ps);
    // Its 16 engine parts: [128 x 2 KiB] puts 8 rows (16 KiB) on every engine; the transfer
    // landed with its last part.
    TimePs last = 0;
    for (size_t k = 0; k < 16; ++k) {
      const TraceDmaPart& p = trace.dma_parts[16 * i + k];
      EXPECT_EQ(p.dma, uint32_t(i));
      EXPECT_EQ(p.engine, int(k));
      EXPECT_EQ(p.bytes, d.bytes / 16);
      EXPECT_GE(p.start_ps, d.submit_ps + first_engine_ps + k * kChip.cost.dma_engine_dispatch_ps);
      last = std::max(last, p.end_ps);
    }
    EXPECT_EQ(last, d.end_ps);
    EXPECT_EQ(trace.instructions[d.instruction].opcode, "dma_copy");
    EXPECT_EQ(s.queues[size_t(d.queue)].transfers, 1u);  // one transfer per queue here
  }
  EXPECT_EQ(traced_bytes, bytes);
  EXPECT_EQ(trace.dmas[0].source, isa::Memory::kHbm);
  EXPECT_EQ(trace.dmas[0].destination, isa::Memory::kSbuf);
  EXPECT_EQ(trace.dmas[2].destination, isa::Memory::kHbm);
  EXPECT_EQ(trace.dmas[2].queue, 2);
}

// The index of the first traced instruction of `engine` with `opcode`.
size_t Find(const ExecutionTrace& trace, isa::Engine engine, const std::string& opcode) {
  for (size_t i = 0; i < trace.instructions.size(); ++i)
    if (trace.instructions[i].engine == engine && trace.instructions[i].opcode == opcode) return i;
  ADD_FAILURE() << opcode << " not traced";
  return 0;
}

TEST(TraceTest, EachWaitNamesTheUpdateThatSatisfiedIt) {
  Core c;
  AddPipeline(c);
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = RunOne(c, &trace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const size_t act = Find(trace, isa::Engine::kAct, "tensor_copy");
  const size_t dve = Find(trace, isa::Engine::kDve, "tensor_copy");
  const TraceInstruction& waiting = trace.instructions[dve];
  ASSERT_EQ(waiting.waits.size(), 1u);
  EXPECT_FALSE(waiting.waits[0].event);
  EXPECT_EQ(waiting.waits[0].index, 2);
  EXPECT_EQ(waiting.waits[0].satisfied_by.kind, TraceSource::Kind::kInstruction);
  EXPECT_EQ(waiting.waits[0].satisfied_by.index, act);
  EXPECT_EQ(waiting.operands.find("tensor_copy"), std::string::npos) << waiting.operands;
  EXPECT_NE(waiting.operands.find("S[3] += 1"), std::string::npos) << waiting.operands;
  // DVE stalled exactly until ACT's @complete update, which the trace records at that time.
  const TraceInstruction& producer = trace.instructions[act];
  const cost::InstructionCost cost = cost::EstimateCost(
      isa::ParseInstruction("tensor_copy dst=sbuf[p0:128, 4096 + [512 x 1]] fp32 in=sbuf[p0:128, "
                            "0 + [512 x 1]] fp32")
          .value(),
      isa::Engine::kAct, kChip.cost);
  // Visible at issue + occupancy + access latency; on ACT the latency is ScalarE's fixed
  // pipeline cost (act_fixed_cycles), which the traced duration already spans.
  const TimePs visible =
      producer.start_ps + cost.OccupancyPs() + cost.clock().CyclesToPs(cost.access_latency_cycles);
  ASSERT_TRUE(cost.latency_in_span);
  EXPECT_EQ(producer.start_ps + producer.duration_ps, visible);
  EXPECT_EQ(waiting.start_ps, visible);
  bool found = false;
  for (const TraceSyncUpdate& u : trace.sync_updates) {
    if (u.event || u.index != 2) continue;
    found = true;
    EXPECT_EQ(u.time_ps, visible);
    EXPECT_EQ(u.value, 1u);
    EXPECT_EQ(u.source.index, act);
  }
  EXPECT_TRUE(found);
  // ACT's wait for S[1] >= 2 was satisfied by the second load's dma_copy (queue 1, @complete).
  const TraceInstruction& act_inst = trace.instructions[act];
  ASSERT_EQ(act_inst.waits.size(), 1u);
  const TraceSource& from = act_inst.waits[0].satisfied_by;
  ASSERT_EQ(from.kind, TraceSource::Kind::kInstruction);
  EXPECT_EQ(trace.instructions[from.index].opcode, "dma_copy");
  EXPECT_GT(act_inst.wait_ps, 0u);
}

TEST(TraceTest, ATraceIsClearedBeforeItIsFilledAgain) {
  Core c;
  AddPipeline(c);
  ExecutionTrace trace;
  ASSERT_TRUE(RunOne(c, &trace).ok());
  const size_t first = trace.instructions.size();
  ASSERT_TRUE(RunOne(c, &trace).ok());
  EXPECT_EQ(trace.instructions.size(), first);
}

TEST(TraceTest, AFailedExecutionKeepsWhatRanBeforeTheError) {
  Core c;
  c.Add(".engine pe\nwait S[7] >= 2 nop\nnotify_end\n");
  c.Add(".engine sp\nsem_update S[7] += 1\nnotify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = RunOne(c, &trace);
  ASSERT_FALSE(r.ok());
  // sem_update and notify_end on SP ran; the update is attributed to sem_update.
  const size_t update = Find(trace, isa::Engine::kSp, "sem_update");
  ASSERT_EQ(trace.sync_updates.size(), 1u);
  EXPECT_EQ(trace.sync_updates[0].index, 7);
  EXPECT_EQ(trace.sync_updates[0].value, 1u);
  EXPECT_EQ(trace.sync_updates[0].source.index, update);
}

// Issue 20 F2: an endless loop run with tracing on grew its trace (and neurond) until the host
// timeout. The trace stops at its event limit: exactly that many entries, the rest counted.
TEST(TraceTest, AnEndlessLoopsTraceStopsAtItsEventLimit) {
  Core c;
  c.Add(".engine pool\nreg_set r1 = 0\nreg_add r2 += 1\nbranch r1 == 0 -> 1\nnotify_end\n");
  ExecutionTrace trace;
  trace.limits.max_events = 1000;
  CoreRun r = c.Run();
  ExecuteOptions o;
  o.trace = &trace;
  o.max_events = 100000;  // the loop's two instructions are two scheduler events each
  StatusOr<ExecutionResult> result = Execute(kChip, std::span<const CoreRun>(&r, 1), o);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kTimeout) << result.status().message();
  EXPECT_EQ(trace.events(), 1000u);
  EXPECT_EQ(trace.instructions.size(), 1000u);
  EXPECT_TRUE(trace.truncated);
  // Every instruction that issued is recorded or counted: 100,000 events, two per instruction.
  EXPECT_NEAR(double(trace.instructions.size() + trace.dropped_events), 50000.0, 2.0);
  EXPECT_EQ(trace.limits.max_events, 1000u);  // Execute's Clear() keeps the limits
}

// The byte limit: the recorded entries' estimated memory stays under it, and a cut made in the
// middle of a pipeline leaves every reference pointing at a recorded entry.
TEST(TraceTest, ATraceStopsAtItsByteLimitWithItsReferencesIntact) {
  Core full_run;
  AddPipeline(full_run);
  ExecutionTrace full;
  ASSERT_TRUE(RunOne(full_run, &full).ok());
  EXPECT_FALSE(full.truncated);
  EXPECT_EQ(full.dropped_events, 0u);
  for (uint64_t cap = 1; cap < full.events(); cap += 7) {
    Core c;
    AddPipeline(c);
    ExecutionTrace trace;
    trace.limits.max_events = cap;
    ASSERT_TRUE(RunOne(c, &trace).ok());
    EXPECT_EQ(trace.events(), cap);
    EXPECT_TRUE(trace.truncated);
    EXPECT_EQ(trace.events() + trace.dropped_events, full.events()) << cap;
    for (const TraceDma& d : trace.dmas) EXPECT_LT(d.instruction, trace.instructions.size());
    for (const TraceDmaPart& p : trace.dma_parts) EXPECT_LT(p.dma, trace.dmas.size());
    // A source's index is valid in the list its kind names.
    auto valid = [&](const TraceSource& s) {
      return s.kind == TraceSource::Kind::kNone ||
             (s.kind == TraceSource::Kind::kInstruction && s.index < trace.instructions.size()) ||
             (s.kind == TraceSource::Kind::kDma && s.index < trace.dmas.size());
    };
    for (const TraceSyncUpdate& u : trace.sync_updates) EXPECT_TRUE(valid(u.source)) << cap;
    for (const TraceInstruction& t : trace.instructions)
      for (const TraceWait& w : t.waits) EXPECT_TRUE(valid(w.satisfied_by)) << cap;
  }
  Core c;
  AddPipeline(c);
  ExecutionTrace trace;
  trace.limits.max_bytes = full.recorded_bytes / 2;
  ASSERT_TRUE(RunOne(c, &trace).ok());
  EXPECT_TRUE(trace.truncated);
  EXPECT_LE(trace.recorded_bytes, full.recorded_bytes / 2);
  EXPECT_GT(trace.recorded_bytes, 0u);
  EXPECT_EQ(trace.events() + trace.dropped_events, full.events());
}

TEST(TraceTest, TheDefaultLimitsHoldEveryEventOfARealKernel) {
  const TraceLimits limits;
  EXPECT_EQ(limits.max_events, kDefaultTraceMaxEvents);
  EXPECT_EQ(limits.max_bytes, kDefaultTraceMaxBytes);
  // The largest sample records ~27,000 entries; a 50,000-instruction program ~50,000.
  EXPECT_GE(kDefaultTraceMaxEvents, 80u * 50000u);
  // Half a million of the pipeline's longest instruction entries (a dma_copy's text) fit the
  // byte limit: ten times the 50,000-instruction program.
  Core c;
  AddPipeline(c);
  ExecutionTrace trace;
  ASSERT_TRUE(RunOne(c, &trace).ok());
  uint64_t largest = 0;
  for (const TraceInstruction& t : trace.instructions)
    largest = std::max(largest, TraceEntryBytes(t));
  EXPECT_GE(kDefaultTraceMaxBytes / largest, 500'000u) << largest;
}

}  // namespace
}  // namespace trnsim::simulator::core
