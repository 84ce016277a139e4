#include "runtime/profiling/format/profile_reader.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace trnsim::runtime::profiling {
namespace {

using Json = nlohmann::json;

constexpr int kMaxCores = 1024;
constexpr int kMaxQueues = 1024;
constexpr int kMaxDmaEngines = 64;  // beyond any chip's DMA engines per core (16)
constexpr int kMaxSyncIndex = 256;  // semaphores and events per core

// Reads fields out of the parsed document. The first failure is kept (with the field's path) and
// every later read returns a neutral value (0, "", null, an empty array), so the parse functions
// run straight through and check ok() where a failure must stop them (before indexing by a
// value read). Nothing throws: every nlohmann access is type-checked first.
class FieldReader {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Records `what` unless a failure is already recorded; returns false.
  bool Fail(std::string what) {
    if (error_.empty()) error_ = std::move(what);
    return false;
  }

  const Json& Field(const Json& object, const char* key, const std::string& path) {
    if (!ok()) return Null();
    if (!object.is_object()) {
      Fail(path + ": expected an object");
      return Null();
    }
    auto it = object.find(key);
    if (it == object.end()) {
      Fail(path + "." + key + ": missing");
      return Null();
    }
    return *it;
  }

  uint64_t U64(const Json& object, const char* key, const std::string& path) {
    const Json& v = Field(object, key, path);
    if (!ok()) return 0;
    if (!v.is_number_unsigned()) {
      Fail(path + "." + key + ": expected an unsigned integer");
      return 0;
    }
    return v.get<uint64_t>();
  }

  int SmallInt(const Json& object, const char* key, const std::string& path, int limit) {
    const uint64_t v = U64(object, key, path);
    if (!ok()) return 0;
    if (v >= uint64_t(limit)) {
      Fail(path + "." + key + ": " + std::to_string(v) + " is out of range");
      return 0;
    }
    return int(v);
  }

  std::string Str(const Json& object, const char* key, const std::string& path) {
    const Json& v = Field(object, key, path);
    if (!ok()) return "";
    if (!v.is_string()) {
      Fail(path + "." + key + ": expected a string");
      return "";
    }
    return v.get<std::string>();
  }

  const Json& Array(const Json& object, const char* key, const std::string& path) {
    const Json& v = Field(object, key, path);
    if (!ok()) return EmptyArray();
    if (!v.is_array()) {
      Fail(path + "." + key + ": expected an array");
      return EmptyArray();
    }
    return v;
  }

  // "kind": "semaphore" (false) or "event" (true).
  bool SyncKind(const Json& object, const std::string& path) {
    const std::string kind = Str(object, "kind", path);
    if (!ok() || kind == "semaphore") return false;
    if (kind == "event") return true;
    return Fail(path + ".kind: \"" + kind + "\" is neither semaphore nor event");
  }

  EventSource Source(const Json& object, const char* key, const std::string& path) {
    const Json& v = Field(object, key, path);
    if (!ok() || v.is_null()) return {};
    const std::string p = path + "." + key;
    const std::string kind = Str(v, "kind", p);
    EventSource s;
    if (kind == "instruction") {
      s.kind = EventSource::Kind::kInstruction;
    } else if (kind == "dma") {
      s.kind = EventSource::Kind::kDma;
    } else if (ok()) {
      Fail(p + ".kind: \"" + kind + "\" is neither instruction nor dma");
    }
    s.index = U64(v, "index", p);
    return s;
  }

  // The position of the object's "engine" name in `engines`.
  int EngineIndex(const Json& object, const std::string& path,
                  const std::vector<std::string>& engines) {
    const std::string name = Str(object, "engine", path);
    if (!ok()) return 0;
    for (size_t e = 0; e < engines.size(); ++e)
      if (engines[e] == name) return int(e);
    Fail(path + ".engine: \"" + name + "\" is not in the file's engine list");
    return 0;
  }

 private:
  static const Json& Null() {
    static const Json null;
    return null;
  }
  static const Json& EmptyArray() {
    static const Json empty = Json::array();
    return empty;
  }

