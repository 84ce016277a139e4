#include "tools/neuron_profile/summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "simulator/core/trace.h"
#include "tools/neuron_profile/interval_union.h"
#include "tools/neuron_profile/source_map.h"

namespace trnsim::neuron_profile {
namespace {

std::string StallTarget(const InstructionEvent& t) {
  if (t.waits.empty()) return "barrier";
  std::string on;
  for (const EventWait& w : t.waits) {
    if (!on.empty()) on += ", ";
    on += (w.event ? "E[" : "S[") + std::to_string(w.index) + "]";
  }
  return on;
}

// The time the spans [start, end) cover together, each instant once (sorts `spans`).
uint64_t CoveredPs(std::vector<std::pair<uint64_t, uint64_t>>& spans) {
  std::sort(spans.begin(), spans.end());
  IntervalUnion covered;
  for (auto [start, end] : spans) covered.Add(start, end);
  return covered.total();
}

CoreSummary& CoreOf(std::vector<CoreSummary>& cores, int core) {
  for (CoreSummary& c : cores)
    if (c.core == core) return c;
  cores.push_back({});
  cores.back().core = core;
  return cores.back();
}

// summary-json's "source_lines" (docs/profiling.md §5).
nlohmann::ordered_json SourceLinesJson(const ProfileDocument& profile,
                                       const std::vector<SourceLineSummary>& lines) {
  using Json = nlohmann::ordered_json;
  Json out = Json::array();
  for (const SourceLineSummary& l : lines) {
    Json engines = Json::object();
    for (int e = 0; e < isa::kEngineCount; ++e)
      engines[profile.engines[size_t(e)]] = {{"busy_ps", l.busy_ps[e]},
                                             {"instructions", l.instructions[e]}};
    Json row = {{"from_kernel", l.from_kernel}};
    if (l.from_kernel) {
      row["file"] = l.file;
      row["line"] = l.line;
      row["location"] = ShortLocation({l.file, l.line, ""});
    }
    row["calls"] = l.calls;
    row["engines"] = std::move(engines);
    row["wait_ps"] = l.wait_ps;
    row["dma"] = {{"transfers", l.dma_transfers},
                  {"bytes", l.dma_bytes},
                  {"streaming_ps", l.dma_streaming_ps}};
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

ExecutionSummary Summarize(const ProfileDocument& profile, const ExecutionRecord& x) {
  ExecutionSummary s;
  s.index = x.index;
  s.status = x.status;
  s.truncated = x.truncated;
  s.dropped_events = x.dropped_events;
  // Cores in the stats' order when there are stats, else in order of appearance.
  for (const CoreCounters& c : x.cores) CoreOf(s.cores, c.core);
  uint64_t last_end = 0;
  std::map<std::pair<int, int>, IntervalUnion> busy;  // (core, engine)
  std::map<std::tuple<int, int, std::string>, StallSummary> stalls;
  for (const InstructionEvent& t : x.instructions) {
    CoreSummary& c = CoreOf(s.cores, t.core);
    EngineSummary& e = c.engines[t.engine];
    busy[{t.core, t.engine}].Add(t.start_ps, t.start_ps + t.duration_ps);
    e.wait_ps += t.wait_ps;
    // A table load is engine work, not an instruction.
    if (t.pc != simulator::core::kSegmentPc) e.instructions++;
    if (t.opcode == "multiply_moving") e.matmul_instructions++;
    last_end = std::max(last_end, t.start_ps + t.duration_ps);
    if (t.wait_ps > 0) {
      StallSummary& st = stalls[{t.core, t.engine, StallTarget(t)}];
      st.core = t.core;
      st.engine = t.engine;
      st.on = StallTarget(t);
      st.wait_ps += t.wait_ps;
      st.instructions++;
    }
  }
  std::map<std::pair<int, int>, QueueSummary> queues;
  std::map<std::pair<int, int>, std::vector<std::pair<uint64_t, uint64_t>>> spans;
  std::map<int, std::vector<std::pair<uint64_t, uint64_t>>> streamed;  // per core: [start, end)
  for (const DmaEvent& d : x.dmas) {
    streamed[d.core].push_back({d.start_ps, d.end_ps});
    QueueSummary& q = queues[{d.core, d.queue}];
    q.core = d.core;
    q.queue = d.queue;
    q.transfers++;
    q.bytes += d.bytes;
    spans[{d.core, d.queue}].push_back({d.start_ps, d.end_ps});
    CoreSummary& c = CoreOf(s.cores, d.core);
    if (d.source == "hbm") c.hbm_read_bytes += d.bytes;
    if (d.destination == "hbm") c.hbm_write_bytes += d.bytes;
    last_end = std::max(last_end, d.end_ps);
  }
  std::map<std::pair<int, int>, DmaEngineSummary> dma_engines;
  std::map<std::pair<int, int>, std::vector<std::pair<uint64_t, uint64_t>>> engine_spans;
  for (const DmaEvent& d : x.dmas) {
    for (const DmaEnginePart& p : d.engines) {
      DmaEngineSummary& e = dma_engines[{d.core, p.engine}];
      e.core = d.core;
      e.engine = p.engine;
      e.bytes += p.bytes;
      (p.bytes > 0 ? e.data_transfers : e.semaphore_only)++;
      engine_spans[{d.core, p.engine}].push_back({p.start_ps, p.end_ps});
    }
  }
  for (auto& [key, e] : dma_engines) {
    auto& list = engine_spans[key];
    e.busy_ps = CoveredPs(list);
    s.dma_engines.push_back(e);
  }
  s.total_ps = x.has_stats ? x.duration_ps : last_end;
  for (CoreSummary& c : s.cores) {
    auto& list = streamed[c.core];
    c.dma_active_ps = CoveredPs(list);
    c.dma_active_fraction = s.total_ps == 0 ? 0.0 : double(c.dma_active_ps) / double(s.total_ps);
    for (int e = 0; e < isa::kEngineCount; ++e) {
      auto it = busy.find({c.core, e});
      c.engines[e].busy_ps = it == busy.end() ? 0 : it->second.total();
      c.engines[e].busy_fraction =
          s.total_ps == 0 ? 0.0 : double(c.engines[e].busy_ps) / double(s.total_ps);
    }
  }
  for (auto& [key, q] : queues) {
    auto& list = spans[key];
    q.streaming_ps = CoveredPs(list);
    q.bytes_per_s = q.streaming_ps == 0 ? 0.0 : double(q.bytes) * 1e12 / double(q.streaming_ps);
    s.queues.push_back(q);
  }
  for (auto& [key, st] : stalls) s.stalls.push_back(st);
  std::stable_sort(
      s.stalls.begin(), s.stalls.end(),
      [](const StallSummary& a, const StallSummary& b) { return a.wait_ps > b.wait_ps; });
  if (s.stalls.size() > kMaxStalls) s.stalls.resize(kMaxStalls);
  s.lines = SummarizeSourceLines(profile, x);
  return s;
}

std::string SummaryText(const ProfileDocument& profile) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof(line), "model %s (vnc %d) on %s (%s): %zu execution(s)\n",
                profile.model_name.c_str(), profile.vnc, profile.instance.c_str(),
                profile.chip.c_str(), profile.executions.size());
  out += line;
  for (const ExecutionRecord& x : profile.executions) {
    const ExecutionSummary s = Summarize(profile, x);
    std::snprintf(line, sizeof(line), "\nexecution %llu: %s, total_time %.9f s (%.3f us)\n",
                  (unsigned long long)s.index, s.status.c_str(), double(s.total_ps) / 1e12,
                  double(s.total_ps) / 1e6);
    out += line;
    if (s.truncated) {
      std::snprintf(line, sizeof(line),
                    "  trace truncated: %llu events dropped past the recorder's limit; busy "
                    "times and counts below cover the recorded part\n",
                    (unsigned long long)s.dropped_events);
      out += line;
    }
    for (const CoreSummary& c : s.cores) {
      std::snprintf(line, sizeof(line),
                    "  core %d  (HBM read %llu B, write %llu B; DMA active %.3f us, %.2f%%)\n",
                    c.core, (unsigned long long)c.hbm_read_bytes,
                    (unsigned long long)c.hbm_write_bytes, double(c.dma_active_ps) / 1e6,
                    100.0 * c.dma_active_fraction);
      out += line;
      for (int e = 0; e < isa::kEngineCount; ++e) {
        const EngineSummary& es = c.engines[e];
        std::snprintf(
            line, sizeof(line),
            "    %-5s busy %6.2f%%  %12.3f us busy  %12.3f us waiting  %8llu instructions\n",
            EngineLabel(profile, e).c_str(), 100.0 * es.busy_fraction, double(es.busy_ps) / 1e6,
            double(es.wait_ps) / 1e6, (unsigned long long)es.instructions);
        out += line;
      }
    }
    if (!s.queues.empty()) out += "  DMA queues\n";
    for (const QueueSummary& q : s.queues) {
      std::snprintf(line, sizeof(line),
                    "    core %d queue %2d  %6llu transfers  %12llu B  %10.3f us  %8.2f GB/s\n",
                    q.core, q.queue, (unsigned long long)q.transfers, (unsigned long long)q.bytes,
                    double(q.streaming_ps) / 1e6, q.bytes_per_s / 1e9);
      out += line;
    }
    if (!s.dma_engines.empty()) out += "  DMA engines\n";
    for (const DmaEngineSummary& e : s.dma_engines) {
      std::snprintf(line, sizeof(line),
                    "    core %d DMA-E%-2d  %12llu B  %10.3f us busy  %6llu with data  %6llu "
                    "semaphore only\n",
                    e.core, e.engine, (unsigned long long)e.bytes, double(e.busy_ps) / 1e6,
                    (unsigned long long)e.data_transfers, (unsigned long long)e.semaphore_only);
      out += line;
    }
    if (!s.stalls.empty()) out += "  dominant stalls\n";
    for (const StallSummary& st : s.stalls) {
      std::snprintf(line, sizeof(line),
                    "    core %d %-5s waited %12.3f us on %s (%llu instructions)\n", st.core,
                    EngineLabel(profile, st.engine).c_str(), double(st.wait_ps) / 1e6,
                    st.on.c_str(), (unsigned long long)st.instructions);
      out += line;
    }
    out += SourceLinesText(profile, s.lines);
  }
  return out;
}

std::string SummaryJson(const ProfileDocument& profile) {
  using Json = nlohmann::ordered_json;
  Json list = Json::array();
  for (const ExecutionRecord& x : profile.executions) {
    const ExecutionSummary s = Summarize(profile, x);
    Json cores = Json::array();
    for (const CoreSummary& c : s.cores) {
      Json engines = Json::object();
      for (int e = 0; e < isa::kEngineCount; ++e) {
        const EngineSummary& es = c.engines[e];
        engines[profile.engines[size_t(e)]] = {{"busy_ps", es.busy_ps},
                                               {"busy_percent", 100.0 * es.busy_fraction},
                                               {"wait_ps", es.wait_ps},
                                               {"instructions", es.instructions},
                                               {"matmul_instructions", es.matmul_instructions}};
      }
      cores.push_back({{"core", c.core},
                       {"hbm_read_bytes", c.hbm_read_bytes},
                       {"hbm_write_bytes", c.hbm_write_bytes},
                       {"dma_active_ps", c.dma_active_ps},
                       {"dma_active_percent", 100.0 * c.dma_active_fraction},
                       {"engines", std::move(engines)}});
    }
    Json queues = Json::array();
    for (const QueueSummary& q : s.queues)
      queues.push_back({{"core", q.core},
                        {"queue", q.queue},
                        {"transfers", q.transfers},
                        {"bytes", q.bytes},
                        {"streaming_ps", q.streaming_ps},
                        {"bytes_per_s", q.bytes_per_s}});
    Json dma_engines = Json::array();
    for (const DmaEngineSummary& e : s.dma_engines)
      dma_engines.push_back({{"core", e.core},
                             {"engine", e.engine},
                             {"busy_ps", e.busy_ps},
                             {"bytes", e.bytes},
                             {"data_transfers", e.data_transfers},
                             {"semaphore_only", e.semaphore_only}});
    Json stalls = Json::array();
    for (const StallSummary& st : s.stalls)
      stalls.push_back({{"core", st.core},
                        {"engine", profile.engines[size_t(st.engine)]},
                        {"on", st.on},
                        {"wait_ps", st.wait_ps},
                        {"instructions", st.instructions}});
    Json run = {{"execution", s.index},
                {"status", s.status},
                {"total_time_ps", s.total_ps},
                {"total_time", double(s.total_ps) / 1e12},
                {"trace_truncated", s.truncated},
                {"dropped_events", s.dropped_events},
                {"cores", std::move(cores)},
                {"dma_queues", std::move(queues)},
                {"dma_engines", std::move(dma_engines)},
                {"stalls", std::move(stalls)}};
    if (!s.lines.empty()) run["source_lines"] = SourceLinesJson(profile, s.lines);
    list.push_back(std::move(run));
  }
  Json doc = {{"model", profile.model_name},
              {"vnc", profile.vnc},
              {"chip", profile.chip},
              {"instance", profile.instance},
              {"executions", std::move(list)}};
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace trnsim::neuron_profile
