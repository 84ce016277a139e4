#include "runtime/neff/graph_json.h"

#include <limits>
#include <string>

#include "runtime/neff/limits.h"

namespace trnsim::neff {
namespace {

// ml_dtypes' names for the fp8 formats, which NumPy-based frontends print.
struct Alias {
  std::string_view name;
  isa::Dtype dtype;
};
constexpr Alias kAliases[] = {
    {"float8_e4m3fn", isa::Dtype::kFloat8E4},
    {"float8_e4m3", isa::Dtype::kFloat8E4},
    {"float8_e5m2", isa::Dtype::kFloat8E5},
    {"float8_e3m4", isa::Dtype::kFloat8E3},
};

// attrs.is_param: true, 1, "1", "true" or "True" mark a parameter (not an I/O tensor).
bool IsParam(const Json& attrs) {
  const Json* p = FindField(attrs, "is_param");
  if (p == nullptr) return false;
  if (p->is_boolean()) return p->get<bool>();
  if (p->is_number_integer() || p->is_number_unsigned()) return p->get<int64_t>() != 0;
  if (p->is_string()) {
    const auto& s = p->get_ref<const std::string&>();
    return s == "1" || s == "true" || s == "True";
  }
  return false;
}

// attrs.shape: a JSON array of dimensions, or a string spelling one ("[1, 3]", "(1, 3)").
Status ParseShape(const Json& v, const std::string& what, std::vector<uint32_t>* shape) {
  constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
  auto too_many = [&] {
    return InvalidError(what + ": more than " + std::to_string(kMaxShapeRank) + " dimensions");
  };
  if (v.is_array()) {
    if (v.size() > kMaxShapeRank) return too_many();
    for (size_t i = 0; i < v.size(); ++i) {
      TRNSIM_ASSIGN_OR_RETURN(uint64_t d, AsUint(v[i], what + "[" + std::to_string(i) + "]", kMax));
      shape->push_back(static_cast<uint32_t>(d));
    }
    return Status::Ok();
  }
  if (!v.is_string()) {
    return InvalidError(what + ": expected an array or a string, got " +
                        std::string(JsonTypeName(v)));
  }
  const std::string& s = v.get_ref<const std::string&>();
  auto bad = [&] {
    return InvalidError(what + ": \"" + s.substr(0, 64) +
                        "\" is not a list of dimensions like \"[1, 3]\"");
  };
  size_t i = s.find_first_not_of(" ");
  if (i == std::string::npos || (s[i] != '[' && s[i] != '(')) return bad();
  char close = s[i] == '[' ? ']' : ')';
  ++i;
  while (true) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == close) break;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return bad();
    uint64_t d = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      d = d * 10 + static_cast<uint64_t>(s[i++] - '0');
      if (d > kMax) return InvalidError(what + ": a dimension does not fit 32 bits");
    }
    if (shape->size() >= kMaxShapeRank) return too_many();
    shape->push_back(static_cast<uint32_t>(d));
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == close) break;
    return bad();
  }
  if (s.find_first_not_of(" ", i + 1) != std::string::npos) return bad();
  return Status::Ok();
}

// The I/O tensor described by nodes[index].
Status ParseIoNode(const Json& nodes, uint64_t index, const std::string& ref, std::string_view file,
                   TensorUsage usage, std::vector<TensorDecl>* out) {
  if (index >= nodes.size()) {
    return InvalidError(ref + ": node " + std::to_string(index) + " does not exist (" +
                        std::to_string(nodes.size()) + " nodes)");
  }
  const std::string where = std::string(file) + ": nodes[" + std::to_string(index) + "]";
  const Json& node = nodes[index];
  TRNSIM_RETURN_IF_ERROR(RequireObject(node, where));
  std::string op;
  TRNSIM_RETURN_IF_ERROR(GetString(node, "op", where, &op, Need::kRequired));
  if (op != "null") {
    return InvalidError(ref + " refers to " + where + " of op \"" + op.substr(0, 64) +
                        "\"; I/O tensors must be op \"null\" nodes");
  }
  TensorDecl t;
  t.usage = usage;
  TRNSIM_RETURN_IF_ERROR(GetString(node, "name", where, &t.name, Need::kRequired));
  if (const Json* attrs = FindField(node, "attrs")) {
    const std::string awhere = FieldPath(where, "attrs");
    TRNSIM_RETURN_IF_ERROR(RequireObject(*attrs, awhere));
    if (usage == TensorUsage::kInput && IsParam(*attrs)) return Status::Ok();
    if (const Json* dtype = FindField(*attrs, "dtype")) {
      TRNSIM_ASSIGN_OR_RETURN(std::string name, AsString(*dtype, FieldPath(awhere, "dtype")));
      std::optional<isa::Dtype> d = DtypeFromGraphName(name);
      if (!d) {
        return InvalidError(FieldPath(awhere, "dtype") + ": unknown dtype \"" + name.substr(0, 64) +
                            "\"");
      }
      t.dtype = *d;
    }
    if (const Json* shape = FindField(*attrs, "shape")) {
      TRNSIM_RETURN_IF_ERROR(ParseShape(*shape, FieldPath(awhere, "shape"), &t.shape));
    }
  }
  out->push_back(std::move(t));
  return Status::Ok();
}

}  // namespace

