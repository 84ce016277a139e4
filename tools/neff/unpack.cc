// neff unpack NEFF DIR: DIR/header.json (every header field, and the payload's member order)
// and DIR/payload/<member> for each tar member.
// neff pack DIR -o NEFF: the reverse. The payload is written as a gzip'd PAX tar in the order
// header.json lists (then any other files under payload/, sorted), and data_size and the hash
// are recomputed, so unpack + pack of a trnsim NEFF gives the same bytes. Pack checks the
// header fields but not the payload: it can make NEFFs that `neff verify` refuses (tests do).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/neff/archive.h"
#include "runtime/neff/hash.h"
#include "runtime/neff/header.h"
#include "runtime/neff/layout.h"
#include "runtime/neff/limits.h"
#include "tools/kernel_builder/asm_text.h"
#include "tools/neff/commands.h"
#include "tools/neff/files.h"

namespace trnsim::neff_tool {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr char kHeaderJson[] = "header.json";
constexpr char kPayloadDir[] = "payload";

Json HeaderToJson(const neff::Header& h, const std::vector<std::string>& members) {
  return Json{{"name", h.name},
              {"pkg_version", h.pkg_version},
              {"header_size", h.header_size},
              {"data_size", h.data_size},
              {"neff_version_major", h.neff_version_major},
              {"neff_version_minor", h.neff_version_minor},
              {"build_version", h.neff_build_version},
              {"num_tpb", h.num_tpb},
              {"hash", kb::asmtext::Hex(h.hash)},
              {"uuid", kb::asmtext::Hex(h.uuid)},
              {"requested_tpb_count", h.requested_tpb_count},
              {"tpb_per_node", kb::asmtext::Hex(h.tpb_per_node)},
              {"feature_bits", h.feature_bits},
              {"lnc_size", h.lnc_size},
              {"members", members}};
}

template <size_t N>
Status HexField(const Json& j, const char* key, std::array<uint8_t, N>* out) {
  auto bytes = kb::asmtext::ParseHex(j.at(key).get<std::string>());
  if (!bytes || bytes->size() != N)
    return InvalidError(std::string(key) + ": expected " + std::to_string(2 * N) + " hex digits");
  std::copy(bytes->begin(), bytes->end(), out->begin());
  return Status::Ok();
}

StatusOr<neff::Header> HeaderFromJson(const Json& j) {
  neff::Header h;
  try {
    h.name = j.at("name").get<std::string>();
    h.pkg_version = j.at("pkg_version").get<uint64_t>();
    h.header_size = j.at("header_size").get<uint64_t>();
    h.neff_version_major = j.at("neff_version_major").get<uint64_t>();
    h.neff_version_minor = j.at("neff_version_minor").get<uint64_t>();
    h.neff_build_version = j.at("build_version").get<std::string>();
    h.num_tpb = j.at("num_tpb").get<uint32_t>();
    h.requested_tpb_count = j.at("requested_tpb_count").get<uint32_t>();
    h.feature_bits = j.at("feature_bits").get<uint64_t>();
    h.lnc_size = j.at("lnc_size").get<uint32_t>();
    TRNSIM_RETURN_IF_ERROR(HexField(j, "uuid", &h.uuid));
    TRNSIM_RETURN_IF_ERROR(HexField(j, "tpb_per_node", &h.tpb_per_node));
  } catch (const nlohmann::json::exception& e) {
    return InvalidError(e.what());
  }
  TRNSIM_RETURN_IF_ERROR(neff::ValidateHeader(h));
  return h;
}

}  // namespace

