// The trace an Execute reply carries (driver/remote/convert_trace.h): a round trip through the
// wire bytes with a non-default value in every field, and refusal (NRT_INVALID, naming the
// field) of traces whose enums or references are out of range.
#include "driver/remote/convert_trace.h"

#include <gtest/gtest.h>

#include <string>

namespace trnsim::driver::remote {
namespace {

namespace core = simulator::core;

core::ExecutionTrace MakeTrace() {
  core::ExecutionTrace t;
  core::TraceInstruction a;
  a.core = 3;
  a.engine = isa::Engine::kAct;
  a.pc = 17;
  a.opcode = "activation";
  a.operands = "dst=sbuf[0:128] src=psum[0:128] func=gelu";
  a.start_ps = 1'400'000;
  a.duration_ps = 350'000;
  a.wait_ps = 12'345;
  t.instructions.push_back(a);
  core::TraceInstruction b = a;
  b.engine = isa::Engine::kSp;
  b.pc = 18;
  b.waits.push_back({true, 300, {core::TraceSource::Kind::kDma, 0}});
  b.waits.push_back({false, 2, {core::TraceSource::Kind::kInstruction, 0}});
  b.waits.push_back({false, 5, {}});
  t.instructions.push_back(b);
  core::TraceDma d;
  d.core = 3;
  d.queue = 9;
  d.bytes = 65536;
  d.submit_ps = 1;
  d.start_ps = 2;
  d.end_ps = 3;
  d.source = isa::Memory::kHbm;
  d.destination = isa::Memory::kSbuf;
  d.instruction = 1;
  t.dmas.push_back(d);
  t.dma_parts.push_back({0, 0, 65536, 2, 3});
  t.dma_parts.push_back({0, 15, 0, 2, 2});
  core::TraceSyncUpdate u;
  u.core = 3;
  u.event = true;
  u.index = 255;
  u.value = 7;
  u.time_ps = 99;
  u.source = {core::TraceSource::Kind::kDma, 0};
  t.sync_updates.push_back(u);
  return t;
}

v1::ExecuteResponse::Trace ThroughWire(const core::ExecutionTrace& trace) {
  v1::ExecuteResponse::Trace message;
  ToProto(trace, &message);
  v1::ExecuteResponse::Trace parsed;
  EXPECT_TRUE(parsed.ParseFromString(message.SerializeAsString()));
  return parsed;
}

void ExpectInvalid(const v1::ExecuteResponse::Trace& message, const std::string& fragment) {
  StatusOr<core::ExecutionTrace> parsed = TraceFromProto(message);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalid);
  EXPECT_NE(parsed.status().message().find(fragment), std::string::npos)
      << parsed.status().ToString();
}

TEST(ConvertTraceTest, RoundTripKeepsEveryField) {
  const core::ExecutionTrace want = MakeTrace();
  StatusOr<core::ExecutionTrace> got = TraceFromProto(ThroughWire(want));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->instructions.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const core::TraceInstruction& g = got->instructions[i];
    const core::TraceInstruction& w = want.instructions[i];
    EXPECT_EQ(g.core, w.core);
    EXPECT_EQ(g.engine, w.engine);
    EXPECT_EQ(g.pc, w.pc);
    EXPECT_EQ(g.opcode, w.opcode);
    EXPECT_EQ(g.operands, w.operands);
    EXPECT_EQ(g.start_ps, w.start_ps);
    EXPECT_EQ(g.duration_ps, w.duration_ps);
    EXPECT_EQ(g.wait_ps, w.wait_ps);
    ASSERT_EQ(g.waits.size(), w.waits.size());
    for (size_t k = 0; k < g.waits.size(); ++k) {
      EXPECT_EQ(g.waits[k].event, w.waits[k].event);
      EXPECT_EQ(g.waits[k].index, w.waits[k].index);
      EXPECT_EQ(g.waits[k].satisfied_by.kind, w.waits[k].satisfied_by.kind);
      EXPECT_EQ(g.waits[k].satisfied_by.index, w.waits[k].satisfied_by.index);
    }
  }
  ASSERT_EQ(got->dmas.size(), 1u);
  const core::TraceDma& d = got->dmas[0];
  EXPECT_EQ(d.core, 3);
  EXPECT_EQ(d.queue, 9);
  EXPECT_EQ(d.bytes, 65536u);
  EXPECT_EQ(d.submit_ps, 1u);
  EXPECT_EQ(d.start_ps, 2u);
  EXPECT_EQ(d.end_ps, 3u);
  EXPECT_EQ(d.source, isa::Memory::kHbm);
  EXPECT_EQ(d.destination, isa::Memory::kSbuf);
  EXPECT_EQ(d.instruction, 1u);
  ASSERT_EQ(got->dma_parts.size(), 2u);
  EXPECT_EQ(got->dma_parts[0].dma, 0u);
  EXPECT_EQ(got->dma_parts[0].engine, 0);
  EXPECT_EQ(got->dma_parts[0].bytes, 65536u);
  EXPECT_EQ(got->dma_parts[0].start_ps, 2u);
  EXPECT_EQ(got->dma_parts[0].end_ps, 3u);
  EXPECT_EQ(got->dma_parts[1].engine, 15);
  EXPECT_EQ(got->dma_parts[1].bytes, 0u);
  ASSERT_EQ(got->sync_updates.size(), 1u);
  const core::TraceSyncUpdate& u = got->sync_updates[0];
  EXPECT_EQ(u.core, 3);
  EXPECT_TRUE(u.event);
  EXPECT_EQ(u.index, 255);
  EXPECT_EQ(u.value, 7u);
  EXPECT_EQ(u.time_ps, 99u);
  EXPECT_EQ(u.source.kind, core::TraceSource::Kind::kDma);
}

