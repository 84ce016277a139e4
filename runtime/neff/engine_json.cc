#include "runtime/neff/engine_json.h"

#include <limits>
#include <string>

#include "runtime/neff/limits.h"

namespace trnsim::neff {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

// One side of a descriptor: the fields "<side>", "<side>_off", "<side>_steps", "<side>_sizes"
// and "<side>_dtype" of `obj` (side is "from" or "to"). *out is left empty when none of them is
// there; any of the others without "<side>" itself is NRT_INVALID.
Status ParseAccess(const Json& obj, const std::string& side, const std::string& where,
                   std::optional<DmaAccess>* out) {
  const std::string off = side + "_off", steps = side + "_steps", sizes = side + "_sizes",
                    dtype = side + "_dtype";
  bool any = false;
  for (const std::string& key : {side, off, steps, sizes, dtype}) {
    if (FindField(obj, key) != nullptr) any = true;
  }
  if (!any) {
    out->reset();
    return Status::Ok();
  }
  if (FindField(obj, side) == nullptr) {
    return InvalidError(where + ": has " + side + "_* fields but no '" + side + "' variable");
  }
  DmaAccess a;
  TRNSIM_RETURN_IF_ERROR(GetString(obj, side, where, &a.var, Need::kRequired));
  TRNSIM_RETURN_IF_ERROR(GetUint(obj, off, where, kU64Max, &a.offset));
  TRNSIM_RETURN_IF_ERROR(GetIntList(obj, steps, where, kMaxApDims, &a.steps));
  TRNSIM_RETURN_IF_ERROR(GetUintList(obj, sizes, where, kMaxApDims, &a.sizes));
  TRNSIM_RETURN_IF_ERROR(GetDtype(obj, dtype, where, &a.dtype));
  *out = std::move(a);
  return Status::Ok();
}

Status ParseDesc(const Json& desc, const std::string& where, DmaDescriptor* d) {
  TRNSIM_RETURN_IF_ERROR(RequireObject(desc, where));
  std::string op = "copy";
  TRNSIM_RETURN_IF_ERROR(GetString(desc, "op", where, &op));
  std::optional<DmaOp> parsed = DmaOpFromName(op);
  if (!parsed) {
    return InvalidError(FieldPath(where, "op") + ": unknown op \"" + op.substr(0, 64) +
                        "\" (expected copy, cast, add, fma, min, max or transpose)");
  }
  d->op = *parsed;
  TRNSIM_RETURN_IF_ERROR(ParseAccess(desc, "from", where, &d->from));
  std::optional<DmaAccess> to;
  TRNSIM_RETURN_IF_ERROR(ParseAccess(desc, "to", where, &to));
  if (!to) return InvalidError(where + ": missing required field 'to'");
  d->to = std::move(*to);
  if (const Json* arr = FindField(desc, "from_arr")) {
    const std::string awhere = FieldPath(where, "from_arr");
    if (!arr->is_array()) {
      return InvalidError(awhere + ": expected an array, got " + std::string(JsonTypeName(*arr)));
    }
    if (arr->size() > kMaxFromArr) {
      return InvalidError(awhere + ": " + std::to_string(arr->size()) + " sources; at most " +
                          std::to_string(kMaxFromArr) + " are allowed");
    }
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string ewhere = awhere + "[" + std::to_string(i) + "]";
      TRNSIM_RETURN_IF_ERROR(RequireObject((*arr)[i], ewhere));
      std::optional<DmaAccess> src;
      TRNSIM_RETURN_IF_ERROR(ParseAccess((*arr)[i], "from", ewhere, &src));
      if (!src) return InvalidError(ewhere + ": missing required field 'from'");
      d->from_arr.push_back(std::move(*src));
    }
  }
  TRNSIM_RETURN_IF_ERROR(
      GetUint32(desc, "num_tiling_dimensions", where, &d->num_tiling_dimensions));
  TRNSIM_RETURN_IF_ERROR(GetDtype(desc, "scale_dtype", where, &d->scale_dtype));
  TRNSIM_RETURN_IF_ERROR(GetNumber(desc, "scale", where, &d->scale));
  TRNSIM_RETURN_IF_ERROR(GetDtype(desc, "constant_dtype", where, &d->constant_dtype));
  TRNSIM_RETURN_IF_ERROR(GetNumber(desc, "constant", where, &d->constant));
  if (FindField(desc, "transpose_shape") != nullptr) {
    std::vector<uint64_t> shape;
    TRNSIM_RETURN_IF_ERROR(GetUintList(desc, "transpose_shape", where, 4, &shape));
    if (shape.size() != 4) {
      return InvalidError(FieldPath(where, "transpose_shape") + ": " +
                          std::to_string(shape.size()) + " entries; exactly 4 are required");
    }
    for (size_t i = 0; i < 4; ++i) {
      if (shape[i] > std::numeric_limits<uint32_t>::max()) {
        return InvalidError(FieldPath(where, "transpose_shape") + "[" + std::to_string(i) +
                            "]: " + std::to_string(shape[i]) + " does not fit 32 bits");
      }
      d->transpose_shape[i] = static_cast<uint32_t>(shape[i]);
    }
  }
  TRNSIM_RETURN_IF_ERROR(
      GetUint32(desc, "transpose_element_size", where, &d->transpose_element_size));
  return Status::Ok();
}

