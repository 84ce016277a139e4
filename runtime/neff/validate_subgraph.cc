// ValidateSubgraph: one subgraph's variables, queue sets, engines and DMA descriptors.
#include <cmath>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "runtime/neff/json_util.h"
#include "runtime/neff/layout.h"
#include "runtime/neff/limits.h"
#include "runtime/neff/neff_io.h"
#include "runtime/neff/validate.h"

namespace trnsim::neff {
namespace {

std::string Quote(std::string_view s) {
  return "\"" + std::string(s.size() > 100 ? std::string(s.substr(0, 100)) + "..." : s) + "\"";
}

bool IsFabricPath(const std::string& p) { return p == "main" || p == "alt"; }

bool IsQueueType(const std::string& t) {
  return t == "in" || t == "out" || t == "data" || t == "embedding_update" || t == "dynamic";
}

struct Context {
  const Subgraph& sg;
  std::string def;  // "sg00/def.json"
  std::unordered_map<std::string_view, const Variable*> vars;
  std::unordered_set<int64_t> var_ids;
  std::unordered_set<std::string_view> queue_sets;
  std::unordered_set<std::string_view> queue_instances;
};

Status CheckVariable(const Context& c, const Variable& v) {
  const std::string where = FieldPath(c.def + ": var", v.name);
  if (v.size > kMaxVariableBytes) {
    return InvalidError(where + ".size: " + std::to_string(v.size) + " bytes is more than " +
                        std::to_string(kMaxVariableBytes) + " (the largest variable trnsim loads)");
  }
  if (v.alignment != 0 &&
      ((v.alignment & (v.alignment - 1)) != 0 || v.alignment > kMaxVariableBytes)) {
    return InvalidError(where + ".alignment: " + std::to_string(v.alignment) +
                        " is not 0 or a power of two up to " + std::to_string(kMaxVariableBytes));
  }
  if (!IsFabricPath(v.fabric_path)) {
    return InvalidError(where + ".fabric_path: " + Quote(v.fabric_path) +
                        " (expected \"main\" or \"alt\")");
  }
  auto only_for = [&](const char* field, VariableType type) {
    return InvalidError(where + "." + field + ": only a \"" + std::string(VariableTypeName(type)) +
                        "\" variable has one; this is \"" + std::string(VariableTypeName(v.type)) +
                        "\"");
  };
  if (!v.file_name.empty() && v.type != VariableType::kFile) {
    return only_for("file_name", VariableType::kFile);
  }
  if (v.backing_variable_off != 0 && v.type != VariableType::kVirtual) {
    return only_for("backing_variable_off", VariableType::kVirtual);
  }
  if (v.referenced_var_id && v.type != VariableType::kPointer) {
    return only_for("referenced_var_id", VariableType::kPointer);
  }
  if (!v.list.empty() && v.type != VariableType::kDgeTable) {
    return only_for("list", VariableType::kDgeTable);
  }
  switch (v.type) {
    case VariableType::kFile: {
      if (v.file_name.empty()) return InvalidError(where + ": missing required field 'file_name'");
      if (!IsCanonicalPath(v.file_name) || v.file_name == kDefJsonName) {
        return InvalidError(where + ".file_name: " + Quote(v.file_name) +
                            " is not a plain relative path of a constant");
      }
      Status data = ConstantData(c.sg, v).status();
      if (!data.ok()) return InvalidError(where + ".file_name: " + data.message());
      break;
    }
    case VariableType::kVirtual:
      if (v.backing_variable_off > kMaxVariableBytes) {
        return InvalidError(where +
                            ".backing_variable_off: " + std::to_string(v.backing_variable_off) +
                            " is more than " + std::to_string(kMaxVariableBytes));
      }
      break;
    case VariableType::kPointer:
      if (!v.referenced_var_id) {
        return InvalidError(where + ": missing required field 'referenced_var_id'");
      }
      if (c.var_ids.count(*v.referenced_var_id) == 0) {
        return InvalidError(where + ".referenced_var_id: no variable has var_id " +
                            std::to_string(*v.referenced_var_id));
      }
      if (v.size < 8) {
        return InvalidError(where + ".size: a pointer needs 8 bytes for an address, not " +
                            std::to_string(v.size));
      }
      break;
    case VariableType::kDgeTable:
      for (size_t i = 0; i < v.list.size(); ++i) {
        if (c.var_ids.count(v.list[i]) == 0) {
          return InvalidError(where + ".list[" + std::to_string(i) + "]: no variable has var_id " +
                              std::to_string(v.list[i]));
        }
      }
      break;
    default:
      break;
  }
  return Status::Ok();
}

Status CheckQueueSet(const Context& c, const QueueSet& q) {
  const std::string where = FieldPath(c.def + ": dma_queue", q.name);
  if (!IsQueueType(q.type)) {
    return InvalidError(where + ".type: " + Quote(q.type) +
                        " (expected in, out, data, embedding_update or dynamic)");
  }
  if (q.num_queues < 1 || q.num_queues > kMaxQueuesPerSet) {
    return InvalidError(where + ".num_queues: " + std::to_string(q.num_queues) + " is not in 1.." +
                        std::to_string(kMaxQueuesPerSet));
  }
  if (!IsFabricPath(q.fabric_path)) {
    return InvalidError(where + ".fabric_path: " + Quote(q.fabric_path) +
                        " (expected \"main\" or \"alt\")");
  }
  if (q.semaphore && *q.semaphore < 0) {
    return InvalidError(where + ".semaphore: " + std::to_string(*q.semaphore) + " is negative");
  }
  for (size_t i = 0; i < q.semaphore_set.size(); ++i) {
    if (q.semaphore_set[i] < 0) {
      return InvalidError(where + ".semaphore_set[" + std::to_string(i) + "]: negative");
    }
  }
  for (size_t i = 0; i < q.queue_instances.size(); ++i) {
    if (q.queue_instances[i].empty()) {
      return InvalidError(where + ".queue_instances[" + std::to_string(i) + "]: empty name");
    }
  }
  return Status::Ok();
}

Status CheckAccess(const Context& c, const DmaAccess& a, const std::string& where) {
  auto it = c.vars.find(a.var);
  if (it == c.vars.end()) {
    return InvalidError(where + ": no variable " + Quote(a.var) + " in " + c.def);
  }
  if (a.dtype == isa::Dtype::kUnknown) return InvalidError(where + "_dtype: no dtype");
  return CheckAccessBounds(a, it->second->size, where);
}

Status CheckDescriptor(const Context& c, const DmaDescriptor& d, const std::string& where) {
  if (d.queue.empty() && d.instance_name.empty()) {
    return InvalidError(where + ": needs 'queue' or 'instance_name'");
  }
  if (!d.queue.empty() && c.queue_sets.count(d.queue) == 0) {
    return InvalidError(where + ".queue: no queue set " + Quote(d.queue) + " in " + c.def);
  }
  if (!d.instance_name.empty() && c.queue_instances.count(d.instance_name) == 0 &&
      c.queue_sets.count(d.instance_name) == 0) {
    return InvalidError(where + ".instance_name: " + Quote(d.instance_name) +
                        " is neither a queue instance nor a queue set of " + c.def);
  }
  if (d.event && *d.event < 0) return InvalidError(where + ".event: negative");
  if (d.semaphore && *d.semaphore < 0) return InvalidError(where + ".semaphore: negative");
  for (size_t i = 0; i < d.remote_semaphores.size(); ++i) {
    if (d.remote_semaphores[i] < 0) {
      return InvalidError(where + ".remote_semaphores[" + std::to_string(i) + "]: negative");
    }
  }
  const std::string desc = where + ".desc";
  if (!d.from && d.from_arr.empty()) {
    return InvalidError(desc + ": needs 'from' (or 'from_arr' for a CCE descriptor)");
  }
  if (d.from && !d.from_arr.empty()) {
    return InvalidError(desc + ": has both 'from' and 'from_arr'");
  }
  if (d.from_arr.size() > kMaxFromArr) {
    return InvalidError(desc + ".from_arr: more than " + std::to_string(kMaxFromArr) + " sources");
  }
  if (d.from) TRNSIM_RETURN_IF_ERROR(CheckAccess(c, *d.from, desc + ".from"));
  for (size_t i = 0; i < d.from_arr.size(); ++i) {
    TRNSIM_RETURN_IF_ERROR(
        CheckAccess(c, d.from_arr[i], desc + ".from_arr[" + std::to_string(i) + "].from"));
  }
  TRNSIM_RETURN_IF_ERROR(CheckAccess(c, d.to, desc + ".to"));
  if (!std::isfinite(d.scale)) return InvalidError(desc + ".scale: not a finite number");
  if (!std::isfinite(d.constant)) return InvalidError(desc + ".constant: not a finite number");
  if (d.scale_dtype == isa::Dtype::kUnknown) return InvalidError(desc + ".scale_dtype: none");
  if (d.constant_dtype != isa::Dtype::kFloat32 && d.constant_dtype != isa::Dtype::kInt32 &&
      d.constant_dtype != isa::Dtype::kUint32) {
    return InvalidError(desc + ".constant_dtype: " + Quote(isa::DtypeNeffName(d.constant_dtype)) +
                        " (expected float32, int32 or uint32)");
  }
  if (d.op == DmaOp::kTranspose) {
    for (size_t i = 0; i < 4; ++i) {
      if (d.transpose_shape[i] == 0) {
        return InvalidError(desc + ".transpose_shape[" + std::to_string(i) +
                            "]: a transpose needs 4 dimensions of at least 1");
      }
    }
    uint32_t e = d.transpose_element_size;
    if (e != 1 && e != 2 && e != 4 && e != 8) {
      return InvalidError(desc + ".transpose_element_size: " + std::to_string(e) +
                          " (expected 1, 2, 4 or 8)");
    }
  }
  return Status::Ok();
}

Status CheckEngine(const Context& c, const EngineProgram& e) {
  const std::string key(isa::EngineName(e.engine));
  if (key.empty()) return InvalidError(c.def + ": an engine of unknown kind");
  if (e.json_file.empty() && e.instr_file.empty()) {
    return InvalidError(c.def + ": engine '" + key + "' names neither '" + key + "' nor '" + key +
                        "_instr'");
  }
  if (e.json_file.empty() &&
      (!e.dma.empty() || !e.activation_function_sets.empty() || !e.dve_tables.empty())) {
    return InvalidError(c.def + ": engine '" + key +
                        "' has descriptors or tables but no engine JSON ('" + key + "')");
  }
  if (e.instr_file.empty() && !e.instructions.empty()) {
    return InvalidError(c.def + ": engine '" + key + "' has instructions but no '" + key +
                        "_instr' file");
  }
  const std::string file = c.sg.name + "/" + e.json_file;
  std::unordered_set<int64_t> ids;
  for (size_t i = 0; i < e.dma.size(); ++i) {
    const std::string where = file + ": dma[" + std::to_string(i) + "]";
    if (!ids.insert(e.dma[i].id).second) {
      return InvalidError(where + ".id: " + std::to_string(e.dma[i].id) +
                          " is used by an earlier descriptor of this engine");
    }
    TRNSIM_RETURN_IF_ERROR(CheckDescriptor(c, e.dma[i], where));
  }
  for (size_t i = 0; i < e.activation_function_sets.size(); ++i) {
    if (e.activation_function_sets[i].empty()) {
      return InvalidError(file + ": activation_function_sets[" + std::to_string(i) +
                          "]: empty name");
    }
  }
  return Status::Ok();
}

// Every member path of the subgraph directory: canonical, distinct, none a directory of
// another.
Status CheckPaths(const Context& c) {
  std::set<std::string_view> paths{kDefJsonName};
  auto add = [&](const std::string& path, const std::string& what) -> Status {
    if (!IsCanonicalPath(path)) {
      return InvalidError(what + ": " + Quote(path) +
                          " is not a plain relative path (no '..', '.', '//' or leading '/')");
    }
    if (!paths.insert(path).second) {
      return InvalidError(what + ": " + c.sg.name + "/" + path +
                          " is used for two purposes (def.json, an engine JSON, an instruction "
                          "stream or a file)");
    }
    return Status::Ok();
  };
  for (const EngineProgram& e : c.sg.engines) {
    const std::string key(isa::EngineName(e.engine));
    if (!e.json_file.empty()) TRNSIM_RETURN_IF_ERROR(add(e.json_file, c.def + ": " + key));
    if (!e.instr_file.empty()) {
      TRNSIM_RETURN_IF_ERROR(add(e.instr_file, c.def + ": " + key + "_instr"));
    }
  }
  for (const auto& [name, bytes] : c.sg.files) {
    TRNSIM_RETURN_IF_ERROR(add(name, c.sg.name + " file"));
  }
  for (std::string_view p : paths) {
    for (size_t slash = p.find('/'); slash != std::string_view::npos;
         slash = p.find('/', slash + 1)) {
      if (paths.count(p.substr(0, slash)) != 0) {
        return InvalidError(c.sg.name + ": " + Quote(p.substr(0, slash)) +
                            " is a file but also the directory of " + Quote(p));
      }
    }
  }
  return Status::Ok();
}

// def.json "debug_prefixes": a bounded table of C strings that fit the debug stream's prefix.
Status CheckDebugPrefixes(const Context& c) {
  const std::string where = c.def + ": debug_prefixes";
  if (c.sg.debug_prefixes.size() > kMaxDebugPrefixes) {
    return InvalidError(where + ": " + std::to_string(c.sg.debug_prefixes.size()) +
                        " prefixes, more than " + std::to_string(kMaxDebugPrefixes));
  }
  for (size_t i = 0; i < c.sg.debug_prefixes.size(); ++i) {
    const std::string& p = c.sg.debug_prefixes[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (p.size() > kMaxDebugPrefixBytes) {
      return InvalidError(at + ": " + std::to_string(p.size()) + " bytes, more than " +
                          std::to_string(kMaxDebugPrefixBytes) +
                          " (a debug event's prefix is 512 bytes with its NUL)");
    }
    if (size_t nul = p.find('\0'); nul != std::string::npos) {
      return InvalidError(at + ": a NUL character at byte " + std::to_string(nul) +
                          " (a prefix is a C string)");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateSubgraph(const Subgraph& sg) {
  Context c{sg, sg.name + "/" + std::string(kDefJsonName), {}, {}, {}, {}};
  for (const Variable& v : sg.variables) {
    if (v.name.empty()) return InvalidError(c.def + ": var: a variable with an empty name");
    if (!c.vars.emplace(v.name, &v).second) {
      return InvalidError(FieldPath(c.def + ": var", v.name) + ": the name is used twice");
    }
    if (!c.var_ids.insert(v.var_id).second) {
      return InvalidError(FieldPath(c.def + ": var", v.name) +
                          ".var_id: " + std::to_string(v.var_id) + " is used by another variable");
    }
  }
  for (const QueueSet& q : sg.queue_sets) {
    if (q.name.empty()) return InvalidError(c.def + ": dma_queue: a queue set with no name");
    if (!c.queue_sets.insert(q.name).second) {
      return InvalidError(FieldPath(c.def + ": dma_queue", q.name) + ": the name is used twice");
    }
    for (const std::string& inst : q.queue_instances) c.queue_instances.insert(inst);
  }
  TRNSIM_RETURN_IF_ERROR(CheckPaths(c));
  for (const Variable& v : sg.variables) TRNSIM_RETURN_IF_ERROR(CheckVariable(c, v));
  for (const QueueSet& q : sg.queue_sets) TRNSIM_RETURN_IF_ERROR(CheckQueueSet(c, q));
  std::set<isa::Engine> kinds;
  for (const EngineProgram& e : sg.engines) {
    if (!kinds.insert(e.engine).second) {
      return InvalidError(c.def + ": engine '" + std::string(isa::EngineName(e.engine)) +
                          "' appears twice");
    }
    TRNSIM_RETURN_IF_ERROR(CheckEngine(c, e));
  }
  return CheckDebugPrefixes(c);
}

}  // namespace trnsim::neff
