// neuron-profile's views over profiles the runtime's writer made from real chip-model runs:
// the reader round-trips the writer, the summary's busy and wait times equal the chip model's
// counters, Perfetto flows come in pairs, and corrupted files are refused without crashing.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "driver/sim/result_conversion.h"
#include "runtime/profiling/format/profile_writer.h"
#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "tools/neuron_profile/profile.h"
#include "tools/neuron_profile/summary.h"
#include "tools/neuron_profile/trace_views.h"

namespace trnsim::neuron_profile {
namespace {

using simulator::core::CoreRun;
using simulator::core::ExecuteOptions;
using simulator::core::ExecutionTrace;

const simulator::ChipSpec& kChip = simulator::Trainium2Spec();

// A load on SP, ACT and DVE chained by semaphores, a store; run with the trace on, within
// `limits`.
runtime::profiling::ProfiledExecution RunTraced(simulator::core::TraceLimits limits = {}) {
  const char* programs[] = {
      ".engine sp\n"
      "dma_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 src=hbm[var1 + 0, [128 x 512, 512 x 1]] "
      "fp32 queue=3 then S[1] += 1 @complete\n"
      "wait S[3] >= 1 dma_copy dst=hbm[var1 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, "
      "8192 + [512 x 1]] fp32 queue=5 then S[4] += 1 @complete\n"
      "wait S[4] >= 1 notify_end\n",
      ".engine act\n"
      "wait S[1] >= 1 tensor_copy dst=sbuf[p0:128, 4096 + [512 x 1]] fp32 in=sbuf[p0:128, 0 + "
      "[512 x 1]] fp32 then S[2] += 1 @complete\nnotify_end\n",
      ".engine dve\n"
      "wait S[2] >= 1 tensor_copy dst=sbuf[p0:128, 8192 + [512 x 1]] fp32 in=sbuf[p0:128, 4096 + "
      "[512 x 1]] fp32 then S[3] += 1 @complete\nnotify_end\n"};
  // The trace holds no pointer into these: they may go when the execution is done.
  std::vector<isa::Program> parsed;
  for (const char* text : programs) parsed.push_back(isa::ParseProgram(text).value());
  reference::CoreState state(isa::LimitsFor(kChip));
  reference::VectorHbm hbm;
  hbm.vars[1] = std::vector<uint8_t>(1 << 20);
  CoreRun run;
  for (const isa::Program& p : parsed) run.programs[int(p.engine)] = &p;
  run.state = &state;
  run.hbm = &hbm;
  runtime::profiling::ProfiledExecution x;
  x.trace.limits = limits;
  ExecuteOptions options;
  options.trace = &x.trace;
  StatusOr<simulator::core::ExecutionResult> r =
      simulator::core::Execute(kChip, std::span<const CoreRun>(&run, 1), options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  // The runtime sees what a sim device returns: the driver's copy of the chip model's result.
  if (r.ok()) x.result = driver::sim::ToDriverResult(std::move(*r), 0);
  return x;
}

std::string Document() {
  runtime::profiling::ProfileHeader header{"chain", 0, "trn2", "trn2.48xlarge"};
  std::vector<runtime::profiling::ProfiledExecution> runs;
  runs.push_back(RunTraced());
  runs.back().index = 4;
  return runtime::profiling::FormatProfile(header, runs);
}

TEST(NeuronProfileViewTest, TheReaderReadsWhatTheRuntimeWrites) {
  const runtime::profiling::ProfiledExecution x = RunTraced();
  runtime::profiling::ProfileHeader header{"chain", 2, "trn2", "trn2.48xlarge"};
  StatusOr<ProfileDocument> p =
      ParseProfile("mem", runtime::profiling::FormatProfile(header, std::span(&x, 1)));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->model_name, "chain");
  EXPECT_EQ(p->vnc, 2);
  ASSERT_EQ(p->executions.size(), 1u);
  const ExecutionRecord& e = p->executions[0];
  ASSERT_EQ(e.instructions.size(), x.trace.instructions.size());
  ASSERT_EQ(e.dmas.size(), x.trace.dmas.size());
  ASSERT_EQ(e.sync_updates.size(), x.trace.sync_updates.size());
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    EXPECT_EQ(e.instructions[i].start_ps, x.trace.instructions[i].start_ps);
    EXPECT_EQ(e.instructions[i].duration_ps, x.trace.instructions[i].duration_ps);
    EXPECT_EQ(e.instructions[i].engine, int(x.trace.instructions[i].engine));
    EXPECT_EQ(e.instructions[i].opcode, x.trace.instructions[i].opcode);
  }
  EXPECT_EQ(e.dmas[0].queue, 3);
  EXPECT_EQ(e.dmas[1].queue, 5);
  EXPECT_EQ(e.dmas[1].destination, "hbm");
}

TEST(NeuronProfileViewTest, SummaryEqualsTheChipModelsCounters) {
  const runtime::profiling::ProfiledExecution x = RunTraced();
  runtime::profiling::ProfileHeader header{"chain", 0, "trn2", "trn2.48xlarge"};
  StatusOr<ProfileDocument> p =
      ParseProfile("mem", runtime::profiling::FormatProfile(header, std::span(&x, 1)));
  ASSERT_TRUE(p.ok()) << p.status().message();
  const ExecutionSummary s = Summarize(*p, p->executions[0]);
  EXPECT_EQ(s.total_ps, x.result.duration_ps);
  ASSERT_EQ(s.cores.size(), 1u);
  for (int e = 0; e < isa::kEngineCount; ++e) {
    EXPECT_EQ(s.cores[0].engines[e].busy_ps, x.result.cores[0].engines[e].busy_ps) << e;
    EXPECT_EQ(s.cores[0].engines[e].wait_ps, x.result.cores[0].engines[e].wait_ps) << e;
    EXPECT_EQ(s.cores[0].engines[e].instructions, x.result.cores[0].engines[e].instructions);
  }
  ASSERT_EQ(s.queues.size(), 2u);
  EXPECT_EQ(s.queues[0].bytes, x.result.cores[0].queues[3].bytes);
  EXPECT_EQ(s.queues[1].bytes, x.result.cores[0].queues[5].bytes);
  EXPECT_GT(s.queues[0].bytes_per_s, 0.0);
  EXPECT_EQ(s.cores[0].hbm_read_bytes, x.result.cores[0].hbm_read_bytes);
  EXPECT_EQ(s.cores[0].hbm_write_bytes, x.result.cores[0].hbm_write_bytes);
  // DMA active: the two transfers' [start, end) as one union — at least either queue's
  // streaming time, at most their sum and the total.
  const auto& d0 = x.trace.dmas[0];
  const auto& d1 = x.trace.dmas[1];
  const uint64_t overlap =
      std::min(d0.end_ps, d1.end_ps) > std::max(d0.start_ps, d1.start_ps)
          ? std::min(d0.end_ps, d1.end_ps) - std::max(d0.start_ps, d1.start_ps)
          : 0;
  EXPECT_EQ(s.cores[0].dma_active_ps,
            (d0.end_ps - d0.start_ps) + (d1.end_ps - d1.start_ps) - overlap);
  EXPECT_GE(s.cores[0].dma_active_ps, std::max(s.queues[0].streaming_ps, s.queues[1].streaming_ps));
  EXPECT_LE(s.cores[0].dma_active_ps, s.total_ps);
  EXPECT_DOUBLE_EQ(s.cores[0].dma_active_fraction,
                   double(s.cores[0].dma_active_ps) / double(s.total_ps));
  // Per DMA engine: all 16 served both transfers; their payloads add up to the queues' bytes,
  // and an engine either carried a transfer's data or only wrote its semaphore.
  ASSERT_EQ(s.dma_engines.size(), 16u);
  uint64_t engine_bytes = 0;
  for (const DmaEngineSummary& e : s.dma_engines) {
    engine_bytes += e.bytes;
    EXPECT_EQ(e.data_transfers + e.semaphore_only, 2u) << e.engine;
    EXPECT_GT(e.busy_ps, 0u);
  }
  EXPECT_EQ(engine_bytes, s.queues[0].bytes + s.queues[1].bytes);
  // DVE waited for ACT on S[2]; ACT for the load on S[1]; SP for DVE and its store.
  ASSERT_FALSE(s.stalls.empty());
  std::set<std::string> seen;
  for (const StallSummary& st : s.stalls) seen.insert(p->engines[st.engine] + " " + st.on);
  EXPECT_TRUE(seen.count("act S[1]")) << SummaryText(*p);
  EXPECT_TRUE(seen.count("dve S[2]")) << SummaryText(*p);
  for (size_t i = 1; i < s.stalls.size(); ++i)
    EXPECT_GE(s.stalls[i - 1].wait_ps, s.stalls[i].wait_ps);
}

// Issue 20 F2: a trace cut at the recorder's limits is marked in the profile file
// (events.truncated, events.dropped_events), read back, and shown by the summaries; an uncut one
// has neither field.
TEST(NeuronProfileViewTest, ATruncatedTraceIsMarkedInTheFileAndTheSummaries) {
  runtime::profiling::ProfileHeader header{"chain", 0, "trn2", "trn2.48xlarge"};
  const runtime::profiling::ProfiledExecution whole = RunTraced();
  const std::string whole_text = runtime::profiling::FormatProfile(header, std::span(&whole, 1));
  EXPECT_EQ(whole_text.find("truncated"), std::string::npos);
  EXPECT_EQ(whole_text.find("dropped_events"), std::string::npos);

  const runtime::profiling::ProfiledExecution cut = RunTraced({.max_events = 5});
  ASSERT_TRUE(cut.trace.truncated);
  const uint64_t dropped = cut.trace.dropped_events;
  EXPECT_EQ(dropped + 5, whole.trace.events());
  const std::string text = runtime::profiling::FormatProfile(header, std::span(&cut, 1));
  const nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["executions"][0]["events"]["truncated"], true);
  EXPECT_EQ(doc["executions"][0]["events"]["dropped_events"], dropped);
  StatusOr<ProfileDocument> p = ParseProfile("mem", text);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->executions[0].truncated);
  EXPECT_EQ(p->executions[0].dropped_events, dropped);
  EXPECT_NE(SummaryText(*p).find("trace truncated: " + std::to_string(dropped) +
                                 " events dropped past the recorder's limit"),
            std::string::npos)
      << SummaryText(*p);
  const nlohmann::json summary = nlohmann::json::parse(SummaryJson(*p));
  EXPECT_EQ(summary["executions"][0]["trace_truncated"], true);
  EXPECT_EQ(summary["executions"][0]["dropped_events"], dropped);

  StatusOr<ProfileDocument> q = ParseProfile("mem", whole_text);
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->executions[0].truncated);
  EXPECT_EQ(SummaryText(*q).find("truncated"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(SummaryJson(*q))["executions"][0]["trace_truncated"], false);

  // A mistyped mark is refused, naming the field.
  std::string bad = text;
  const size_t at = bad.find("\"truncated\": true");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, std::string("\"truncated\": true").size(), "\"truncated\": 1");
  StatusOr<ProfileDocument> refused = ParseProfile("mem", bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("events.truncated"), std::string::npos)
      << refused.status().message();
}

