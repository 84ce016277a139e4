#include "runtime/neff/def_json.h"

#include <limits>
#include <string>

namespace trnsim::neff {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

Status ParseQueueSet(const Json& obj, const std::string& where, QueueSet* q) {
  TRNSIM_RETURN_IF_ERROR(RequireObject(obj, where));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "type", where, &q->type, Need::kRequired));
  TRNSIM_RETURN_IF_ERROR(GetUint32(obj, "num_queues", where, &q->num_queues));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "owner", where, &q->owner));
  TRNSIM_RETURN_IF_ERROR(GetBool(obj, "pinned", where, &q->pinned));
  TRNSIM_RETURN_IF_ERROR(GetStringList(obj, "queue_instances", where, &q->queue_instances));
  TRNSIM_RETURN_IF_ERROR(GetIntList(obj, "semaphore_set", where, std::numeric_limits<size_t>::max(),
                                    &q->semaphore_set));
  TRNSIM_RETURN_IF_ERROR(GetOptionalInt(obj, "semaphore", where, &q->semaphore));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "fabric_path", where, &q->fabric_path));
  return Status::Ok();
}

Status ParseVariable(const Json& obj, const std::string& where, Variable* v) {
  TRNSIM_RETURN_IF_ERROR(RequireObject(obj, where));
  std::string type;
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "type", where, &type, Need::kRequired));
  std::optional<VariableType> t = VariableTypeFromName(type);
  if (!t) {
    return InvalidError(FieldPath(where, "type") + ": unknown variable type \"" +
                        type.substr(0, 64) +
                        "\" (expected state-buffer, input, output, file, tmp-buf, virtual, "
                        "pointer or dge-table)");
  }
  v->type = *t;
  TRNSIM_RETURN_IF_ERROR(GetInt(obj, "var_id", where, &v->var_id, Need::kRequired));
  TRNSIM_RETURN_IF_ERROR(GetUint(obj, "size", where, kU64Max, &v->size, Need::kRequired));
  TRNSIM_RETURN_IF_ERROR(GetUint(obj, "alignment", where, kU64Max, &v->alignment));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "fabric_path", where, &v->fabric_path));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "file_name", where, &v->file_name));
  TRNSIM_RETURN_IF_ERROR(
      GetUint(obj, "backing_variable_off", where, kU64Max, &v->backing_variable_off));
  TRNSIM_RETURN_IF_ERROR(GetOptionalInt(obj, "referenced_var_id", where, &v->referenced_var_id));
  TRNSIM_RETURN_IF_ERROR(
      GetIntList(obj, "list", where, std::numeric_limits<size_t>::max(), &v->list));
  return Status::Ok();
}

// The engine a def.json key refers to, and whether it is the "<eng>_instr" key.
std::optional<isa::Engine> EngineKey(std::string_view key, bool* instr) {
  constexpr std::string_view kInstr = "_instr";
  *instr = key.size() > kInstr.size() && key.substr(key.size() - kInstr.size()) == kInstr;
  if (*instr) key.remove_suffix(kInstr.size());
  return isa::EngineFromName(key);
}

EngineProgram& EngineEntry(Subgraph* sg, isa::Engine kind) {
  for (EngineProgram& e : sg->engines) {
    if (e.engine == kind) return e;
  }
  sg->engines.push_back(EngineProgram{});
  sg->engines.back().engine = kind;
  return sg->engines.back();
}

}  // namespace