  std::string error_;
};

std::string At(const std::string& path, const char* list, size_t i) {
  return path + "." + list + "[" + std::to_string(i) + "]";
}

void ParseInstructions(FieldReader& r, const Json& events, const std::string& path,
                       const std::vector<std::string>& engines, ExecutionRecord& x) {
  const Json& insts = r.Array(events, "instructions", path);
  for (size_t i = 0; i < insts.size() && r.ok(); ++i) {
    const std::string p = At(path, "instructions", i);
    const Json& j = insts[i];
    InstructionEvent t;
    t.core = r.SmallInt(j, "core", p, kMaxCores);
    t.engine = r.EngineIndex(j, p, engines);
    t.pc = r.U64(j, "pc", p);
    t.opcode = r.Str(j, "opcode", p);
    t.operands = r.Str(j, "operands", p);
    t.start_ps = r.U64(j, "start_ps", p);
    t.duration_ps = r.U64(j, "duration_ps", p);
    t.wait_ps = r.U64(j, "wait_ps", p);
    if (t.start_ps > std::numeric_limits<uint64_t>::max() - t.duration_ps)
      r.Fail(p + ": start_ps + duration_ps overflows");
    const Json& waits = r.Array(j, "waits", p);
    for (size_t k = 0; k < waits.size() && r.ok(); ++k) {
      const std::string wp = p + ".waits[" + std::to_string(k) + "]";
      EventWait w;
      w.event = r.SyncKind(waits[k], wp);
      w.index = uint32_t(r.SmallInt(waits[k], "index", wp, kMaxSyncIndex));
      w.satisfied_by = r.Source(waits[k], "satisfied_by", wp);
      t.waits.push_back(w);
    }
    x.instructions.push_back(std::move(t));
  }
}

void ParseDmas(FieldReader& r, const Json& events, const std::string& path, ExecutionRecord& x) {
  const Json& dmas = r.Array(events, "dma_transfers", path);
  for (size_t i = 0; i < dmas.size() && r.ok(); ++i) {
    const std::string p = At(path, "dma_transfers", i);
    const Json& j = dmas[i];
    DmaEvent d;
    d.core = r.SmallInt(j, "core", p, kMaxCores);
    d.queue = r.SmallInt(j, "queue", p, kMaxQueues);
    d.bytes = r.U64(j, "bytes", p);
    d.submit_ps = r.U64(j, "submit_ps", p);
    d.start_ps = r.U64(j, "start_ps", p);
    d.end_ps = r.U64(j, "end_ps", p);
    if (d.start_ps < d.submit_ps || d.end_ps < d.start_ps)
      r.Fail(p + ": times are not submit_ps <= start_ps <= end_ps");
    d.source = r.Str(j, "source", p);
    d.destination = r.Str(j, "destination", p);
    d.instruction = r.U64(j, "instruction", p);
    if (d.instruction >= x.instructions.size()) r.Fail(p + ".instruction: no such instruction");
    if (j.is_object() && j.contains("engines")) {  // optional: older files have none
      const Json& engines = r.Array(j, "engines", p);
      for (size_t k = 0; k < engines.size() && r.ok(); ++k) {
        const std::string ep = p + ".engines[" + std::to_string(k) + "]";
        DmaEnginePart e;
        e.engine = r.SmallInt(engines[k], "engine", ep, kMaxDmaEngines);
        e.bytes = r.U64(engines[k], "bytes", ep);
        e.start_ps = r.U64(engines[k], "start_ps", ep);
        e.end_ps = r.U64(engines[k], "end_ps", ep);
        if (e.end_ps < e.start_ps) r.Fail(ep + ": end_ps is before start_ps");
        d.engines.push_back(e);
      }
    }
    x.dmas.push_back(std::move(d));
  }
}

void ParseSyncUpdates(FieldReader& r, const Json& events, const std::string& path,
                      ExecutionRecord& x) {
  const Json& updates = r.Array(events, "sync_updates", path);
  for (size_t i = 0; i < updates.size() && r.ok(); ++i) {
    const std::string p = At(path, "sync_updates", i);
    const Json& j = updates[i];
    SyncUpdateEvent u;
    u.core = r.SmallInt(j, "core", p, kMaxCores);
    u.event = r.SyncKind(j, p);
    u.index = uint32_t(r.SmallInt(j, "index", p, kMaxSyncIndex));
    u.value = r.U64(j, "value", p);
    u.time_ps = r.U64(j, "time_ps", p);
    u.source = r.Source(j, "source", p);
    x.sync_updates.push_back(u);
  }
}

// References between events must point at events that exist.
void CheckReferences(FieldReader& r, const std::string& path, const ExecutionRecord& x) {
  auto check = [&](const EventSource& s, const std::string& where) {
    if (s.kind == EventSource::Kind::kInstruction && s.index >= x.instructions.size())
      r.Fail(where + ": refers to a missing instruction");
    if (s.kind == EventSource::Kind::kDma && s.index >= x.dmas.size())
      r.Fail(where + ": refers to a missing DMA transfer");
  };
  for (size_t i = 0; i < x.instructions.size(); ++i)
    for (const EventWait& w : x.instructions[i].waits)
      check(w.satisfied_by, At(path, "instructions", i) + ".waits");
  for (size_t i = 0; i < x.sync_updates.size(); ++i)
    check(x.sync_updates[i].source, At(path, "sync_updates", i) + ".source");
}

void ParseStats(FieldReader& r, const Json& stats, const std::string& path,
                const ProfileDocument& profile, ExecutionRecord& x) {
  x.has_stats = true;
  x.duration_ps = r.U64(stats, "duration_ps", path);
  const Json& cores = r.Array(stats, "cores", path);
  for (size_t c = 0; c < cores.size() && r.ok(); ++c) {
    const std::string p = path + ".cores[" + std::to_string(c) + "]";
    CoreCounters cc;
    cc.core = r.SmallInt(cores[c], "core", p, kMaxCores);
    cc.duration_ps = r.U64(cores[c], "duration_ps", p);
    cc.hbm_read_bytes = r.U64(cores[c], "hbm_read_bytes", p);
    cc.hbm_write_bytes = r.U64(cores[c], "hbm_write_bytes", p);
    const Json& engines = r.Field(cores[c], "engines", p);
    for (int e = 0; e < isa::kEngineCount && r.ok(); ++e) {
      const std::string ep = p + ".engines";
      const Json& one = r.Field(engines, profile.engines[size_t(e)].c_str(), ep);
      const std::string op = ep + "." + profile.engines[size_t(e)];
      cc.engines[e] = {r.U64(one, "busy_ps", op), r.U64(one, "wait_ps", op),
                       r.U64(one, "instructions", op), r.U64(one, "flops", op)};
    }
    const Json& queues = r.Array(cores[c], "dma_queues", p);
    for (size_t q = 0; q < queues.size() && r.ok(); ++q) {
      const std::string qp = p + ".dma_queues[" + std::to_string(q) + "]";
      cc.queues.push_back({r.U64(queues[q], "transfers", qp), r.U64(queues[q], "bytes", qp),
                           r.U64(queues[q], "busy_ps", qp)});
    }
    x.cores.push_back(std::move(cc));
  }
}

// The header fields and the engine list: what the executions are read against.
void ParseHeader(FieldReader& r, const Json& doc, ProfileDocument& profile) {
  const std::string format = r.Str(doc, "format", "");
  if (r.ok() && format != kProfileFormat)
    r.Fail("format: \"" + format + "\" is not " + kProfileFormat);
  profile.version = r.SmallInt(doc, "version", "", 1 << 20);
  if (r.ok() && profile.version != kProfileVersion) {
    r.Fail("version " + std::to_string(profile.version) + " is not supported (" +
           std::to_string(kProfileVersion) + ")");
  }
  if (r.ok() && r.Str(doc, "time_unit", "") != kProfileTimeUnit)
    r.Fail(std::string("time_unit: expected \"") + kProfileTimeUnit + "\"");
  const Json& model = r.Field(doc, "model", "");
  profile.model_name = r.Str(model, "name", "model");
  profile.vnc = r.SmallInt(model, "vnc", "model", kMaxCores);
  const Json& device = r.Field(doc, "device", "");
  profile.chip = r.Str(device, "chip", "device");
  profile.instance = r.Str(device, "instance", "device");
  const Json& engines = r.Array(doc, "engines", "");
  if (r.ok() && engines.size() != size_t(isa::kEngineCount))
    r.Fail("engines: expected " + std::to_string(isa::kEngineCount) + " names");
  for (size_t e = 0; e < engines.size() && r.ok(); ++e) {
    if (!engines[e].is_string()) r.Fail("engines: expected strings");
    if (r.ok()) profile.engines.push_back(engines[e].get<std::string>());
  }
}

ProfileDocument ParseDocument(FieldReader& r, const Json& doc) {
  ProfileDocument profile;
  ParseHeader(r, doc, profile);
  const Json& executions = r.Array(doc, "executions", "");
  for (size_t i = 0; i < executions.size() && r.ok(); ++i) {
    const std::string p = "executions[" + std::to_string(i) + "]";
    const Json& j = executions[i];
    ExecutionRecord x;
    x.index = r.U64(j, "index", p);
    if (r.ok() && j.contains("model_name")) x.model_name = r.Str(j, "model_name", p);
    x.status = r.Str(j, "status", p);
    x.error = r.Str(j, "error", p);
    const Json& events = r.Field(j, "events", p);
    ParseInstructions(r, events, p + ".events", profile.engines, x);
    ParseDmas(r, events, p + ".events", x);
    ParseSyncUpdates(r, events, p + ".events", x);
    if (r.ok() && events.contains("truncated")) {
      const Json& truncated = r.Field(events, "truncated", p + ".events");
      if (!truncated.is_boolean()) r.Fail(p + ".events.truncated: expected true or false");
      if (r.ok()) x.truncated = truncated.get<bool>();
    }
    if (r.ok() && events.contains("dropped_events"))
      x.dropped_events = r.U64(events, "dropped_events", p + ".events");
    if (r.ok()) CheckReferences(r, p + ".events", x);
    const Json& stats = r.Field(j, "stats", p);
    if (r.ok() && !stats.is_null()) ParseStats(r, stats, p + ".stats", profile, x);
    profile.executions.push_back(std::move(x));
  }
  return profile;
}

}  // namespace

StatusOr<ProfileDocument> ParseProfile(const std::string& where, const std::string& text) {
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidError(where + ": not a JSON document");
  FieldReader reader;
  ProfileDocument profile = ParseDocument(reader, doc);
  if (!reader.ok()) return InvalidError(where + ": not a trnsim profile: " + reader.error());
  return profile;
}

StatusOr<ProfileDocument> ReadProfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidError("cannot read the profile '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseProfile(path, text.str());
}

}  // namespace trnsim::runtime::profiling
