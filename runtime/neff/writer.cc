// WriteNeff: validate -> JSON members -> gzip'd PAX tar -> header with data_size and hash.
#include <algorithm>
#include <deque>
#include <new>
#include <string>

#include "runtime/neff/archive.h"
#include "runtime/neff/def_json.h"
#include "runtime/neff/engine_json.h"
#include "runtime/neff/graph_json.h"
#include "runtime/neff/hash.h"
#include "runtime/neff/header.h"
#include "runtime/neff/layout.h"
#include "runtime/neff/neff_io.h"
#include "runtime/neff/validate.h"

namespace trnsim::neff {
namespace {

// Member paths and the generated JSON bytes must outlive the ArchiveEntry views of them; a
// deque never moves what it holds.
struct Staging {
  std::deque<std::string> paths;
  std::deque<std::vector<uint8_t>> blobs;
  std::vector<ArchiveEntry> entries;

  void Add(std::string path, std::span<const uint8_t> data) {
    paths.push_back(std::move(path));
    entries.push_back(ArchiveEntry{paths.back(), data});
  }
  Status AddJson(std::string path, const Json& json) {
    TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, DumpJson(path, json));
    blobs.push_back(std::move(bytes));
    Add(std::move(path), blobs.back());
    return Status::Ok();
  }
};

StatusOr<std::vector<uint8_t>> Write(const Neff& neff) {
  TRNSIM_RETURN_IF_ERROR(ValidateNeff(neff));
  Staging s;
  TRNSIM_RETURN_IF_ERROR(
      s.AddJson(std::string(kGraphJsonName), GraphJsonOf(neff.tensors, neff.subgraphs.size())));
  for (const Subgraph& sg : neff.subgraphs) {
    const std::string dir = sg.name + "/";
    TRNSIM_RETURN_IF_ERROR(s.AddJson(dir + std::string(kDefJsonName), DefJsonOf(sg)));
    for (const EngineProgram& e : sg.engines) {
      if (!e.json_file.empty())
        TRNSIM_RETURN_IF_ERROR(s.AddJson(dir + e.json_file, EngineJsonOf(e)));
      if (!e.instr_file.empty()) s.Add(dir + e.instr_file, e.instructions);
    }
    for (const auto& [name, bytes] : sg.files) s.Add(dir + name, bytes);
  }
  for (const auto& [path, bytes] : neff.top_files) s.Add(path, bytes);

  TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> out, WriteArchive(s.entries, kHeaderSize));
  std::span<const uint8_t> payload = std::span<const uint8_t>(out).subspan(kHeaderSize);
  Header header = neff.header;
  header.data_size = payload.size();
  TRNSIM_ASSIGN_OR_RETURN(header.hash, ComputePayloadHash(header.pkg_version, payload));
  std::array<uint8_t, kHeaderSize> head = EncodeHeader(header);
  std::copy(head.begin(), head.end(), out.begin());
  return out;
}

}  // namespace

StatusOr<std::vector<uint8_t>> WriteNeff(const Neff& neff) {
  try {
    return Write(neff);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kFailHostMemAlloc, "NEFF writer: out of host memory");
  } catch (const std::exception& e) {
    return FailureError(std::string("NEFF writer: ") + e.what());
  }
}

}  // namespace trnsim::neff
