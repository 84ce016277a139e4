// The chip model's `collective` (docs/isa.md §7.8) against a fake CollectivePort: the bytes it
// is handed (a strided HBM source, registers resolved at issue), the result written to dst at
// the port's complete_ps with the @complete updates, @read at issue, the engine moving on, a
// barrier and the core's duration covering the operation, and every failure as a status.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "simulator/collective/collective_port.h"
#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

using collective::CollectiveCall;
using collective::CollectiveKind;
using collective::CollectiveOutcome;

const ChipSpec& kChip = Trainium2Spec();
constexpr DurationPs kLatencyPs = 40'000'000;  // 40 us: far beyond the issue cost

// Doubles every fp32 element it is given; completes kLatencyPs after the arrival.
class FakePort : public collective::CollectivePort {
 public:
  StatusOr<CollectiveOutcome> Run(CollectiveCall call) override {
    calls.push_back(call);
    if (!error.ok()) return error;
    CollectiveOutcome out;
    out.output.resize(call.output_bytes + extra_bytes);
    for (size_t k = 0; k + 4 <= call.input.size() && k + 4 <= out.output.size(); k += 4) {
      float v;
      std::memcpy(&v, &call.input[k], 4);
      v *= 2;
      std::memcpy(&out.output[k], &v, 4);
    }
    out.complete_ps =
        call.arrival_ps +
        (calls.size() <= latencies_ps.size() ? latencies_ps[calls.size() - 1] : latency_ps);
    return out;
  }
  std::vector<CollectiveCall> calls;
  Status error;
  size_t extra_bytes = 0;
  DurationPs latency_ps = kLatencyPs;
  std::vector<DurationPs> latencies_ps;  // per call, before latency_ps applies
};

float F(const std::vector<uint8_t>& bytes, size_t element) {
  float v;
  std::memcpy(&v, &bytes[element * 4], 4);
  return v;
}

struct Core {
  Core() : state(isa::LimitsFor(kChip)) {
    hbm.vars[1] = std::vector<uint8_t>(4096);
    for (size_t i = 0; i < 1024; ++i) {
      const float v = float(i) + 0.5f;
      std::memcpy(&hbm.vars[1][i * 4], &v, 4);
    }
    hbm.vars[2] = std::vector<uint8_t>(4096);
  }
  void Add(const std::string& text) {
    StatusOr<isa::Program> p = isa::ParseProgram(text);
    ASSERT_TRUE(p.ok()) << p.status().message();
    programs.push_back(std::move(*p));
  }
  StatusOr<ExecutionResult> Run(collective::CollectivePort* port, ExecutionTrace* trace = nullptr) {
    CoreRun run;
    run.core = 3;
    for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
    run.state = &state;
    run.hbm = &hbm;
    ExecuteOptions o;
    o.collectives = port;
    o.trace = trace;
    return Execute(kChip, std::span<const CoreRun>(&run, 1), o);
  }
  std::vector<isa::Program> programs;
  reference::CoreState state;
  reference::VectorHbm hbm;
};

// SP: all_reduce of a strided [4, 16] fp32 source into var2 at byte 256 (chosen by r3 at issue;
// r3 changes right after), then a barrier. ACT waits for the @read update, DVE for @complete.
void AddProgram(Core& c) {
  c.Add(
      ".engine sp\n"
      "reg_set r3 = 2\n"
      "collective dst=hbm[var2 + 0 + r3*128, [4 x 64, 16 x 1]] fp32 "
      "src=hbm[var1 + 0, [4 x 128, 16 x 2]] fp32 group=4 stride=2 op0=maximum "
      "kind=all_reduce id=9 then S[0] += 1 @read then S[1] += 1 @complete\n"
      "reg_set r3 = 0\n"
      "barrier\n"
      "notify_end\n");
  c.Add(".engine act\nwait S[0] >= 1 nop\nnotify_end\n");
  c.Add(".engine dve\nwait S[1] >= 1 nop\nnotify_end\n");
}

const TraceInstruction& Find(const ExecutionTrace& t, isa::Engine engine, uint32_t pc) {
  for (const TraceInstruction& i : t.instructions)
    if (i.engine == engine && i.pc == pc) return i;
  ADD_FAILURE() << "no instruction " << pc << " of " << isa::EngineName(engine);
  static const TraceInstruction kNone;
  return kNone;
}

