#include "tools/neuron_profile/profile.h"

#include <cctype>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace trnsim::neuron_profile {
namespace {

using Json = nlohmann::json;

// A field that is missing or of the wrong type: carries the field's path.
struct BadField {
  std::string what;
};

const Json& Field(const Json& object, const char* key, const std::string& path) {
  if (!object.is_object()) throw BadField{path + ": expected an object"};
  auto it = object.find(key);
  if (it == object.end()) throw BadField{path + "." + key + ": missing"};
  return *it;
}

uint64_t U64(const Json& object, const char* key, const std::string& path) {
  const Json& v = Field(object, key, path);
  if (!v.is_number_unsigned()) throw BadField{path + "." + key + ": expected an unsigned integer"};
  return v.get<uint64_t>();
}

int SmallInt(const Json& object, const char* key, const std::string& path, int limit) {
  const uint64_t v = U64(object, key, path);
  if (v >= uint64_t(limit)) {
    throw BadField{path + "." + key + ": " + std::to_string(v) + " is out of range"};
  }
  return int(v);
}

std::string Str(const Json& object, const char* key, const std::string& path) {
  const Json& v = Field(object, key, path);
  if (!v.is_string()) throw BadField{path + "." + key + ": expected a string"};
  return v.get<std::string>();
}

const Json& Array(const Json& object, const char* key, const std::string& path) {
  const Json& v = Field(object, key, path);
  if (!v.is_array()) throw BadField{path + "." + key + ": expected an array"};
  return v;
}

bool SyncKind(const Json& object, const std::string& path) {
  const std::string kind = Str(object, "kind", path);
  if (kind == "semaphore") return false;
  if (kind == "event") return true;
  throw BadField{path + ".kind: \"" + kind + "\" is neither semaphore nor event"};
}

Source ParseSource(const Json& object, const char* key, const std::string& path) {
  const Json& v = Field(object, key, path);
  if (v.is_null()) return {};
  const std::string p = path + "." + key;
  const std::string kind = Str(v, "kind", p);
  Source s;
  if (kind == "instruction") {
    s.kind = Source::Kind::kInstruction;
  } else if (kind == "dma") {
    s.kind = Source::Kind::kDma;
  } else {
    throw BadField{p + ".kind: \"" + kind + "\" is neither instruction nor dma"};
  }
  s.index = U64(v, "index", p);
  return s;
}

constexpr int kMaxCores = 1024;
constexpr int kMaxQueues = 1024;
constexpr int kMaxDmaEngines = 64;  // beyond any chip's DMA engines per core (16)

int EngineIndex(const Json& object, const std::string& path,
                const std::vector<std::string>& engines) {
  const std::string name = Str(object, "engine", path);
  for (size_t e = 0; e < engines.size(); ++e)
    if (engines[e] == name) return int(e);
  throw BadField{path + ".engine: \"" + name + "\" is not in the file's engine list"};
}

void ParseEvents(const Json& events, const std::string& path,
                 const std::vector<std::string>& engines, Execution& x) {
  const Json& insts = Array(events, "instructions", path);
  for (size_t i = 0; i < insts.size(); ++i) {
    const std::string p = path + ".instructions[" + std::to_string(i) + "]";
    const Json& j = insts[i];
    Instruction t;
    t.core = SmallInt(j, "core", p, kMaxCores);
    t.engine = EngineIndex(j, p, engines);
    t.pc = U64(j, "pc", p);
    t.opcode = Str(j, "opcode", p);
    t.operands = Str(j, "operands", p);
    t.start_ps = U64(j, "start_ps", p);
    t.duration_ps = U64(j, "duration_ps", p);
    t.wait_ps = U64(j, "wait_ps", p);
    if (t.start_ps > std::numeric_limits<uint64_t>::max() - t.duration_ps)
      throw BadField{p + ": start_ps + duration_ps overflows"};
    const Json& waits = Array(j, "waits", p);
    for (size_t k = 0; k < waits.size(); ++k) {
      const std::string wp = p + ".waits[" + std::to_string(k) + "]";
      Wait w;
      w.event = SyncKind(waits[k], wp);
      w.index = uint32_t(SmallInt(waits[k], "index", wp, 256));
      w.satisfied_by = ParseSource(waits[k], "satisfied_by", wp);
      t.waits.push_back(w);
    }
    x.instructions.push_back(std::move(t));
  }
  const Json& dmas = Array(events, "dma_transfers", path);
  for (size_t i = 0; i < dmas.size(); ++i) {
    const std::string p = path + ".dma_transfers[" + std::to_string(i) + "]";
    const Json& j = dmas[i];
    Dma d;
    d.core = SmallInt(j, "core", p, kMaxCores);
    d.queue = SmallInt(j, "queue", p, kMaxQueues);
    d.bytes = U64(j, "bytes", p);
    d.submit_ps = U64(j, "submit_ps", p);
    d.start_ps = U64(j, "start_ps", p);
    d.end_ps = U64(j, "end_ps", p);
    if (d.start_ps < d.submit_ps || d.end_ps < d.start_ps)
      throw BadField{p + ": times are not submit_ps <= start_ps <= end_ps"};
    d.source = Str(j, "source", p);
    d.destination = Str(j, "destination", p);
    d.instruction = U64(j, "instruction", p);
    if (d.instruction >= x.instructions.size())
      throw BadField{p + ".instruction: no such instruction"};
    if (j.contains("engines")) {  // optional: files written before the per-engine model
      const Json& engines = Array(j, "engines", p);
      for (size_t k = 0; k < engines.size(); ++k) {
        const std::string ep = p + ".engines[" + std::to_string(k) + "]";
        DmaEnginePart e;
        e.engine = SmallInt(engines[k], "engine", ep, kMaxDmaEngines);
        e.bytes = U64(engines[k], "bytes", ep);
        e.start_ps = U64(engines[k], "start_ps", ep);
        e.end_ps = U64(engines[k], "end_ps", ep);
        if (e.end_ps < e.start_ps) throw BadField{ep + ": end_ps is before start_ps"};
        d.engines.push_back(e);
      }
    }
    x.dmas.push_back(std::move(d));
  }
  const Json& updates = Array(events, "sync_updates", path);
  for (size_t i = 0; i < updates.size(); ++i) {
    const std::string p = path + ".sync_updates[" + std::to_string(i) + "]";
    const Json& j = updates[i];
    SyncUpdate u;
    u.core = SmallInt(j, "core", p, kMaxCores);
    u.event = SyncKind(j, p);
    u.index = uint32_t(SmallInt(j, "index", p, 256));
    u.value = U64(j, "value", p);
    u.time_ps = U64(j, "time_ps", p);
    u.source = ParseSource(j, "source", p);
    x.sync_updates.push_back(u);
  }
  // References between events must point at events that exist.
  auto check = [&](const Source& s, const std::string& where) {
    if (s.kind == Source::Kind::kInstruction && s.index >= x.instructions.size())
      throw BadField{where + ": refers to a missing instruction"};
    if (s.kind == Source::Kind::kDma && s.index >= x.dmas.size())
      throw BadField{where + ": refers to a missing DMA transfer"};
  };
  for (size_t i = 0; i < x.instructions.size(); ++i)
    for (const Wait& w : x.instructions[i].waits)
      check(w.satisfied_by, path + ".instructions[" + std::to_string(i) + "].waits");
  for (size_t i = 0; i < x.sync_updates.size(); ++i)
    check(x.sync_updates[i].source, path + ".sync_updates[" + std::to_string(i) + "].source");
}

void ParseStats(const Json& stats, const std::string& path, const Profile& profile, Execution& x) {
  x.has_stats = true;
  x.duration_ps = U64(stats, "duration_ps", path);
  const Json& cores = Array(stats, "cores", path);
  for (size_t c = 0; c < cores.size(); ++c) {
    const std::string p = path + ".cores[" + std::to_string(c) + "]";
    CoreCounters cc;
    cc.core = SmallInt(cores[c], "core", p, kMaxCores);
    cc.duration_ps = U64(cores[c], "duration_ps", p);
    cc.hbm_read_bytes = U64(cores[c], "hbm_read_bytes", p);
    cc.hbm_write_bytes = U64(cores[c], "hbm_write_bytes", p);
    const Json& engines = Field(cores[c], "engines", p);
    for (int e = 0; e < kEngineCount; ++e) {
      const std::string ep = p + ".engines";
      const Json& one = Field(engines, profile.engines[size_t(e)].c_str(), ep);
      const std::string op = ep + "." + profile.engines[size_t(e)];
      cc.engines[e] = {U64(one, "busy_ps", op), U64(one, "wait_ps", op),
                       U64(one, "instructions", op), U64(one, "flops", op)};
    }
    const Json& queues = Array(cores[c], "dma_queues", p);
    for (size_t q = 0; q < queues.size(); ++q) {
      const std::string qp = p + ".dma_queues[" + std::to_string(q) + "]";
      cc.queues.push_back({U64(queues[q], "transfers", qp), U64(queues[q], "bytes", qp),
                           U64(queues[q], "busy_ps", qp)});
    }
    x.cores.push_back(std::move(cc));
  }
}

Profile ParseDocument(const Json& doc) {
  Profile profile;
  const std::string format = Str(doc, "format", "");
  if (format != "trnsim-ntff") throw BadField{"format: \"" + format + "\" is not trnsim-ntff"};
  profile.version = SmallInt(doc, "version", "", 1 << 20);
  if (profile.version != 1)
    throw BadField{"version " + std::to_string(profile.version) + " is not supported (1)"};
  if (Str(doc, "time_unit", "") != "ps") throw BadField{"time_unit: expected \"ps\""};
  const Json& model = Field(doc, "model", "");
  profile.model_name = Str(model, "name", "model");
  profile.vnc = SmallInt(model, "vnc", "model", kMaxCores);
  const Json& device = Field(doc, "device", "");
  profile.chip = Str(device, "chip", "device");
  profile.instance = Str(device, "instance", "device");
  const Json& engines = Array(doc, "engines", "");
  if (engines.size() != size_t(kEngineCount))
    throw BadField{"engines: expected " + std::to_string(kEngineCount) + " names"};
  for (const Json& e : engines) {
    if (!e.is_string()) throw BadField{"engines: expected strings"};
    profile.engines.push_back(e.get<std::string>());
  }
  const Json& executions = Array(doc, "executions", "");
  for (size_t i = 0; i < executions.size(); ++i) {
    const std::string p = "executions[" + std::to_string(i) + "]";
    const Json& j = executions[i];
    Execution x;
    x.index = U64(j, "index", p);
    if (j.contains("model_name")) x.model_name = Str(j, "model_name", p);
    x.status = Str(j, "status", p);
    x.error = Str(j, "error", p);
    ParseEvents(Field(j, "events", p), p + ".events", profile.engines, x);
    const Json& stats = Field(j, "stats", p);
    if (!stats.is_null()) ParseStats(stats, p + ".stats", profile, x);
    profile.executions.push_back(std::move(x));
  }
  return profile;
}

}  // namespace

StatusOr<Profile> ParseProfile(const std::string& where, const std::string& text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidError(where + ": not a JSON document");
  try {
    return ParseDocument(doc);
  } catch (const BadField& bad) {
    return InvalidError(where + ": not a trnsim profile: " + bad.what);
  } catch (const std::exception& e) {  // a conversion nlohmann refused
    return InvalidError(where + ": not a trnsim profile: " + e.what());
  }
}

StatusOr<Profile> ReadProfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidError("cannot read the profile '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseProfile(path, text.str());
}

std::string EngineLabel(const Profile& profile, int engine) {
  std::string name = profile.engines[size_t(engine)];
  for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace trnsim::neuron_profile
