// Builders for NEFF tests: typed NEFFs (a minimal one and a rich one using every field), raw
// payloads (a hand-written ustar/gzip writer, so tests can make archives libarchive's writer
// would refuse), and NEFF bytes around a payload.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/neff/neff.h"

namespace trnsim::neff::testing {

// One subgraph: input "in" (16 bytes), output "out" (16 bytes), SP.json with one copy in->out
// on queue set "q0"; tensors float32 [4] each.
Neff MinimalNeff();

// Two subgraphs (lnc_size 2), every variable type, every queue-set and descriptor field,
// .npy and raw constants, extra subgraph and top-level files.
Neff RichNeff();

// A tar member for the hand-written archive writer.
struct TarMember {
  std::string path;
  std::string data;
  char type = '0';             // ustar typeflag: '0' file, '5' directory, '2' symlink, ...
  std::string link = {};       // for '1'/'2'
  int64_t size_override = -1;  // header size field when >= 0 (data is written as is)
};

// A ustar archive (paths up to 100 bytes) with the two zero end blocks.
std::vector<uint8_t> Tar(const std::vector<TarMember>& members);
std::vector<uint8_t> Gzip(const std::vector<uint8_t>& bytes);

// The members of MinimalNeff() as JSON text written by hand (as docs/neff.md shows).
std::map<std::string, std::string> MinimalMembers();
std::vector<TarMember> ToTar(const std::map<std::string, std::string>& members);

// A NEFF around `payload`: header from `header` with data_size and hash filled in
// (pkg_version decides the hash).
std::vector<uint8_t> WrapPayload(const std::vector<uint8_t>& payload, Header header = {});
// WrapPayload(Gzip(Tar(ToTar(members)))).
std::vector<uint8_t> NeffFromMembers(const std::map<std::string, std::string>& members);

std::vector<uint8_t> Bytes(std::string_view s);

}  // namespace trnsim::neff::testing