TEST(NeuronProfileViewTest, PerfettoFlowsRunFromUpdaterToWaiter) {
  StatusOr<ProfileDocument> p = ParseProfile("mem", Document());
  ASSERT_TRUE(p.ok()) << p.status().message();
  nlohmann::json trace = nlohmann::json::parse(PerfettoJson(*p));
  std::map<uint64_t, std::vector<nlohmann::json>> flows;
  size_t slices = 0;
  for (const auto& ev : trace["traceEvents"]) {
    ASSERT_TRUE(ev.contains("ph") && ev.contains("ts") && ev.contains("pid") && ev.contains("tid"));
    if (ev["ph"] == "X") {
      ++slices;
      EXPECT_GE(ev["dur"].get<double>(), 0.0);
    }
    if (ev["ph"] == "s" || ev["ph"] == "f") flows[ev["id"].get<uint64_t>()].push_back(ev);
  }
  // A slice per instruction, per transfer and per DMA engine part of each transfer (16 each).
  size_t parts = 0;
  for (const DmaEvent& d : p->executions[0].dmas) {
    EXPECT_EQ(d.engines.size(), 16u);
    parts += d.engines.size();
  }
  EXPECT_EQ(slices, p->executions[0].instructions.size() + p->executions[0].dmas.size() + parts);
  // ACT waits on S[1] (set by the load's dma_copy @complete), DVE on S[2], SP on S[3] and S[4].
  EXPECT_EQ(flows.size(), 4u);
  for (const auto& [id, pair] : flows) {
    ASSERT_EQ(pair.size(), 2u) << id;
    EXPECT_NE(pair[0]["ph"], pair[1]["ph"]);
  }
}

