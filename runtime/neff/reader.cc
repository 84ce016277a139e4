// ReadNeff: header -> payload hash -> tar members -> JSON members -> typed Neff -> validation.
#include <algorithm>
#include <map>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "runtime/neff/archive.h"
#include "runtime/neff/def_json.h"
#include "runtime/neff/engine_json.h"
#include "runtime/neff/graph_json.h"
#include "runtime/neff/hash.h"
#include "runtime/neff/header.h"
#include "runtime/neff/layout.h"
#include "runtime/neff/limits.h"
#include "runtime/neff/neff_io.h"
#include "runtime/neff/validate.h"

namespace trnsim::neff {
namespace {

using Files = std::map<std::string, std::vector<uint8_t>>;

// The decompressed payload may be at most this large (docs/neff.md, "Limits").
uint64_t PayloadBudget(size_t neff_bytes) {
  uint64_t scaled = neff_bytes > kMaxPayloadBytes / kMaxCompressionRatio
                        ? kMaxPayloadBytes
                        : uint64_t{neff_bytes} * kMaxCompressionRatio;
  return std::min(kMaxPayloadBytes, std::max(kPayloadFloorBytes, scaled));
}

// Takes the member `name` out of `files`; NRT_INVALID naming `ref` if it is missing.
StatusOr<std::vector<uint8_t>> TakeMember(Files* files, const std::string& dir,
                                          const std::string& name, const std::string& ref) {
  auto it = files->find(name);
  if (it == files->end()) {
    return InvalidError("missing file " + dir + "/" + name + " (named by " + ref + ")");
  }
  std::vector<uint8_t> data = std::move(it->second);
  files->erase(it);
  return data;
}

Status ReadSubgraph(const std::string& dir, Files files, Subgraph* sg) {
  sg->name = dir;
  const std::string def_path = dir + "/" + std::string(kDefJsonName);
  auto def_it = files.find(std::string(kDefJsonName));
  if (def_it == files.end()) {
    return InvalidError("missing file " + def_path + " (every subgraph directory needs one)");
  }
  {
    TRNSIM_ASSIGN_OR_RETURN(Json def, ParseJson(def_path, def_it->second));
    TRNSIM_RETURN_IF_ERROR(ParseDefJson(def, def_path, sg));
  }
  files.erase(def_it);
  // Each referenced file is a distinct plain path other than def.json.
  std::map<std::string_view, std::string> used{{kDefJsonName, "def.json itself"}};
  for (const EngineProgram& engine : sg->engines) {
    for (const std::string* name : {&engine.json_file, &engine.instr_file}) {
      if (name->empty()) continue;
      const std::string key = std::string(isa::EngineName(engine.engine)) +
                              (name == &engine.instr_file ? "_instr" : "");
      if (!IsCanonicalPath(*name)) {
        return InvalidError(def_path + ": " + key + ": \"" + name->substr(0, 100) +
                            "\" is not a plain relative path (no '..', '.', '//' or leading '/')");
      }
      auto [it, inserted] = used.emplace(*name, "'" + key + "'");
      if (!inserted) {
        return InvalidError(def_path + ": " + key + ": " + dir + "/" + name->substr(0, 100) +
                            " is already " + it->second);
      }
    }
  }
  for (EngineProgram& engine : sg->engines) {
    const std::string key(isa::EngineName(engine.engine));
    if (!engine.json_file.empty()) {
      const std::string ref = def_path + " '" + key + "'";
      TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                              TakeMember(&files, dir, engine.json_file, ref));
      const std::string path = dir + "/" + engine.json_file;
      TRNSIM_ASSIGN_OR_RETURN(Json json, ParseJson(path, bytes));
      TRNSIM_RETURN_IF_ERROR(ParseEngineJson(json, path, &engine));
    }
    if (!engine.instr_file.empty()) {
      const std::string ref = def_path + " '" + key + "_instr'";
      TRNSIM_ASSIGN_OR_RETURN(engine.instructions, TakeMember(&files, dir, engine.instr_file, ref));
    }
  }
  sg->files = std::move(files);
  return Status::Ok();
}

// Tensors of a NEFF without neff.json: the input, then the output variables of the subgraphs
// (sg00 first; a name already seen is not repeated), in def.json order.
std::vector<TensorDecl> DeriveTensors(const std::vector<Subgraph>& subgraphs) {
  std::vector<TensorDecl> tensors;
  std::unordered_set<std::string_view> seen;
  for (TensorUsage usage : {TensorUsage::kInput, TensorUsage::kOutput}) {
    VariableType type = usage == TensorUsage::kInput ? VariableType::kInput : VariableType::kOutput;
    for (const Subgraph& sg : subgraphs) {
      for (const Variable& v : sg.variables) {
        if (v.type != type || !seen.insert(v.name).second) continue;
        TensorDecl t;
        t.name = v.name;
        t.usage = usage;
        t.size = v.size;
        // A tensor past 4 GiB has no one-dimensional uint32 shape: it is left without one.
        if (v.size <= UINT32_MAX) t.shape = {static_cast<uint32_t>(v.size)};
        tensors.push_back(std::move(t));
      }
    }
  }
  return tensors;
}

// Sizes of neff.json tensors come from their variables (the first subgraph that has one; the
// validator checks that all agree).
void FillTensorSizes(const std::vector<Subgraph>& subgraphs, std::vector<TensorDecl>* tensors) {
  std::unordered_map<std::string_view, const Variable*> io;
  for (const Subgraph& sg : subgraphs) {
    for (const Variable& v : sg.variables) {
      if (v.type == VariableType::kInput || v.type == VariableType::kOutput) {
        io.emplace(v.name, &v);
      }
    }
  }
  for (TensorDecl& t : *tensors) {
    auto it = io.find(t.name);
    if (it != io.end()) t.size = it->second->size;
  }
}

StatusOr<Neff> Read(std::span<const uint8_t> bytes, const ReadOptions& options) {
  Neff neff;
  TRNSIM_ASSIGN_OR_RETURN(neff.header, DecodeHeader(bytes));
  std::span<const uint8_t> payload = bytes.subspan(kHeaderSize);
  if (neff.header.data_size != payload.size()) {
    return InvalidError(
        "NEFF header: data_size (offset 16) is " + std::to_string(neff.header.data_size) + " but " +
        std::to_string(payload.size()) + " bytes follow the header (" +
        (neff.header.data_size > payload.size() ? "truncated NEFF" : "trailing bytes") + ")");
  }
  if (options.validate_hash) {
    TRNSIM_RETURN_IF_ERROR(VerifyPayloadHash(neff.header.pkg_version, neff.header.hash, payload));
  }
  TRNSIM_ASSIGN_OR_RETURN(std::vector<ArchiveMember> members,
                          ReadArchive(payload, PayloadBudget(bytes.size())));

  std::map<size_t, Files> dirs;  // subgraph index -> files by path inside the directory
  std::optional<std::vector<uint8_t>> graph;
  for (ArchiveMember& m : members) {
    size_t slash = m.path.find('/');
    std::string_view first = std::string_view(m.path).substr(0, slash);
    bool canonical = false;
    std::optional<size_t> index = SubgraphIndexOf(first, &canonical);
    if (index) {
      if (!canonical || *index >= kMaxSubgraphs) {
        return InvalidError("NEFF payload: " + std::string(first) +
                            "/ is not a subgraph directory trnsim reads (sg00 .. sg" +
                            std::to_string(kMaxSubgraphs - 1) + ", two digits)");
      }
      if (slash == std::string::npos) {
        return InvalidError("NEFF payload: " + m.path +
                            " is a file; it must be a subgraph "
                            "directory");
      }
      dirs[*index].emplace(m.path.substr(slash + 1), std::move(m.data));
    } else if (m.path == kGraphJsonName) {
      graph = std::move(m.data);
    } else {
      neff.top_files.emplace(std::move(m.path), std::move(m.data));
    }
  }
  members.clear();
  if (dirs.empty()) return InvalidError("NEFF payload has no subgraph: missing sg00/def.json");
  size_t expected = 0;
  for (auto& [index, files] : dirs) {
    if (index != expected) {
      return InvalidError("NEFF payload: " + SubgraphDirName(index) + "/ without " +
                          SubgraphDirName(expected) + "/: subgraphs must be contiguous from sg00");
    }
    ++expected;
    Subgraph sg;
    TRNSIM_RETURN_IF_ERROR(ReadSubgraph(SubgraphDirName(index), std::move(files), &sg));
    neff.subgraphs.push_back(std::move(sg));
  }
  dirs.clear();
  if (graph) {
    {
      TRNSIM_ASSIGN_OR_RETURN(Json json, ParseJson(kGraphJsonName, *graph));
      TRNSIM_RETURN_IF_ERROR(ParseGraphJson(json, kGraphJsonName, &neff.tensors));
    }
    FillTensorSizes(neff.subgraphs, &neff.tensors);
  } else {
    neff.tensors = DeriveTensors(neff.subgraphs);
  }
  TRNSIM_RETURN_IF_ERROR(ValidateNeff(neff));
  return neff;
}

}  // namespace

StatusOr<Neff> ReadNeff(std::span<const uint8_t> bytes, const ReadOptions& options) {
  try {
    return Read(bytes, options);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kFailHostMemAlloc, "NEFF reader: out of host memory");
  } catch (const std::exception& e) {
    return InvalidError(std::string("NEFF reader: ") + e.what());
  }
}

}  // namespace trnsim::neff