std::optional<isa::Dtype> DtypeFromGraphName(std::string_view name) {
  for (const Alias& a : kAliases) {
    if (a.name == name) return a.dtype;
  }
  return isa::DtypeFromShortName(name);  // short names and the descriptor spellings
}

Status ParseGraphJson(const Json& root, std::string_view file, std::vector<TensorDecl>* tensors) {
  const std::string where(file);
  TRNSIM_RETURN_IF_ERROR(RequireObject(root, where));
  const Json* nodes = FindField(root, "nodes");
  const Json* args = FindField(root, "arg_nodes");
  const Json* heads = FindField(root, "heads");
  for (auto [field, value] : {std::pair{"nodes", nodes}, {"arg_nodes", args}, {"heads", heads}}) {
    if (value == nullptr) return InvalidError(where + ": missing required field '" + field + "'");
    if (!value->is_array()) {
      return InvalidError(FieldPath(where, field) + ": expected an array, got " +
                          std::string(JsonTypeName(*value)));
    }
  }
  constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string ref = where + ": arg_nodes[" + std::to_string(i) + "]";
    TRNSIM_ASSIGN_OR_RETURN(uint64_t index, AsUint((*args)[i], ref, kU64Max));
    TRNSIM_RETURN_IF_ERROR(ParseIoNode(*nodes, index, ref, file, TensorUsage::kInput, tensors));
  }
  for (size_t i = 0; i < heads->size(); ++i) {
    const std::string ref = where + ": heads[" + std::to_string(i) + "]";
    const Json& head = (*heads)[i];
    // [node, output_index, version] as NNVM writes it, or a bare node index.
    const Json& node_ref = head.is_array() && !head.empty() ? head[0] : head;
    TRNSIM_ASSIGN_OR_RETURN(uint64_t index, AsUint(node_ref, ref, kU64Max));
    TRNSIM_RETURN_IF_ERROR(ParseIoNode(*nodes, index, ref, file, TensorUsage::kOutput, tensors));
  }
  return Status::Ok();
}

Json GraphJsonOf(const std::vector<TensorDecl>& tensors, size_t subgraph_count) {
  Json nodes = Json::array(), args = Json::array(), heads = Json::array();
  auto io_node = [](const TensorDecl& t) {
    Json attrs = Json::object();
    if (t.dtype != isa::Dtype::kUnknown) attrs["dtype"] = std::string(isa::DtypeNeffName(t.dtype));
    attrs["shape"] = t.shape;
    return Json{
        {"op", "null"}, {"name", t.name}, {"inputs", Json::array()}, {"attrs", std::move(attrs)}};
  };
  Json kelf_inputs = Json::array();
  size_t inputs = 0, outputs = 0;
  for (const TensorDecl& t : tensors) {
    if (t.usage != TensorUsage::kInput) continue;
    args.push_back(nodes.size());
    kelf_inputs.push_back(Json::array({nodes.size(), 0, 0}));
    nodes.push_back(io_node(t));
    ++inputs;
  }
  for (const TensorDecl& t : tensors) outputs += t.usage == TensorUsage::kOutput ? 1 : 0;
  // One compute node standing for the subgraphs, as AWS's "__kelf" nodes do.
  nodes.push_back(Json{{"op", "__kelf"},
                       {"name", "sg_coreV10"},
                       {"inputs", std::move(kelf_inputs)},
                       {"attrs", Json{{"num_subgraphs", std::to_string(subgraph_count)},
                                      {"num_inputs", std::to_string(inputs)},
                                      {"num_outputs", std::to_string(outputs)}}}});
  for (const TensorDecl& t : tensors) {
    if (t.usage != TensorUsage::kOutput) continue;
    heads.push_back(Json::array({nodes.size(), 0, 0}));
    nodes.push_back(io_node(t));
  }
  Json row_ptr = Json::array();
  for (size_t i = 0; i <= nodes.size(); ++i) row_ptr.push_back(i);
  return Json{{"nodes", std::move(nodes)},
              {"arg_nodes", std::move(args)},
              {"heads", std::move(heads)},
              {"node_row_ptr", std::move(row_ptr)}};
}

}  // namespace trnsim::neff
