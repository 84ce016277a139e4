// debug_print on the chip model (docs/isa.md §7.10): what each print reads is exactly the bytes
// the program order and the semaphores give it at its issue time (a print that waits for a
// DMA's semaphore sees the loaded tile; one that does not sees what was there before), with the
// issue time, core, engine and pc; the instruction costs a DMA issue; prints are ordered by time
// with a fixed tie-break; register offsets resolve at issue; the per-execution bound drops and
// counts; and the reference interpreter reads exactly the same bytes (reference-vs-timed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/core/execution.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();

std::vector<isa::Program> Parse(const std::vector<std::string>& texts) {
  std::vector<isa::Program> out;
  for (const std::string& t : texts) {
    StatusOr<isa::Program> p = isa::ParseProgram(t);
    EXPECT_TRUE(p.ok()) << p.status().message() << "\n" << t;
    if (p.ok()) out.push_back(std::move(*p));
  }
  return out;
}

std::vector<uint8_t> Fp32Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

struct Machine {
  Machine() : state(isa::LimitsFor(kChip)) {
    std::vector<float> x(4 * 8);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * float(i) - 3.0f;
    hbm.vars[0] = Fp32Bytes(x);
    // SBUF partitions 0..3, bytes 0..63: a marker the DMA overwrites.
    for (int p = 0; p < 4; ++p) std::memset(state.SbufAt(p, 0), 0xAB, 64);
  }
  reference::CoreState state;
  reference::VectorHbm hbm;
};

// SP loads var0 [4, 8] fp32 into SBUF (S[0] += 1 when it lands) and prints var0 as [4, 2, 4].
// ACT prints the tile at once (before the load lands: the marker). DVE waits for the load,
// prints the tile, adds 1 to it and signals S[1]. POOL waits for S[1] and prints it again.
const std::vector<std::string> kProgram = {
    ".engine sp\n"
    "dma_copy dst=sbuf[p0:4, 0 + [8 x 1]] fp32 src=hbm[var0 + 0, [4 x 8, 8 x 1]] fp32 queue=0 "
    "then S[0] += 1 @complete\n"
    "debug_print src=hbm[var0 + 0, [4 x 8, 2 x 4, 4 x 1]] fp32 prefix=3\n"
    "notify_end code=0\n",
    ".engine act\n"
    "debug_print src=sbuf[p0:4, 0 + [8 x 1]] fp32 prefix=0\n"
    "notify_end code=0\n",
    ".engine dve\n"
    "wait S[0] >= 1 debug_print src=sbuf[p0:4, 0 + [8 x 1]] fp32 prefix=1\n"
    "tensor_scalar dst=sbuf[p0:4, 0 + [8 x 1]] fp32 in=sbuf[p0:4, 0 + [8 x 1]] fp32 "
    "operand0=1.0 operand1=0.0 op0=add op1=bypass then S[1] += 1 @complete\n"
    "notify_end code=0\n",
    ".engine pool\n"
    "wait S[1] >= 1 debug_print src=sbuf[p0:4, 0 + [8 x 1]] fp32 prefix=2\n"
    "notify_end code=0\n",
};