Status ParseDescriptor(const Json& obj, const std::string& where, DmaDescriptor* d) {
  TRNSIM_RETURN_IF_ERROR(RequireObject(obj, where));
  TRNSIM_RETURN_IF_ERROR(GetInt(obj, "id", where, &d->id, Need::kRequired));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "queue", where, &d->queue));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "instance_name", where, &d->instance_name));
  TRNSIM_RETURN_IF_ERROR(GetString(obj, "function_start", where, &d->function_start));
  TRNSIM_RETURN_IF_ERROR(GetBool(obj, "section_start_desc", where, &d->section_start_desc));
  TRNSIM_RETURN_IF_ERROR(GetOptionalInt(obj, "event", where, &d->event));
  TRNSIM_RETURN_IF_ERROR(GetOptionalInt(obj, "semaphore", where, &d->semaphore));
  TRNSIM_RETURN_IF_ERROR(
      GetIntList(obj, "remote_semaphores", where, kNoLimit, &d->remote_semaphores));
  const Json* desc = FindField(obj, "desc");
  if (desc == nullptr) return InvalidError(where + ": missing required field 'desc'");
  return ParseDesc(*desc, FieldPath(where, "desc"), d);
}

void PutAccess(Json* obj, const std::string& side, const DmaAccess& a) {
  (*obj)[side] = a.var;
  (*obj)[side + "_off"] = a.offset;
  if (!a.steps.empty()) (*obj)[side + "_steps"] = a.steps;
  if (!a.sizes.empty()) (*obj)[side + "_sizes"] = a.sizes;
  (*obj)[side + "_dtype"] = std::string(isa::DtypeNeffName(a.dtype));
}