TEST(CollectiveExecTest, ResultLandsAtCompleteWithItsUpdates) {
  Core c;
  AddProgram(c);
  FakePort port;
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(&port, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(port.calls.size(), 1u);
  const CollectiveCall& call = port.calls[0];
  EXPECT_EQ(call.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(call.op, isa::AluOp::kMaximum);
  EXPECT_EQ(call.dtype, isa::Dtype::kFloat32);
  EXPECT_EQ(call.group, (collective::ReplicaGroupSpec{4, 2}));
  EXPECT_EQ(call.shift, 0);
  EXPECT_EQ(call.collective_id, 9u);
  EXPECT_EQ(call.physical_core, 3);
  EXPECT_EQ(call.output_bytes, 64u * 4);
  // The source in access-pattern order: row r, element i is var1 element 128r + 2i.
  ASSERT_EQ(call.input.size(), 64u * 4);
  for (size_t r = 0; r < 4; ++r)
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(F(call.input, r * 16 + i), float(128 * r + 2 * i) + 0.5f) << r << "," << i;

  // dst: byte 256 (r3 = 2 at issue) + row r at 64 elements: twice the source.
  const std::vector<uint8_t>& out = c.hbm.vars[2];
  for (size_t r = 0; r < 4; ++r)
    for (size_t i = 0; i < 16; ++i)
      EXPECT_EQ(F(out, 64 + r * 64 + i), 2 * (float(128 * r + 2 * i) + 0.5f)) << r << "," << i;
  EXPECT_EQ(F(out, 0), 0.0f);        // nothing where r3 = 0 would have put it
  EXPECT_EQ(F(out, 64 + 16), 0.0f);  // nor between the rows
  EXPECT_EQ(F(out, 64 + 255), 0.0f);

  // Timing: issue at arrival_ps; @read at once; the engine moves on; @complete, the barrier
  // and the core's end at arrival + latency.
  const TraceInstruction& cc = Find(trace, isa::Engine::kSp, 1);
  EXPECT_EQ(cc.opcode, "collective");
  EXPECT_EQ(cc.start_ps, call.arrival_ps);
  EXPECT_GT(cc.duration_ps, 0u);
  EXPECT_LT(cc.duration_ps, kLatencyPs / 10);
  const TimePs complete = call.arrival_ps + kLatencyPs;
  EXPECT_EQ(Find(trace, isa::Engine::kAct, 0).start_ps, call.arrival_ps);
  EXPECT_EQ(Find(trace, isa::Engine::kDve, 0).start_ps, complete);
  EXPECT_LT(Find(trace, isa::Engine::kSp, 2).start_ps, complete);  // reg_set after the issue
  EXPECT_GE(Find(trace, isa::Engine::kSp, 3).start_ps, complete);  // barrier
  EXPECT_GE(r->duration_ps, complete);
  EXPECT_LT(r->duration_ps, complete + kLatencyPs / 10);
  bool completion_traced = false;
  for (const TraceSyncUpdate& u : trace.sync_updates)
    if (!u.event && u.index == 1 && u.time_ps == complete && u.value == 1) completion_traced = true;
  EXPECT_TRUE(completion_traced);
  EXPECT_EQ(r->cores[0].hbm_read_bytes, 256u);
  EXPECT_EQ(r->cores[0].hbm_write_bytes, 256u);
}

TEST(CollectiveExecTest, LongerRendezvousLengthensTheCore) {
  Core a, b;
  AddProgram(a);
  AddProgram(b);
  FakePort fast, slow;
  slow.latency_ps = 3 * kLatencyPs;
  StatusOr<ExecutionResult> ra = a.Run(&fast);
  StatusOr<ExecutionResult> rb = b.Run(&slow);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(rb->duration_ps - ra->duration_ps, 2 * kLatencyPs);
}

TEST(CollectiveExecTest, CompletionNeverPrecedesIssue) {
  Core c;
  AddProgram(c);
  FakePort port;
  port.latency_ps = 0;
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(&port, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Find(trace, isa::Engine::kDve, 0).start_ps, port.calls[0].arrival_ps);
}

TEST(CollectiveExecTest, WithoutAPortItIsInvalid) {
  Core c;
  AddProgram(c);
  StatusOr<ExecutionResult> r = c.Run(nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("core 3 SP instruction 1 (collective)"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("not loaded as a collective rank (nrt_load_collectives)"),
            std::string::npos)
      << r.status().message();
}

TEST(CollectiveExecTest, PortErrorsPropagateWithTheirMessage) {
  for (const Status& error :
       {TimeoutError("collective 9: ranks 1, 2 did not arrive within 600000 ms"),
        Status(StatusCode::kExecHwErrCollectives, "collective 9: rank 5 left the rendezvous")}) {
    Core c;
    AddProgram(c);
    FakePort port;
    port.error = error;
    StatusOr<ExecutionResult> r = c.Run(&port);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), error.code());
    EXPECT_NE(r.status().message().find(error.message()), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find("core 3 SP instruction 1 (collective)"), std::string::npos)
        << r.status().message();
    EXPECT_EQ(c.hbm.vars[2], std::vector<uint8_t>(4096));  // nothing written
  }
}

TEST(CollectiveExecTest, WrongOutputSizeIsInvalid) {
  Core c;
  AddProgram(c);
  FakePort port;
  port.extra_bytes = 4;
  StatusOr<ExecutionResult> r = c.Run(&port);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("returned 260 bytes for a dst of 256 bytes"),
            std::string::npos)
      << r.status().message();
}