TEST(ConvertTraceTest, EmptyTraceRoundTrips) {
  StatusOr<core::ExecutionTrace> got = TraceFromProto(ThroughWire(core::ExecutionTrace()));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->instructions.empty() && got->dmas.empty() && got->sync_updates.empty());
  EXPECT_FALSE(got->truncated);
  EXPECT_EQ(got->dropped_events, 0u);
}

// Issue 20 F2: a trace the daemon's limits cut reaches the client marked, with its drop count.
TEST(ConvertTraceTest, TruncationRoundTrips) {
  core::ExecutionTrace want = MakeTrace();
  want.truncated = true;
  want.dropped_events = (uint64_t{1} << 33) + 5;
  StatusOr<core::ExecutionTrace> got = TraceFromProto(ThroughWire(want));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(got->truncated);
  EXPECT_EQ(got->dropped_events, want.dropped_events);
  EXPECT_EQ(got->instructions.size(), want.instructions.size());
}

TEST(ConvertTraceTest, RefusesOutOfRangeValues) {
  v1::ExecuteResponse::Trace good;
  ToProto(MakeTrace(), &good);
  ASSERT_TRUE(TraceFromProto(good).ok());

  v1::ExecuteResponse::Trace m = good;
  m.mutable_instructions(0)->set_engine(5);
  ExpectInvalid(m, "unknown engine 5 in ExecuteResponse.trace.instructions[0]");
  m = good;
  m.mutable_instructions(1)->set_core(-1);
  ExpectInvalid(m, "negative core in ExecuteResponse.trace.instructions[1]");
  m = good;
  m.mutable_instructions(1)->mutable_waits(0)->mutable_satisfied_by()->set_index(1);
  ExpectInvalid(m, "source index 1 out of range");  // only one DMA
  m = good;
  m.mutable_instructions(1)->mutable_waits(1)->mutable_satisfied_by()->set_kind(3);
  ExpectInvalid(m, "unknown source kind 3");
  m = good;
  m.mutable_instructions(1)->mutable_waits(0)->set_index(70000);
  ExpectInvalid(m, "semaphore/event index 70000");
  m = good;
  m.mutable_dmas(0)->set_instruction(2);
  ExpectInvalid(m, "issuing instruction out of range in ExecuteResponse.trace.dmas[0]");
  m = good;
  m.mutable_dmas(0)->set_source(9);
  ExpectInvalid(m, "unknown memory kind 9");
  m = good;
  m.mutable_dmas(0)->set_queue(-2);
  ExpectInvalid(m, "negative queue");
  m = good;
  m.mutable_dma_parts(1)->set_dma(1);
  ExpectInvalid(m, "transfer out of range in ExecuteResponse.trace.dma_parts[1]");
  m = good;
  m.mutable_dma_parts(0)->set_engine(64);
  ExpectInvalid(m, "DMA engine out of range in ExecuteResponse.trace.dma_parts[0]");
  m = good;
  m.mutable_dma_parts(0)->set_end_ps(1);
  ExpectInvalid(m, "end before start in ExecuteResponse.trace.dma_parts[0]");
  m = good;
  m.mutable_sync_updates(0)->mutable_source()->set_kind(1);
  m.mutable_sync_updates(0)->mutable_source()->set_index(2);
  ExpectInvalid(m, "source index 2 out of range in ExecuteResponse.trace.sync_updates[0]");
}

}  // namespace
}  // namespace trnsim::driver::remote
