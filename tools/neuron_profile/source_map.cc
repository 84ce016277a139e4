#include "tools/neuron_profile/source_map.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "runtime/neff/neff_io.h"

namespace trnsim::neuron_profile {
namespace {

using Json = nlohmann::json;

struct Bad {
  std::string what;
};

const Json& Member(const Json& object, const char* key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) throw Bad{path + "." + key + ": missing"};
  return *it;
}

uint64_t Unsigned(const Json& object, const char* key, const std::string& path, uint64_t limit) {
  const Json& v = Member(object, key, path);
  if (!v.is_number_unsigned()) throw Bad{path + "." + key + ": expected an unsigned integer"};
  const uint64_t n = v.get<uint64_t>();
  if (n >= limit) throw Bad{path + "." + key + ": " + std::to_string(n) + " is out of range"};
  return n;
}

std::string Text(const Json& object, const char* key, const std::string& path) {
  const Json& v = Member(object, key, path);
  if (!v.is_string()) throw Bad{path + "." + key + ": expected a string"};
  return v.get<std::string>();
}

constexpr uint64_t kMaxLine = uint64_t(1) << 31;
constexpr uint64_t kMaxIndex = uint64_t(1) << 32;

KernelDebugInfo Parse(const Json& doc, const std::vector<std::string>& engines, int subgraphs) {
  if (!doc.is_object()) throw Bad{"expected an object"};
  KernelDebugInfo info;
  info.kernel = Text(doc, "kernel", "");
  info.model_name = info.kernel;
  info.subgraphs = subgraphs;
  const Json& list = Member(doc, "instructions", "");
  if (!list.is_array()) throw Bad{"instructions: expected an array"};
  std::map<std::tuple<std::string, uint64_t, std::string>, int> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = "instructions[" + std::to_string(i) + "]";
    const Json& j = list[i];
    if (!j.is_object()) throw Bad{p + ": expected an object"};
    const int core = int(Unsigned(j, "core", p, uint64_t(subgraphs)));
    const std::string engine = Text(j, "engine", p);
    int e = -1;
    for (size_t k = 0; k < engines.size(); ++k)
      if (engines[k] == engine) e = int(k);
    if (e < 0) throw Bad{p + ".engine: \"" + engine + "\" is not an engine"};
    const uint64_t index = Unsigned(j, "index", p, kMaxIndex);
    SourceLocation s{Text(j, "file", p), Unsigned(j, "line", p, kMaxLine), Text(j, "api", p)};
    auto [it, fresh] =
        seen.try_emplace({s.file, s.line, s.api}, static_cast<int>(info.sources.size()));
    if (fresh) info.sources.push_back(std::move(s));
    KernelDebugInfo::Entry entry{Text(j, "opcode", p), it->second};
    if (!info.entries.try_emplace({core, e, index}, std::move(entry)).second) {
      throw Bad{p + ": a second entry for sg" + std::to_string(core) + " " + engine + "[" +
                std::to_string(index) + "]"};
    }
  }
  return info;
}

}  // namespace

StatusOr<KernelDebugInfo> ParseKernelDebugInfo(const std::string& where, std::string_view text,
                                               const std::vector<std::string>& engines,
                                               int subgraphs) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  const std::string what = where + " " + std::string(kKernelDebugInfoMember);
  if (doc.is_discarded()) return InvalidError(what + ": not a JSON document");
  try {
    return Parse(doc, engines, subgraphs);
  } catch (const Bad& bad) {
    return InvalidError(what + ": " + bad.what);
  } catch (const std::exception& e) {  // a conversion nlohmann refused
    return InvalidError(what + ": " + e.what());
  }
}

StatusOr<std::optional<KernelDebugInfo>> ReadKernelDebugInfo(
    const std::string& neff_path, const std::vector<std::string>& engines) {
  std::ifstream in(neff_path, std::ios::binary);
  if (!in) return InvalidError("cannot read the NEFF '" + neff_path + "'");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  StatusOr<neff::Neff> n = neff::ReadNeff(bytes);
  if (!n.ok()) return InvalidError(neff_path + ": " + n.status().message());
  auto member = n->top_files.find(std::string(kKernelDebugInfoMember));
  if (member == n->top_files.end()) return std::optional<KernelDebugInfo>();
  const std::string text(member->second.begin(), member->second.end());
  TRNSIM_ASSIGN_OR_RETURN(
      KernelDebugInfo info,
      ParseKernelDebugInfo(neff_path, text, engines, static_cast<int>(n->subgraphs.size())));
  info.model_name = n->header.name;
  return std::optional<KernelDebugInfo>(std::move(info));
}

Status AttachSources(const KernelDebugInfo& info, ProfileDocument* profile) {
  const int subgraphs = std::max(1, info.subgraphs);
  const int base = static_cast<int>(profile->sources.size());
  std::vector<std::pair<InstructionEvent*, int>> found;
  for (ExecutionRecord& x : profile->executions) {
    if (!x.model_name.empty() && x.model_name != info.model_name) continue;
    for (InstructionEvent& t : x.instructions) {
      auto it = info.entries.find({t.core % subgraphs, t.engine, t.pc});
      if (it == info.entries.end()) continue;
      if (it->second.opcode != t.opcode) {
        return InvalidError(std::string(kKernelDebugInfoMember) + " of kernel '" + info.kernel +
                            "' says sg" + std::to_string(t.core % subgraphs) + " " +
                            profile->engines[size_t(t.engine)] + "[" + std::to_string(t.pc) +
                            "] is " + it->second.opcode + ", but execution " +
                            std::to_string(x.index) + " ran " + t.opcode +
                            " there: the NEFF is not the one profiled");
      }
      found.push_back({&t, base + it->second.source});
    }
  }
  profile->sources.insert(profile->sources.end(), info.sources.begin(), info.sources.end());
  for (auto [t, source] : found) t->source = source;
  return Status::Ok();
}

std::string ShortLocation(const SourceLocation& s) {
  const size_t slash = s.file.find_last_of('/');
  const std::string name = slash == std::string::npos ? s.file : s.file.substr(slash + 1);
  return name + ":" + std::to_string(s.line);
}

}  // namespace trnsim::neuron_profile