TEST(CollectiveExecTest, OutOfBoundsSourceFailsBeforeThePort) {
  Core c;
  c.Add(
      ".engine pool\n"
      "collective dst=hbm[var2 + 0, [1 x 0, 64 x 1]] fp32 src=hbm[var1 + 4000, [1 x 0, 64 x 1]] "
      "fp32 kind=permute\n"
      "notify_end\n");
  FakePort port;
  StatusOr<ExecutionResult> r = c.Run(&port);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("core 3 POOL instruction 0 (collective)"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("outside its memory"), std::string::npos)
      << r.status().message();
  EXPECT_TRUE(port.calls.empty());
}

TEST(CollectiveExecTest, CallsFollowIssueOrderAndCarryTheirFields) {
  Core c;
  c.Add(
      ".engine pool\n"
      "collective dst=hbm[var2 + 0, [1 x 0, 64 x 1]] fp32 src=hbm[var1 + 0, [1 x 0, 64 x 1]] "
      "fp32 kind=permute shift=-1 id=1\n"
      "collective dst=hbm[var2 + 512, [1 x 0, 64 x 1]] fp32 src=hbm[var1 + 0, [1 x 0, 16 x 1]] "
      "fp32 kind=all_gather group=4 id=2\n"
      "notify_end\n");
  FakePort port;
  StatusOr<ExecutionResult> r = c.Run(&port);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(port.calls.size(), 2u);
  EXPECT_EQ(port.calls[0].kind, CollectiveKind::kPermute);
  EXPECT_EQ(port.calls[0].shift, -1);
  EXPECT_EQ(port.calls[0].op, isa::AluOp::kBypass);
  EXPECT_EQ(port.calls[0].group, (collective::ReplicaGroupSpec{0, 1}));
  EXPECT_EQ(port.calls[1].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(port.calls[1].collective_id, 2u);
  EXPECT_EQ(port.calls[1].input.size(), 64u);
  EXPECT_EQ(port.calls[1].output_bytes, 256u);
  EXPECT_GT(port.calls[1].arrival_ps, port.calls[0].arrival_ps);  // one DMA issue later
  EXPECT_LT(port.calls[1].arrival_ps, port.calls[0].arrival_ps + kLatencyPs);
  EXPECT_GE(r->duration_ps, port.calls[1].arrival_ps + kLatencyPs);
}

TEST(CollectiveExecTest, OneEnginesCollectivesLandInIssueOrder) {
  Core c;
  c.Add(
      ".engine pool\n"
      "collective dst=hbm[var2 + 0, [1 x 0, 64 x 1]] fp32 src=hbm[var1 + 0, [1 x 0, 64 x 1]] "
      "fp32 kind=all_gather group=1 id=1 then S[1] += 1 @complete\n"
      "collective dst=hbm[var2 + 512, [1 x 0, 64 x 1]] fp32 src=hbm[var1 + 0, [1 x 0, 64 x 1]] "
      "fp32 kind=all_gather group=1 id=2 then S[2] += 1 @complete\n"
      "notify_end\n");
  c.Add(".engine act\nwait S[2] >= 1 nop\nnotify_end\n");
  c.Add(".engine dve\nwait S[1] >= 1 nop\nnotify_end\n");
  FakePort port;
  port.latencies_ps = {kLatencyPs, 1000};  // the second would finish long before the first
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = c.Run(&port, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const TimePs first = port.calls[0].arrival_ps + kLatencyPs;
  EXPECT_EQ(Find(trace, isa::Engine::kDve, 0).start_ps, first);
  EXPECT_EQ(Find(trace, isa::Engine::kAct, 0).start_ps, first);  // not arrival + 1 ns
  // Applied in issue order at the same instant: S[1] before S[2].
  int s1 = -1, s2 = -1;
  for (size_t k = 0; k < trace.sync_updates.size(); ++k) {
    if (trace.sync_updates[k].index == 1) s1 = int(k);
    if (trace.sync_updates[k].index == 2) s2 = int(k);
  }
  EXPECT_LT(s1, s2);
  EXPECT_GE(s1, 0);
}

TEST(CollectiveExecTest, TheReferenceInterpreterRefusesIt) {
  Core c;
  c.Add(
      ".engine sp\n"
      "collective dst=hbm[var2 + 0, [1 x 0, 64 x 1]] fp32 src=hbm[var1 + 0, [1 x 0, 64 x 1]] "
      "fp32 kind=permute\n"
      "notify_end\n");
  StatusOr<reference::RunResult> r = reference::Run(c.programs, c.state, c.hbm);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("collective needs the other ranks"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace trnsim::simulator::core