std::vector<float> Floats(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

const TraceInstruction* Issue(const ExecutionTrace& t, isa::Engine e, uint32_t pc) {
  for (const TraceInstruction& i : t.instructions)
    if (i.engine == e && i.pc == pc) return &i;
  return nullptr;
}

TEST(DebugPrintTest, PrintsCarryExactValuesInSemaphoreOrder) {
  Machine m;
  std::vector<isa::Program> programs = Parse(kProgram);
  CoreRun run;
  run.core = 0;
  for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
  run.state = &m.state;
  run.hbm = &m.hbm;
  ExecutionTrace trace;
  ExecuteOptions options;
  options.trace = &trace;
  StatusOr<ExecutionResult> r = Execute(kChip, std::span<const CoreRun>(&run, 1), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->debug_prints.size(), 4u);
  EXPECT_EQ(r->debug_prints_dropped, 0u);

  const std::vector<float> x = Floats(m.hbm.vars[0]);
  std::vector<float> x1 = x;
  for (float& f : x1) f += 1.0f;
  const std::vector<uint8_t> marker(4 * 8 * 4, 0xAB);

  // Time order: ACT at 0 (engine 1) and SP's print after its dma_copy's issue; DVE when the
  // load has landed; POOL after DVE's add.
  const reference::DebugPrint& act = r->debug_prints[0];
  EXPECT_EQ(act.engine, isa::Engine::kAct);
  EXPECT_EQ(act.prefix_id, 0u);
  EXPECT_EQ(act.time_ps, 0u);
  EXPECT_EQ(act.data, marker) << "ACT printed before the load landed: the old SBUF bytes";
  EXPECT_EQ(act.shape, (std::vector<uint64_t>{4, 8}));
  EXPECT_EQ(act.dtype, isa::Dtype::kFloat32);

  const reference::DebugPrint& sp = r->debug_prints[1];
  EXPECT_EQ(sp.engine, isa::Engine::kSp);
  EXPECT_EQ(sp.pc, 1u);
  EXPECT_EQ(sp.prefix_id, 3u);
  EXPECT_EQ(sp.shape, (std::vector<uint64_t>{4, 2, 4}));
  EXPECT_EQ(Floats(sp.data), x) << "an HBM print reads the variable in access-pattern order";

  const reference::DebugPrint& dve = r->debug_prints[2];
  EXPECT_EQ(dve.engine, isa::Engine::kDve);
  EXPECT_EQ(dve.prefix_id, 1u);
  EXPECT_EQ(Floats(dve.data), x) << "the print waited for the load's semaphore";

  const reference::DebugPrint& pool = r->debug_prints[3];
  EXPECT_EQ(pool.engine, isa::Engine::kPool);
  EXPECT_EQ(pool.prefix_id, 2u);
  EXPECT_EQ(Floats(pool.data), x1) << "the print waited for DVE's add";
  for (const reference::DebugPrint& p : r->debug_prints) EXPECT_EQ(p.core, 0u);

  // Each print's time is its instruction's issue in the trace; the DVE print issues when the
  // load lands (S[0]), after the load's whole transfer.
  for (const reference::DebugPrint& p : r->debug_prints) {
    const TraceInstruction* t = Issue(trace, p.engine, p.pc);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->start_ps, p.time_ps);
    // debug_print costs a DMA issue on its engine.
    const cost::InstructionCost c =
        cost::EstimateCost(programs[0].instructions[1], p.engine, kChip.cost);
    EXPECT_EQ(t->duration_ps, c.OccupancyPs()) << isa::EngineName(p.engine);
    EXPECT_GT(t->duration_ps, 500'000u) << "~600 ns of hwdge issue";
  }
  ASSERT_EQ(trace.dmas.size(), 1u);
  EXPECT_EQ(dve.time_ps, trace.dmas[0].end_ps);
  EXPECT_LT(sp.time_ps, dve.time_ps);
  EXPECT_LT(dve.time_ps, pool.time_ps);
}

TEST(DebugPrintTest, TheReferenceReadsTheSameBytes) {
  Machine golden, model;
  std::vector<isa::Program> programs = Parse(kProgram);
  StatusOr<reference::RunResult> want = reference::Run(programs, golden.state, golden.hbm);
  ASSERT_TRUE(want.ok()) << want.status().message();
  CoreRun run;
  for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
  run.state = &model.state;
  run.hbm = &model.hbm;
  StatusOr<ExecutionResult> got = Execute(kChip, std::span<const CoreRun>(&run, 1));
  ASSERT_TRUE(got.ok()) << got.status().message();
  // The reference runs the engines round-robin, not in time: compare per (engine, pc). Only the
  // ACT print is unordered against the load, and the reference issues it first too (ACT comes
  // before SP in its round-robin, and SP's load lands when it issues — after ACT's turn).
  auto key = [](const reference::DebugPrint& p) { return std::tie(p.engine, p.pc); };
  std::vector<reference::DebugPrint> a = want->debug_prints, b = got->debug_prints;
  auto by_key = [&](const reference::DebugPrint& l, const reference::DebugPrint& r) {
    return key(l) < key(r);
  };
  std::sort(a.begin(), a.end(), by_key);
  std::sort(b.begin(), b.end(), by_key);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(std::string(isa::EngineName(a[i].engine)) + " pc " + std::to_string(a[i].pc));
    EXPECT_EQ(a[i].prefix_id, b[i].prefix_id);
    EXPECT_EQ(a[i].dtype, b[i].dtype);
    EXPECT_EQ(a[i].shape, b[i].shape);
    EXPECT_EQ(a[i].data, b[i].data);
    EXPECT_EQ(a[i].time_ps, 0u) << "the reference has no time";
  }
}

TEST(DebugPrintTest, RegisterOffsetsStridesAndBounds) {
  Machine m;
  std::vector<float> row(16);
  for (int i = 0; i < 16; ++i) row[i] = float(i);
  std::memcpy(m.state.SbufAt(0, 0), row.data(), 64);
  std::vector<isa::Program> programs =
      Parse({".engine sp\n"
             "reg_set r1 = 2\n"
             "debug_print src=sbuf[p0:1, 0 + r1*16 + [4 x 1]] "
             "fp32 prefix=0\n"
             "debug_print src=sbuf[p0:1, 8 + [2 x 8, 3 x -1]] fp32 prefix=1\n"
             "reg_set r1 = 0\n"
             "notify_end code=0\n"});
  CoreRun run;
  run.programs[int(isa::Engine::kSp)] = &programs[0];
  run.state = &m.state;
  run.hbm = &m.hbm;
  StatusOr<ExecutionResult> r = Execute(kChip, std::span<const CoreRun>(&run, 1));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->debug_prints.size(), 2u);
  EXPECT_EQ(Floats(r->debug_prints[0].data), (std::vector<float>{8, 9, 10, 11}));
  // Strided, reversed free dims (element 2 + 8j - i) are read element by element.
  EXPECT_EQ(r->debug_prints[1].shape, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(Floats(r->debug_prints[1].data), (std::vector<float>{2, 1, 0, 10, 9, 8}));

  // A register offset past the SBUF: an execution error naming the instruction.
  std::vector<isa::Program> bad =
      Parse({".engine act\n"
             "reg_set r1 = 1000000\n"
             "debug_print src=sbuf[p0:1, 0 + r1*16 + [4 x 1]] fp32 "
             "prefix=0\n"
             "notify_end code=0\n"});
  CoreRun bad_run = run;
  bad_run.programs = {};
  bad_run.programs[int(isa::Engine::kAct)] = &bad[0];
  StatusOr<ExecutionResult> err = Execute(kChip, std::span<const CoreRun>(&bad_run, 1));
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().code(), StatusCode::kInvalid);
  EXPECT_NE(err.status().message().find("ACT instruction 1 (debug_print)"), std::string::npos)
      << err.status().message();
}

