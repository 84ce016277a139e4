// neff inspect: the NEFF's header, tensors, subgraphs, variables, queue sets and per-engine
// descriptor/instruction counts, as text or as JSON (schema: docs/toolchain.md, "neff inspect
// --json"; keys sorted, so the output is stable).
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/neff/hash.h"
#include "runtime/neff/neff_io.h"
#include "tools/kernel_builder/asm_text.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/neff/commands.h"
#include "tools/neff/files.h"

namespace trnsim::neff_tool {
namespace {

using Json = nlohmann::json;  // std::map objects: sorted keys

Json HeaderJson(const neff::Header& h, std::span<const uint8_t> payload) {
  size_t digest = neff::PayloadHashBytes(h.pkg_version);
  bool valid = neff::VerifyPayloadHash(h.pkg_version, h.hash, payload).ok();
  return Json{{"name", h.name},
              {"pkg_version", h.pkg_version},
              {"header_size", h.header_size},
              {"data_size", h.data_size},
              {"neff_version",
               std::to_string(h.neff_version_major) + "." + std::to_string(h.neff_version_minor)},
              {"build_version", h.neff_build_version},
              {"num_tpb", h.num_tpb},
              {"requested_tpb_count", h.requested_tpb_count},
              {"feature_bits", h.feature_bits},
              {"lnc_size", h.lnc_size},
              {"uuid", kb::asmtext::Hex(h.uuid)},
              {"hash", kb::asmtext::Hex(std::span<const uint8_t>(h.hash.data(), digest))},
              {"hash_kind", h.pkg_version == 1 ? "sha256" : "md5"},
              {"hash_valid", valid}};
}

Json EngineJson(const neff::EngineProgram& e, const isa::IsaLimits& limits, bool* all_trnsim) {
  Json j{{"engine", std::string(isa::EngineName(e.engine))},
         {"json_file", e.json_file},
         {"instr_file", e.instr_file},
         {"descriptors", e.dma.size()},
         {"stream_bytes", e.instructions.size()}};
  if (e.instructions.empty()) {
    j["encoding"] = "none";
    j["instructions"] = 0;
  } else if (!isa::HasStreamMagic(e.instructions)) {
    j["encoding"] = "foreign";
    j["instructions"] = nullptr;
    *all_trnsim = false;
  } else {
    j["encoding"] = "trnsim";
    StatusOr<isa::Program> p = isa::DecodeStream(e.instructions, limits);
    j["instructions"] = p.ok() ? Json(p->instructions.size()) : Json(nullptr);
    if (!p.ok()) j["error"] = p.status().message();
  }
  return j;
}

Json NeffJson(const neff::Neff& n, std::span<const uint8_t> payload, const isa::IsaLimits& limits) {
  Json tensors = Json::array();
  for (const neff::TensorDecl& t : n.tensors) {
    tensors.push_back({{"name", t.name},
                       {"usage", t.usage == neff::TensorUsage::kInput ? "input" : "output"},
                       {"dtype", t.dtype == isa::Dtype::kUnknown
                                     ? Json(nullptr)
                                     : Json(std::string(isa::DtypeNeffName(t.dtype)))},
                       {"shape", t.shape},
                       {"size", t.size}});
  }
  bool all_trnsim = true;
  Json subgraphs = Json::array();
  for (const neff::Subgraph& sg : n.subgraphs) {
    Json vars = Json::array(), queues = Json::array(), engines = Json::array();
    for (const neff::Variable& v : sg.variables) {
      Json j{{"name", v.name},
             {"type", std::string(neff::VariableTypeName(v.type))},
             {"var_id", v.var_id},
             {"size", v.size},
             {"alignment", v.alignment}};
      if (!v.file_name.empty()) j["file_name"] = v.file_name;
      vars.push_back(std::move(j));
    }
    for (const neff::QueueSet& q : sg.queue_sets) {
      queues.push_back(
          {{"name", q.name}, {"type", q.type}, {"num_queues", q.num_queues}, {"owner", q.owner}});
    }
    for (const neff::EngineProgram& e : sg.engines)
      engines.push_back(EngineJson(e, limits, &all_trnsim));
    subgraphs.push_back({{"name", sg.name},
                         {"variables", vars},
                         {"queue_sets", queues},
                         {"engines", engines},
                         {"debug_prefixes", sg.debug_prefixes},
                         {"files", sg.files.size()}});
  }
  return Json{{"header", HeaderJson(n.header, payload)},
              {"tensors", tensors},
              {"subgraphs", subgraphs},
              {"trnsim_encoding", all_trnsim}};
}

std::string ShapeOf(const Json& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].dump();
  return s + "]";
}

void PrintText(const Json& j) {
  const Json& h = j["header"];
  std::printf("NEFF %s: version %s, pkg_version %s, lnc %s, build \"%s\"\n",
              h["name"].get<std::string>().c_str(), h["neff_version"].get<std::string>().c_str(),
              h["pkg_version"].dump().c_str(), h["lnc_size"].dump().c_str(),
              h["build_version"].get<std::string>().c_str());
  std::printf("  payload %s bytes, %s %s (%s), uuid %s\n", h["data_size"].dump().c_str(),
              h["hash_kind"].get<std::string>().c_str(), h["hash"].get<std::string>().c_str(),
              h["hash_valid"].get<bool>() ? "valid" : "MISMATCH",
              h["uuid"].get<std::string>().c_str());
  std::printf("  engine streams: %s\n", j["trnsim_encoding"].get<bool>()
                                            ? "trnsim encoding"
                                            : "NOT trnsim's encoding (foreign)");
  std::printf("tensors:\n");
  for (const Json& t : j["tensors"]) {
    std::printf("  %-6s %-24s %-9s %-16s %s bytes\n", t["usage"].get<std::string>().c_str(),
                t["name"].get<std::string>().c_str(),
                t["dtype"].is_null() ? "?" : t["dtype"].get<std::string>().c_str(),
                ShapeOf(t["shape"]).c_str(), t["size"].dump().c_str());
  }
  for (const Json& sg : j["subgraphs"]) {
    std::printf("%s: %zu variables, %zu queue sets, %s files\n",
                sg["name"].get<std::string>().c_str(), sg["variables"].size(),
                sg["queue_sets"].size(), sg["files"].dump().c_str());
    for (const Json& v : sg["variables"]) {
      std::printf("  var %-4s %-24s %-12s %s bytes\n", v["var_id"].dump().c_str(),
                  v["name"].get<std::string>().c_str(), v["type"].get<std::string>().c_str(),
                  v["size"].dump().c_str());
    }
    for (const Json& q : sg["queue_sets"]) {
      std::printf("  queue set %s type %s x%s\n", q["name"].get<std::string>().c_str(),
                  q["type"].get<std::string>().c_str(), q["num_queues"].dump().c_str());
    }
    for (size_t i = 0; i < sg["debug_prefixes"].size(); ++i) {
      std::printf("  debug prefix %zu %s\n", i,
                  sg["debug_prefixes"][i].dump(-1, ' ', false, Json::error_handler_t::replace)
                      .c_str());
    }
    for (const Json& e : sg["engines"]) {
      std::printf("  engine %-4s %-7s %6s instructions %4s descriptors %8s bytes%s\n",
                  e["engine"].get<std::string>().c_str(), e["encoding"].get<std::string>().c_str(),
                  e["instructions"].is_null() ? "?" : e["instructions"].dump().c_str(),
                  e["descriptors"].dump().c_str(), e["stream_bytes"].dump().c_str(),
                  e.contains("error") ? ("  ERROR: " + e["error"].get<std::string>()).c_str() : "");
    }
  }
}

}  // namespace

int RunInspect(const InspectArgs& args) {
  const simulator::ChipSpec* chip = kb::ChipSpecByName(args.chip);
  if (chip == nullptr) return Fail("inspect", "unknown chip '" + args.chip + "'");
  StatusOr<std::vector<uint8_t>> bytes = ReadFile(args.neff);
  if (!bytes.ok()) return Fail("inspect", bytes.status().message());
  StatusOr<neff::Neff> n = neff::ReadNeff(*bytes);
  if (!n.ok()) return Fail("inspect", args.neff + ": " + n.status().message());
  std::span<const uint8_t> payload = std::span<const uint8_t>(*bytes).subspan(neff::kHeaderSize);
  Json j = NeffJson(*n, payload, isa::LimitsFor(*chip));
  if (args.json) {
    std::printf("%s\n", j.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
  } else {
    PrintText(j);
  }
  return std::fflush(stdout) == 0 ? 0 : Fail("inspect", "cannot write to stdout");
}

}  // namespace trnsim::neff_tool