int RunUnpack(const std::string& path, const std::string& dir) {
  StatusOr<std::vector<uint8_t>> bytes = ReadFile(path);
  if (!bytes.ok()) return Fail("unpack", bytes.status().message());
  StatusOr<neff::Header> header = neff::DecodeHeader(*bytes);
  if (!header.ok()) return Fail("unpack", path + ": " + header.status().message());
  std::span<const uint8_t> payload = std::span<const uint8_t>(*bytes).subspan(neff::kHeaderSize);
  StatusOr<std::vector<neff::ArchiveMember>> members =
      neff::ReadArchive(payload, neff::kMaxPayloadBytes);
  if (!members.ok()) return Fail("unpack", path + ": " + members.status().message());
  std::vector<std::string> names;
  std::error_code ec;
  for (const neff::ArchiveMember& m : *members) {
    fs::path out = fs::path(dir) / kPayloadDir / m.path;  // ReadArchive normalised m.path
    fs::create_directories(out.parent_path(), ec);
    if (ec) return Fail("unpack", out.parent_path().string() + ": " + ec.message());
    Status written = WriteFile(out.string(), m.data);
    if (!written.ok()) return Fail("unpack", written.message());
    names.push_back(m.path);
  }
  fs::create_directories(fs::path(dir) / kPayloadDir, ec);
  std::string json =
      HeaderToJson(*header, names).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  Status written = WriteFile((fs::path(dir) / kHeaderJson).string(), json);
  return written.ok() ? 0 : Fail("unpack", written.message());
}

int RunPack(const std::string& dir, const std::string& output) {
  StatusOr<std::vector<uint8_t>> text = ReadFile((fs::path(dir) / kHeaderJson).string());
  if (!text.ok()) return Fail("pack", text.status().message());
  Json j = Json::parse(text->begin(), text->end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Fail("pack", dir + "/header.json: not a JSON object");
  StatusOr<neff::Header> header = HeaderFromJson(j);
  if (!header.ok()) return Fail("pack", dir + "/header.json: " + header.status().message());
  std::vector<std::string> order;
  if (j.contains("members") && j["members"].is_array()) {
    for (const Json& m : j["members"]) {
      if (m.is_string()) order.push_back(m.get<std::string>());
    }
  }
  fs::path root = fs::path(dir) / kPayloadDir;
  std::set<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) found.insert(fs::relative(it->path(), root).generic_string());
  }
  if (ec) return Fail("pack", root.string() + ": " + ec.message());
  std::vector<std::string> paths;
  for (const std::string& p : order) {
    if (!neff::IsCanonicalPath(p))
      return Fail("pack", "header.json: member \"" + p + "\" is not a plain relative path");
    if (found.erase(p) == 0)
      return Fail("pack", root.string() + "/" + p + ": listed in header.json but missing");
    paths.push_back(p);
  }
  paths.insert(paths.end(), found.begin(), found.end());
  std::vector<std::vector<uint8_t>> data;
  data.reserve(paths.size());
  std::vector<neff::ArchiveEntry> entries;
  for (const std::string& p : paths) {
    StatusOr<std::vector<uint8_t>> bytes = ReadFile((root / p).string());
    if (!bytes.ok()) return Fail("pack", bytes.status().message());
    data.push_back(std::move(bytes).value());
  }
  for (size_t i = 0; i < paths.size(); ++i) entries.push_back({paths[i], data[i]});
  StatusOr<std::vector<uint8_t>> payload = neff::WriteArchive(entries);
  if (!payload.ok()) return Fail("pack", payload.status().message());
  neff::Header h = *header;
  h.data_size = payload->size();
  StatusOr<neff::PayloadHash> hash = neff::ComputePayloadHash(h.pkg_version, *payload);
  if (!hash.ok()) return Fail("pack", hash.status().message());
  h.hash = *hash;
  std::array<uint8_t, neff::kHeaderSize> head = neff::EncodeHeader(h);
  std::vector<uint8_t> out(head.begin(), head.end());
  out.insert(out.end(), payload->begin(), payload->end());
  Status written = WriteFile(output, out);
  return written.ok() ? 0 : Fail("pack", written.message());
}

}  // namespace trnsim::neff_tool