TEST(DebugPrintTest, TiesOrderByCoreThenEngineAndTheBoundDropsAndCounts) {
  // Two cores of one execution, each printing on ACT and SP at time 0, then three more on SP.
  const std::string sp =
      ".engine sp\n"
      "debug_print src=sbuf[p0:1, 0 + [2 x 1]] int32 prefix=0\n"
      "debug_print src=sbuf[p0:1, 0 + [2 x 1]] int32 prefix=1\n"
      "debug_print src=sbuf[p0:1, 0 + [2 x 1]] int32 prefix=2\n"
      "debug_print src=sbuf[p0:1, 0 + [2 x 1]] int32 prefix=3\n"
      "notify_end code=0\n";
  const std::string act =
      ".engine act\n"
      "debug_print src=sbuf[p32:33, 8 + [1 x 1]] int32 prefix=4\n"
      "notify_end code=0\n";
  std::vector<isa::Program> programs = Parse({sp, act});
  Machine m0, m1;
  std::vector<CoreRun> runs(2);
  for (int c = 0; c < 2; ++c) {
    runs[c].core = 4 + c;
    for (const isa::Program& p : programs) runs[c].programs[int(p.engine)] = &p;
    runs[c].state = c == 0 ? &m0.state : &m1.state;
    runs[c].hbm = c == 0 ? &m0.hbm : &m1.hbm;
  }
  StatusOr<ExecutionResult> r = Execute(kChip, runs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->debug_prints.size(), 10u);
  // Time 0: core 0 ACT, core 0 SP, core 1 ACT, core 1 SP; then the SP prints by time.
  using Key = std::tuple<uint32_t, isa::Engine, uint32_t>;
  std::vector<Key> first;
  for (size_t i = 0; i < 4; ++i) {
    const reference::DebugPrint& p = r->debug_prints[i];
    EXPECT_EQ(p.time_ps, 0u);
    first.emplace_back(p.core, p.engine, p.prefix_id);
  }
  EXPECT_EQ(first, (std::vector<Key>{{0, isa::Engine::kAct, 4},
                                     {0, isa::Engine::kSp, 0},
                                     {1, isa::Engine::kAct, 4},
                                     {1, isa::Engine::kSp, 0}}));
  for (size_t i = 1; i < r->debug_prints.size(); ++i)
    EXPECT_LE(r->debug_prints[i - 1].time_ps, r->debug_prints[i].time_ps);

  // The bound: 3 prints per execution keeps the first 3; 8 bytes keeps the two 4-byte ACT prints
  // (core 0's SP print of 8 bytes would pass 8 with the first ACT print's 4). The rest are
  // counted.
  struct BoundCase {
    DebugPrintLimits limits;
    std::vector<size_t> kept;  // indices into the unbounded order
  };
  for (const BoundCase& c :
       {BoundCase{{3, uint64_t{1} << 20}, {0, 1, 2}}, BoundCase{{100, 8}, {0, 2}}}) {
    ExecuteOptions options;
    options.debug_limits = c.limits;
    StatusOr<ExecutionResult> bounded = Execute(kChip, runs, options);
    ASSERT_TRUE(bounded.ok()) << bounded.status().message();
    ASSERT_EQ(bounded->debug_prints.size(), c.kept.size());
    EXPECT_EQ(bounded->debug_prints_dropped, 10u - c.kept.size());
    for (size_t i = 0; i < c.kept.size(); ++i) {
      EXPECT_EQ(bounded->debug_prints[i], r->debug_prints[c.kept[i]]) << i;
    }
  }
  // The duration is the same with or without the bound: dropping changes no timing.
  ExecuteOptions tight;
  tight.debug_limits = {0, 0};
  StatusOr<ExecutionResult> none = Execute(kChip, runs, tight);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->debug_prints.empty());
  EXPECT_EQ(none->debug_prints_dropped, 10u);
  EXPECT_EQ(none->duration_ps, r->duration_ps);
}

}  // namespace
}  // namespace trnsim::simulator::core