TEST(NeuronProfileViewTest, MalformedProfilesAreRefusedNotCrashedOn) {
  const std::string good = Document();
  ASSERT_TRUE(ParseProfile("mem", good).ok());
  for (const std::string& bad : {std::string(""), std::string("{"), std::string("[]"),
                                 std::string("null"), good.substr(0, good.size() / 2)}) {
    EXPECT_FALSE(ParseProfile("mem", bad).ok()) << bad.substr(0, 40);
  }
  // Random edits of the document: drop or retype a value anywhere. Each must parse or be
  // refused; a refusal names the file.
  std::mt19937 rng(20261130);
  const nlohmann::json doc = nlohmann::json::parse(good);
  std::vector<nlohmann::json::json_pointer> leaves;
  std::function<void(const nlohmann::json&, nlohmann::json::json_pointer)> walk =
      [&](const nlohmann::json& j, nlohmann::json::json_pointer at) {
        if (at != nlohmann::json::json_pointer()) leaves.push_back(at);
        if (j.is_object())
          for (auto it = j.begin(); it != j.end(); ++it) walk(it.value(), at / it.key());
        if (j.is_array())
          for (size_t i = 0; i < j.size(); ++i) walk(j[i], at / i);
      };
  walk(doc, nlohmann::json::json_pointer());
  const nlohmann::json replacements[] = {
      nullptr, -1, "x", 1e300, nlohmann::json::array(), uint64_t(1) << 63, 999999};
  int refused = 0;
  for (int round = 0; round < 400; ++round) {
    nlohmann::json copy = doc;
    const auto& at = leaves[rng() % leaves.size()];
    copy[at] = replacements[rng() % std::size(replacements)];
    StatusOr<ProfileDocument> p = ParseProfile("edited", copy.dump());
    if (!p.ok()) {
      ++refused;
      EXPECT_EQ(p.status().message().rfind("edited", 0), 0u) << p.status().message();
      continue;
    }
    // What parses must also view without trouble.
    EXPECT_FALSE(SummaryText(*p).empty());
    EXPECT_FALSE(PerfettoJson(*p).empty());
    EXPECT_FALSE(LegacyJson(*p).empty());
  }
  EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace trnsim::neuron_profile