Status ParseDefJson(const Json& root, std::string_view file, Subgraph* sg) {
  const std::string where(file);
  TRNSIM_RETURN_IF_ERROR(RequireObject(root, where));
  TRNSIM_RETURN_IF_ERROR(GetString(root, "name", where, &sg->def_name));
  if (const Json* version = FindField(root, "version")) {
    if (version->is_string()) {
      sg->def_version = version->get<std::string>();
    } else if (version->is_number()) {
      sg->def_version = version->dump();
    } else {
      return InvalidError(FieldPath(where, "version") + ": expected a string or a number, got " +
                          std::string(JsonTypeName(*version)));
    }
  }
  // Engines, in the order their first key appears.
  for (const auto& [key, value] : root.items()) {
    bool instr = false;
    std::optional<isa::Engine> kind = EngineKey(key, &instr);
    if (!kind) continue;  // "dma_queue", "var", "host", ... and keys trnsim does not know
    TRNSIM_ASSIGN_OR_RETURN(std::string name, AsString(value, FieldPath(where, key)));
    EngineProgram& engine = EngineEntry(sg, *kind);
    (instr ? engine.instr_file : engine.json_file) = std::move(name);
  }
  TRNSIM_RETURN_IF_ERROR(GetStringList(root, "debug_prefixes", where, &sg->debug_prefixes));
  if (const Json* queues = FindField(root, "dma_queue")) {
    const std::string qwhere = FieldPath(where, "dma_queue");
    TRNSIM_RETURN_IF_ERROR(RequireObject(*queues, qwhere));
    sg->queue_sets.reserve(queues->size());
    for (const auto& [name, value] : queues->items()) {
      QueueSet q;
      q.name = name;
      TRNSIM_RETURN_IF_ERROR(ParseQueueSet(value, FieldPath(qwhere, name), &q));
      sg->queue_sets.push_back(std::move(q));
    }
  }
  if (const Json* vars = FindField(root, "var")) {
    const std::string vwhere = FieldPath(where, "var");
    TRNSIM_RETURN_IF_ERROR(RequireObject(*vars, vwhere));
    sg->variables.reserve(vars->size());
    for (const auto& [name, value] : vars->items()) {
      Variable v;
      v.name = name;
      TRNSIM_RETURN_IF_ERROR(ParseVariable(value, FieldPath(vwhere, name), &v));
      sg->variables.push_back(std::move(v));
    }
  }
  return Status::Ok();
}

Json DefJsonOf(const Subgraph& sg) {
  Json root = Json::object();
  if (!sg.def_name.empty()) root["name"] = sg.def_name;
  if (!sg.def_version.empty()) root["version"] = sg.def_version;
  for (const EngineProgram& e : sg.engines) {
    std::string key(isa::EngineName(e.engine));
    if (!e.json_file.empty()) root[key] = e.json_file;
    if (!e.instr_file.empty()) root[key + "_instr"] = e.instr_file;
  }
  Json queues = Json::object();
  for (const QueueSet& q : sg.queue_sets) {
    Json j = Json::object();
    j["type"] = q.type;
    j["num_queues"] = q.num_queues;
    if (!q.owner.empty()) j["owner"] = q.owner;
    if (q.pinned) j["pinned"] = true;
    if (!q.queue_instances.empty()) j["queue_instances"] = q.queue_instances;
    if (!q.semaphore_set.empty()) j["semaphore_set"] = q.semaphore_set;
    if (q.semaphore) j["semaphore"] = *q.semaphore;
    if (q.fabric_path != "main") j["fabric_path"] = q.fabric_path;
    AppendField(&queues, q.name, std::move(j));
  }
  root["dma_queue"] = std::move(queues);
  Json vars = Json::object();
  for (const Variable& v : sg.variables) {
    Json j = Json::object();
    j["type"] = std::string(VariableTypeName(v.type));
    j["var_id"] = v.var_id;
    j["size"] = v.size;
    if (v.alignment != 0) j["alignment"] = v.alignment;
    if (v.fabric_path != "main") j["fabric_path"] = v.fabric_path;
    if (!v.file_name.empty()) j["file_name"] = v.file_name;
    if (v.type == VariableType::kVirtual || v.backing_variable_off != 0) {
      j["backing_variable_off"] = v.backing_variable_off;
    }
    if (v.referenced_var_id) j["referenced_var_id"] = *v.referenced_var_id;
    if (v.type == VariableType::kDgeTable || !v.list.empty()) j["list"] = v.list;
    AppendField(&vars, v.name, std::move(j));
  }
  root["var"] = std::move(vars);
  if (!sg.debug_prefixes.empty()) root["debug_prefixes"] = sg.debug_prefixes;
  return root;
}

}  // namespace trnsim::neff
