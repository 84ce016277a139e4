#include "runtime/profiling/format/profile_writer.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "simulator/isa/access_pattern.h"
#include "simulator/isa/engine.h"

namespace trnsim::runtime::profiling {
namespace {

using Json = nlohmann::ordered_json;
using simulator::core::ExecutionTrace;
using simulator::core::TraceSource;

const char* SourceKind(TraceSource::Kind kind) {
  switch (kind) {
    case TraceSource::Kind::kInstruction:
      return "instruction";
    case TraceSource::Kind::kDma:
      return "dma";
    case TraceSource::Kind::kNone:
      break;
  }
  return "none";
}

Json Source(const TraceSource& source) {
  if (source.kind == TraceSource::Kind::kNone) return nullptr;
  return Json{{"kind", SourceKind(source.kind)}, {"index", source.index}};
}

Json Stats(const driver::ExecutionResult& result) {
  Json cores = Json::array();
  for (const driver::CoreStats& c : result.cores) {
    Json engines = Json::object();
    for (int e = 0; e < isa::kEngineCount; ++e) {
      const driver::EngineStats& s = c.engines[e];
      engines[std::string(isa::EngineName(isa::Engine(e)))] = {{"busy_ps", s.busy_ps},
                                                               {"wait_ps", s.wait_ps},
                                                               {"instructions", s.instructions},
                                                               {"flops", s.flops}};
    }
    Json queues = Json::array();
    for (const driver::QueueStats& q : c.queues)
      queues.push_back({{"transfers", q.transfers}, {"bytes", q.bytes}, {"busy_ps", q.busy_ps}});
    cores.push_back({{"core", c.core},
                     {"duration_ps", c.duration_ps},
                     {"instructions", c.instructions},
                     {"hbm_read_bytes", c.hbm_read_bytes},
                     {"hbm_write_bytes", c.hbm_write_bytes},
                     {"engines", std::move(engines)},
                     {"dma_queues", std::move(queues)}});
  }
  return {{"duration_ps", result.duration_ps},
          {"simulator_events", result.events},
          {"cores", std::move(cores)}};
}

Json Events(const ExecutionTrace& trace) {
  Json instructions = Json::array();
  for (const simulator::core::TraceInstruction& t : trace.instructions) {
    Json waits = Json::array();
    for (const simulator::core::TraceWait& w : t.waits)
      waits.push_back({{"kind", w.event ? "event" : "semaphore"},
                       {"index", w.index},
                       {"satisfied_by", Source(w.satisfied_by)}});
    instructions.push_back({{"core", t.core},
                            {"engine", std::string(isa::EngineName(t.engine))},
                            {"pc", t.pc},
                            {"opcode", t.opcode},
                            {"operands", t.operands},
                            {"start_ps", t.start_ps},
                            {"duration_ps", t.duration_ps},
                            {"wait_ps", t.wait_ps},
                            {"waits", std::move(waits)}});
  }
  // Each transfer's DMA engines (docs/profiling.md §2): what every engine did for it.
  std::vector<Json> parts(trace.dmas.size(), Json::array());
  for (const simulator::core::TraceDmaPart& p : trace.dma_parts)
    if (p.dma < parts.size())
      parts[p.dma].push_back({{"engine", p.engine},
                              {"bytes", p.bytes},
                              {"start_ps", p.start_ps},
                              {"end_ps", p.end_ps}});
  Json dmas = Json::array();
  for (size_t i = 0; i < trace.dmas.size(); ++i) {
    const simulator::core::TraceDma& d = trace.dmas[i];
    dmas.push_back({{"core", d.core},
                    {"queue", d.queue},
                    {"bytes", d.bytes},
                    {"submit_ps", d.submit_ps},
                    {"start_ps", d.start_ps},
                    {"end_ps", d.end_ps},
                    {"source", std::string(isa::MemoryName(d.source))},
                    {"destination", std::string(isa::MemoryName(d.destination))},
                    {"instruction", d.instruction},
                    {"engines", std::move(parts[i])}});
  }
  Json updates = Json::array();
  for (const simulator::core::TraceSyncUpdate& u : trace.sync_updates)
    updates.push_back({{"core", u.core},
                       {"kind", u.event ? "event" : "semaphore"},
                       {"index", u.index},
                       {"value", u.value},
                       {"time_ps", u.time_ps},
                       {"source", Source(u.source)}});
  Json events = {{"instructions", std::move(instructions)},
                 {"dma_transfers", std::move(dmas)},
                 {"sync_updates", std::move(updates)}};
  // Only in a truncated trace (simulator/core/trace.h, TraceLimits), so others stay as they were.
  if (trace.truncated) {
    events["truncated"] = true;
    events["dropped_events"] = trace.dropped_events;
  }
  return events;
}

}  // namespace

std::string FormatProfile(const ProfileHeader& header,
                          std::span<const ProfiledExecution> executions) {
  Json doc;
  doc["format"] = kProfileFormat;
  doc["version"] = kProfileVersion;
  doc["time_unit"] = kProfileTimeUnit;
  doc["model"] = {{"name", header.model_name}, {"vnc", header.vnc}};
  doc["device"] = {{"chip", header.chip}, {"instance", header.instance}};
  if (header.session_id != 0) doc["session_id"] = header.session_id;
  Json engines = Json::array();
  for (int e = 0; e < isa::kEngineCount; ++e) engines.push_back(isa::EngineName(isa::Engine(e)));
  doc["engines"] = std::move(engines);
  Json list = Json::array();
  for (const ProfiledExecution& x : executions) {
    Json one = {{"index", x.index},
                {"status", x.status.ok() ? "ok" : StatusCodeName(x.status.code())},
                {"error", x.status.ok() ? "" : x.status.message()}};
    if (x.exec_id != 0) one["exec_id"] = x.exec_id;
    if (!x.model_name.empty()) one["model_name"] = x.model_name;
    one["stats"] = x.status.ok() ? Stats(x.result) : Json(nullptr);
    one["events"] = Events(x.trace);
    list.push_back(std::move(one));
  }
  doc["executions"] = std::move(list);
  // Names come from NEFFs: replace invalid UTF-8 rather than throw.
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Status WriteProfile(const std::string& path, const ProfileHeader& header,
                    std::span<const ProfiledExecution> executions) {
  const std::string text = FormatProfile(header, executions);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidError("cannot write the profile '" + path + "': " + std::strerror(errno));
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  if (!out) return InvalidError("cannot write the profile '" + path + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace trnsim::runtime::profiling