Json DescriptorJson(const DmaDescriptor& d) {
  Json j = Json::object();
  j["id"] = d.id;
  if (!d.queue.empty()) j["queue"] = d.queue;
  if (!d.instance_name.empty()) j["instance_name"] = d.instance_name;
  if (!d.function_start.empty()) j["function_start"] = d.function_start;
  if (d.section_start_desc) j["section_start_desc"] = true;
  if (d.event) j["event"] = *d.event;
  if (d.semaphore) j["semaphore"] = *d.semaphore;
  if (!d.remote_semaphores.empty()) j["remote_semaphores"] = d.remote_semaphores;
  Json desc = Json::object();
  desc["op"] = std::string(DmaOpName(d.op));
  if (d.from) PutAccess(&desc, "from", *d.from);
  PutAccess(&desc, "to", d.to);
  if (!d.from_arr.empty()) {
    Json arr = Json::array();
    for (const DmaAccess& a : d.from_arr) {
      Json src = Json::object();
      PutAccess(&src, "from", a);
      arr.push_back(std::move(src));
    }
    desc["from_arr"] = std::move(arr);
  }
  if (d.num_tiling_dimensions != 0) desc["num_tiling_dimensions"] = d.num_tiling_dimensions;
  if (d.op == DmaOp::kFma || d.scale_dtype != isa::Dtype::kFloat32 || d.scale != 1.0) {
    desc["scale_dtype"] = std::string(isa::DtypeNeffName(d.scale_dtype));
    desc["scale"] = d.scale;
  }
  if (d.op == DmaOp::kMin || d.op == DmaOp::kMax || d.constant_dtype != isa::Dtype::kFloat32 ||
      d.constant != 0.0) {
    desc["constant_dtype"] = std::string(isa::DtypeNeffName(d.constant_dtype));
    desc["constant"] = d.constant;
  }
  if (d.op == DmaOp::kTranspose || d.transpose_shape != std::array<uint32_t, 4>{} ||
      d.transpose_element_size != 0) {
    desc["transpose_shape"] = d.transpose_shape;
    desc["transpose_element_size"] = d.transpose_element_size;
  }
  j["desc"] = std::move(desc);
  return j;
}

}  // namespace

Status ParseEngineJson(const Json& root, std::string_view file, EngineProgram* engine) {
  const std::string where(file);
  TRNSIM_RETURN_IF_ERROR(RequireObject(root, where));
  if (const Json* dma = FindField(root, "dma")) {
    const std::string dwhere = FieldPath(where, "dma");
    if (!dma->is_array()) {
      return InvalidError(dwhere + ": expected an array, got " + std::string(JsonTypeName(*dma)));
    }
    engine->dma.reserve(dma->size());
    for (size_t i = 0; i < dma->size(); ++i) {
      DmaDescriptor d;
      TRNSIM_RETURN_IF_ERROR(
          ParseDescriptor((*dma)[i], dwhere + "[" + std::to_string(i) + "]", &d));
      engine->dma.push_back(std::move(d));
    }
  }
  TRNSIM_RETURN_IF_ERROR(
      GetStringList(root, "activation_function_sets", where, &engine->activation_function_sets));
  if (const Json* tables = FindField(root, "dve_tables")) {
    const std::string twhere = FieldPath(where, "dve_tables");
    if (!tables->is_array()) {
      return InvalidError(twhere + ": expected an array, got " +
                          std::string(JsonTypeName(*tables)));
    }
    for (size_t i = 0; i < tables->size(); ++i) {
      const std::string ewhere = twhere + "[" + std::to_string(i) + "]";
      const Json& t = (*tables)[i];
      TRNSIM_RETURN_IF_ERROR(RequireObject(t, ewhere));
      DveTable table;
      TRNSIM_RETURN_IF_ERROR(GetString(t, "control_table", ewhere, &table.control_table));
      TRNSIM_RETURN_IF_ERROR(GetString(t, "datapath_table", ewhere, &table.datapath_table));
      TRNSIM_RETURN_IF_ERROR(GetString(t, "opcode_table", ewhere, &table.opcode_table));
      engine->dve_tables.push_back(std::move(table));
    }
  }
  return Status::Ok();
}

Json EngineJsonOf(const EngineProgram& engine) {
  Json root = Json::object();
  Json dma = Json::array();
  for (const DmaDescriptor& d : engine.dma) dma.push_back(DescriptorJson(d));
  root["dma"] = std::move(dma);
  if (!engine.activation_function_sets.empty()) {
    root["activation_function_sets"] = engine.activation_function_sets;
  }
  if (!engine.dve_tables.empty()) {
    Json tables = Json::array();
    for (const DveTable& t : engine.dve_tables) {
      tables.push_back(Json{{"control_table", t.control_table},
                            {"datapath_table", t.datapath_table},
                            {"opcode_table", t.opcode_table}});
    }
    root["dve_tables"] = std::move(tables);
  }
  return root;
}

}  // namespace trnsim::neff
