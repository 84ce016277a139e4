// ValidateNeff: the whole-NEFF checks (header, subgraph set, top-level members, tensors) and the
// access-pattern bounds rule.
#include "runtime/neff/validate.h"

#include <set>
#include <unordered_map>

#include "runtime/neff/header.h"
#include "runtime/neff/json_util.h"
#include "runtime/neff/layout.h"
#include "runtime/neff/limits.h"

namespace trnsim::neff {
namespace {

using Int128 = __int128;

std::string Quote(std::string_view s) {
  return "\"" + std::string(s.size() > 100 ? std::string(s.substr(0, 100)) + "..." : s) + "\"";
}

const char* UsageName(TensorUsage u) { return u == TensorUsage::kInput ? "input" : "output"; }

Status CheckTopFiles(const Neff& neff) {
  std::set<std::string_view> paths;
  for (const auto& [path, bytes] : neff.top_files) {
    if (!IsCanonicalPath(path) || path == kGraphJsonName) {
      return InvalidError("NEFF top-level file " + Quote(path) +
                          " is not a plain relative path other than neff.json");
    }
    bool canonical = false;
    std::string_view first = std::string_view(path).substr(0, path.find('/'));
    if (SubgraphIndexOf(first, &canonical)) {
      return InvalidError("NEFF top-level file " + Quote(path) +
                          " is inside a subgraph directory; subgraph files belong to Subgraph");
    }
    paths.insert(path);
  }
  for (std::string_view p : paths) {
    for (size_t slash = p.find('/'); slash != std::string_view::npos;
         slash = p.find('/', slash + 1)) {
      if (paths.count(p.substr(0, slash)) != 0) {
        return InvalidError("NEFF top-level file " + Quote(p.substr(0, slash)) +
                            " is also the directory of " + Quote(p));
      }
    }
  }
  return Status::Ok();
}

// Elements of `shape` times the element size, or nullopt on overflow.
std::optional<uint64_t> ShapeBytes(const std::vector<uint32_t>& shape, isa::Dtype dtype) {
  uint64_t bytes = static_cast<uint64_t>(isa::DtypeSize(dtype));
  for (uint32_t d : shape) {
    if (__builtin_mul_overflow(bytes, uint64_t{d}, &bytes)) return std::nullopt;
  }
  return bytes;
}

Status CheckTensors(const Neff& neff) {
  const std::string where(kGraphJsonName);
  // name -> (usage, size) of the I/O variables of every subgraph.
  struct Io {
    TensorUsage usage;
    uint64_t size;
    std::string sg;
  };
  std::unordered_map<std::string_view, Io> io;
  for (const Subgraph& sg : neff.subgraphs) {
    for (const Variable& v : sg.variables) {
      if (v.type != VariableType::kInput && v.type != VariableType::kOutput) continue;
      TensorUsage usage =
          v.type == VariableType::kInput ? TensorUsage::kInput : TensorUsage::kOutput;
      auto [it, inserted] = io.emplace(v.name, Io{usage, v.size, sg.name});
      if (!inserted && (it->second.usage != usage || it->second.size != v.size)) {
        return InvalidError(FieldPath(sg.name + "/def.json: var", v.name) + ": " +
                            UsageName(usage) + " of " + std::to_string(v.size) + " bytes, but in " +
                            it->second.sg + " it is an " + UsageName(it->second.usage) + " of " +
                            std::to_string(it->second.size) + " bytes");
      }
    }
  }
  std::set<std::string_view> names;
  bool seen_output = false;
  for (size_t i = 0; i < neff.tensors.size(); ++i) {
    const TensorDecl& t = neff.tensors[i];
    const std::string what = where + ": " + UsageName(t.usage) + " " + Quote(t.name);
    if (t.name.empty())
      return InvalidError(where + ": tensor " + std::to_string(i) + " has no name");
    if (t.usage != TensorUsage::kInput && t.usage != TensorUsage::kOutput) {
      return InvalidError(what + ": unknown usage");
    }
    if (t.usage == TensorUsage::kOutput) seen_output = true;
    if (t.usage == TensorUsage::kInput && seen_output) {
      return InvalidError(what + ": inputs must come before outputs");
    }
    if (!names.insert(t.name).second) return InvalidError(what + ": declared twice");
    if (t.shape.size() > kMaxShapeRank) {
      return InvalidError(what + ": more than " + std::to_string(kMaxShapeRank) + " dimensions");
    }
    auto it = io.find(t.name);
    if (it == io.end() || it->second.usage != t.usage) {
      return InvalidError(what + " has no " + UsageName(t.usage) +
                          " variable of that name in any subgraph's def.json");
    }
    if (it->second.size != t.size) {
      return InvalidError(what + ": " + std::to_string(t.size) + " bytes, but its variable in " +
                          it->second.sg + "/def.json has " + std::to_string(it->second.size));
    }
    if (t.dtype != isa::Dtype::kUnknown) {
      std::optional<uint64_t> bytes = ShapeBytes(t.shape, t.dtype);
      if (!bytes || *bytes != t.size) {
        return InvalidError(what + ": dtype " + std::string(isa::DtypeNeffName(t.dtype)) +
                            " and its shape make " +
                            (bytes ? std::to_string(*bytes) : std::string("over 2^64")) +
                            " bytes, but the variable has " + std::to_string(t.size));
      }
    }
  }
  for (const auto& [name, v] : io) {
    if (names.count(name) == 0) {
      return InvalidError(FieldPath(v.sg + "/def.json: var", name) + ": " + UsageName(v.usage) +
                          " variable that is not a declared tensor of the NEFF (neff.json)");
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckAccessBounds(const DmaAccess& a, uint64_t var_size, const std::string& where) {
  if (a.steps.size() != a.sizes.size()) {
    return InvalidError(where + "_steps/" + where.substr(where.rfind('.') + 1) +
                        "_sizes: " + std::to_string(a.steps.size()) + " steps but " +
                        std::to_string(a.sizes.size()) + " sizes; they must be equal in length");
  }
  if (a.sizes.size() > kMaxApDims) {
    return InvalidError(where + "_sizes: more than " + std::to_string(kMaxApDims) + " entries");
  }
  auto past = [&](const std::string& detail) {
    return InvalidError(where + ": the access pattern on the " + std::to_string(var_size) +
                        "-byte variable " + Quote(a.var) + " " + detail);
  };
  if (a.offset > var_size) {
    return past("starts at offset " + std::to_string(a.offset) + ", past its end");
  }
  if (a.sizes.empty()) return Status::Ok();  // [offset, var_size): the rest of the variable
  const uint64_t element = static_cast<uint64_t>(isa::DtypeSize(a.dtype));
  if (element == 0) return InvalidError(where + "_dtype: no dtype");
  if (a.sizes[0] % element != 0) {
    return InvalidError(where + "_sizes[0]: " + std::to_string(a.sizes[0]) +
                        " bytes is not a whole number of " + std::to_string(element) + "-byte " +
                        std::string(isa::DtypeNeffName(a.dtype)) + " elements");
  }
  Int128 lo = static_cast<Int128>(a.offset);
  Int128 hi = static_cast<Int128>(a.offset) + static_cast<Int128>(element);
  for (size_t i = 0; i < a.sizes.size(); ++i) {
    uint64_t count = i == 0 ? a.sizes[0] / element : a.sizes[i];
    if (count == 0) return Status::Ok();  // moves nothing
    Int128 reach = 0;
    if (__builtin_mul_overflow(static_cast<Int128>(count - 1), static_cast<Int128>(a.steps[i]),
                               &reach) ||
        __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi)) {
      return past("overflows computing its extent");
    }
  }
  if (lo < 0) {
    return past("reaches " +
                std::to_string(static_cast<int64_t>(-lo > INT64_MAX ? INT64_MAX : -lo)) +
                " bytes before its start");
  }
  if (hi > static_cast<Int128>(var_size)) {
    uint64_t end = hi > static_cast<Int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(hi);
    return past("reaches byte " + std::to_string(end) + ", past its end");
  }
  return Status::Ok();
}

Status ValidateNeff(const Neff& neff) {
  TRNSIM_RETURN_IF_ERROR(ValidateHeader(neff.header));
  if (neff.subgraphs.empty()) return InvalidError("NEFF has no subgraph (no sg00/def.json)");
  if (neff.subgraphs.size() > kMaxSubgraphs) {
    return InvalidError("NEFF has " + std::to_string(neff.subgraphs.size()) +
                        " subgraphs; at most " + std::to_string(kMaxSubgraphs) + " are read");
  }
  if (neff.header.lnc_size == 2 && neff.subgraphs.size() != 2) {
    return InvalidError(
        "NEFF header: lnc_size (offset 552) is 2, which needs exactly 2 "
        "subgraphs (sg00, sg01: one per physical core), but the NEFF has " +
        std::to_string(neff.subgraphs.size()));
  }
  for (size_t i = 0; i < neff.subgraphs.size(); ++i) {
    const Subgraph& sg = neff.subgraphs[i];
    if (sg.name != SubgraphDirName(i)) {
      return InvalidError("NEFF subgraph " + std::to_string(i) + " is named " + Quote(sg.name) +
                          "; expected " + SubgraphDirName(i));
    }
    TRNSIM_RETURN_IF_ERROR(ValidateSubgraph(sg));
  }
  TRNSIM_RETURN_IF_ERROR(CheckTopFiles(neff));
  return CheckTensors(neff);
}

}  // namespace trnsim::neff
