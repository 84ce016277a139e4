#include "tools/neuron_profile/trace_views.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tools/neuron_profile/summary.h"

namespace trnsim::neuron_profile {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kDmaTidBase = 100;        // thread ids: engines 1..5, DMA queue q at 100 + q,
constexpr int kDmaEngineTidBase = 200;  // DMA engine k at 200 + k

double Us(uint64_t ps) { return double(ps) / 1e6; }

int Pid(size_t execution, int core) { return int(execution) * 64 + core + 1; }
int EngineTid(int engine) { return engine + 1; }

// AWS's instruction field nki_source_location ("file.py:42") and trnsim's nki_api, for an
// instruction made by a kernel line (source_map.h); nothing otherwise.
void AddSource(const ProfileDocument& profile, int source, Json& row) {
  if (source < 0) return;
  const SourceLocation& s = profile.sources[size_t(source)];
  row["nki_source_location"] = s.file + ":" + std::to_string(s.line);
  row["nki_api"] = s.api;
}

Json Meta(const char* what, int pid, int tid, const std::string& name) {
  Json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"ts", 0}};
  m["args"] = {{"name", name}};
  return m;
}

}  // namespace

std::string PerfettoJson(const ProfileDocument& profile) {
  Json events = Json::array();
  uint64_t next_flow = 1;
  for (size_t xi = 0; xi < profile.executions.size(); ++xi) {
    const ExecutionRecord& x = profile.executions[xi];
    std::set<int> cores;
    std::set<std::pair<int, int>> queues;
    for (const InstructionEvent& t : x.instructions) cores.insert(t.core);
    for (const DmaEvent& d : x.dmas) {
      cores.insert(d.core);
      queues.insert({d.core, d.queue});
    }
    for (int core : cores) {
      const int pid = Pid(xi, core);
      events.push_back(
          Meta("process_name", pid, 0,
               "execution " + std::to_string(x.index) + " core " + std::to_string(core)));
      Json sort = {
          {"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"ts", 0}};
      sort["args"] = {{"sort_index", pid}};
      events.push_back(std::move(sort));
      for (int e = 0; e < isa::kEngineCount; ++e)
        events.push_back(Meta("thread_name", pid, EngineTid(e), EngineLabel(profile, e)));
    }
    for (auto [core, queue] : queues)
      events.push_back(Meta("thread_name", Pid(xi, core), kDmaTidBase + queue,
                            "DMA queue " + std::to_string(queue)));
    std::set<std::pair<int, int>> dma_engines;
    for (const DmaEvent& d : x.dmas)
      for (const DmaEnginePart& p : d.engines) dma_engines.insert({d.core, p.engine});
    for (auto [core, engine] : dma_engines)
      events.push_back(Meta("thread_name", Pid(xi, core), kDmaEngineTidBase + engine,
                            "DMA-E" + std::to_string(engine)));

    for (size_t i = 0; i < x.instructions.size(); ++i) {
      const InstructionEvent& t = x.instructions[i];
      Json slice = {{"ph", "X"},
                    {"name", t.opcode},
                    {"cat", "instruction"},
                    {"pid", Pid(xi, t.core)},
                    {"tid", EngineTid(t.engine)},
                    {"ts", Us(t.start_ps)},
                    {"dur", Us(t.duration_ps)}};
      slice["args"] = {{"pc", t.pc}, {"operands", t.operands}, {"wait_ps", t.wait_ps}};
      AddSource(profile, t.source, slice["args"]);
      events.push_back(std::move(slice));
    }
    for (const DmaEvent& d : x.dmas) {
      Json slice = {
          {"ph", "X"},
          {"name", d.source + "->" + d.destination + " " + std::to_string(d.bytes) + " B"},
          {"cat", "dma"},
          {"pid", Pid(xi, d.core)},
          {"tid", kDmaTidBase + d.queue},
          {"ts", Us(d.start_ps)},
          {"dur", Us(d.end_ps - d.start_ps)}};
      slice["args"] = {{"bytes", d.bytes},
                       {"submit_us", Us(d.submit_ps)},
                       {"instruction_pc", x.instructions[d.instruction].pc}};
      AddSource(profile, x.instructions[d.instruction].source, slice["args"]);
      events.push_back(std::move(slice));
      for (const DmaEnginePart& p : d.engines) {
        Json part = {
            {"ph", "X"},
            {"name", p.bytes == 0 ? std::string("semaphore") : std::to_string(p.bytes) + " B"},
            {"cat", "dma_engine"},
            {"pid", Pid(xi, d.core)},
            {"tid", kDmaEngineTidBase + p.engine},
            {"ts", Us(p.start_ps)},
            {"dur", Us(p.end_ps - p.start_ps)}};
        part["args"] = {{"bytes", p.bytes}, {"queue", d.queue}};
        events.push_back(std::move(part));
      }
    }
    // Flow arrows: updater slice -> waiting instruction slice.
    for (const InstructionEvent& t : x.instructions) {
      for (const EventWait& w : t.waits) {
        const EventSource& s = w.satisfied_by;
        if (s.kind == EventSource::Kind::kNone) continue;
        const std::string name = (w.event ? "E[" : "S[") + std::to_string(w.index) + "]";
        Json start = {{"ph", "s"}, {"name", name}, {"cat", "sync"}, {"id", next_flow}};
        if (s.kind == EventSource::Kind::kInstruction) {
          const InstructionEvent& from = x.instructions[s.index];
          start["pid"] = Pid(xi, from.core);
          start["tid"] = EngineTid(from.engine);
          start["ts"] = Us(from.start_ps);
        } else {
          const DmaEvent& from = x.dmas[s.index];
          start["pid"] = Pid(xi, from.core);
          start["tid"] = kDmaTidBase + from.queue;
          start["ts"] = Us(from.start_ps);
        }
        events.push_back(std::move(start));
        events.push_back({{"ph", "f"},
                          {"bp", "e"},
                          {"name", name},
                          {"cat", "sync"},
                          {"id", next_flow},
                          {"pid", Pid(xi, t.core)},
                          {"tid", EngineTid(t.engine)},
                          {"ts", Us(t.start_ps)}});
        ++next_flow;
      }
    }
  }
  Json doc = {{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}};
  doc["otherData"] = {{"model", profile.model_name},
                      {"chip", profile.chip},
                      {"instance", profile.instance},
                      {"source", "trnsim neuron-profile"}};
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string LegacyJson(const ProfileDocument& profile) {
  Json summary = Json::array(), instructions = Json::array(), dmas = Json::array(),
       dma_engines = Json::array();
  for (const ExecutionRecord& x : profile.executions) {
    const ExecutionSummary s = Summarize(profile, x);
    summary.push_back({{"execution", x.index},
                       {"nc_idx", profile.vnc},
                       {"total_time", double(s.total_ps) / 1e12},
                       {"event_count", x.instructions.size() + x.dmas.size()},
                       {"instruction_count", x.instructions.size()},
                       {"dma_count", x.dmas.size()}});
    for (const InstructionEvent& t : x.instructions) {
      Json row = {{"execution", x.index},
                  {"timestamp", double(t.start_ps) / 1e3},
                  {"duration", double(t.duration_ps) / 1e3},
                  {"label", EngineLabel(profile, t.engine)},
                  {"pcore_idx", t.core},
                  {"pc", t.pc},
                  {"opcode", t.opcode},
                  {"operands", t.operands},
                  {"evt_wait_time_ns", double(t.wait_ps) / 1e3}};
      AddSource(profile, t.source, row);
      instructions.push_back(std::move(row));
    }
    for (const DmaEvent& d : x.dmas) {
      Json row = {{"execution", x.index},
                  {"timestamp", double(d.start_ps) / 1e3},
                  {"duration", double(d.end_ps - d.start_ps) / 1e3},
                  {"pcore_idx", d.core},
                  {"queue_idx", d.queue},
                  {"transfer_bytes", d.bytes},
                  {"source", d.source},
                  {"destination", d.destination}};
      AddSource(profile, x.instructions[d.instruction].source, row);
      dmas.push_back(std::move(row));
      // One row per DMA engine's part, as the device profile shows DMA operations per engine;
      // dma_id is the transfer's index among this execution's "dma" rows.
      for (const DmaEnginePart& p : d.engines)
        dma_engines.push_back({{"execution", x.index},
                               {"timestamp", double(p.start_ps) / 1e3},
                               {"duration", double(p.end_ps - p.start_ps) / 1e3},
                               {"pcore_idx", d.core},
                               {"dma_engine", p.engine},
                               {"queue_idx", d.queue},
                               {"transfer_bytes", p.bytes},
                               {"dma_id", size_t(&d - x.dmas.data())}});
    }
  }
  Json doc = {{"summary", std::move(summary)},
              {"instruction", std::move(instructions)},
              {"dma", std::move(dmas)},
              {"dma_engine", std::move(dma_engines)}};
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace trnsim::neuron_profile
