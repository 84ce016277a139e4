// The NEFF payload: a tar archive (PAX/ustar/GNU), gzip'd or plain, read from and written to
// memory through libarchive.
//
// Reading accepts only regular files and directories. Paths are normalised ("./a//b" -> "a/b");
// absolute paths, ".." components, links, devices, FIFOs, sparse files, duplicate paths and a
// file that is also a directory of another path are NRT_INVALID. At most kMaxMembers entries
// are read and the declared sizes of the files may sum to at most `budget_bytes`: a member
// whose size would pass the budget is refused from its tar header, before its data is
// decompressed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace trnsim::neff {

struct ArchiveMember {
  std::string path;  // normalised, relative, no trailing '/'
  std::vector<uint8_t> data;
};

// The regular files of the tar `payload`, in archive order.
StatusOr<std::vector<ArchiveMember>> ReadArchive(std::span<const uint8_t> payload,
                                                 uint64_t budget_bytes);

struct ArchiveEntry {
  std::string_view path;  // must be canonical (NormalizeMemberPath(path) == path)
  std::span<const uint8_t> data;
};

// A gzip'd PAX tar of `entries` in order: mode 0644, uid/gid 0, mtime 0 and no gzip timestamp,
// so equal entries always give equal bytes. The archive starts after `prefix_bytes` zero bytes
// (room for the NEFF header, so the payload is never copied).
StatusOr<std::vector<uint8_t>> WriteArchive(const std::vector<ArchiveEntry>& entries,
                                            size_t prefix_bytes = 0);

// "./a//b/" -> "a/b". NRT_INVALID for an empty, absolute or too long path, or one with a ".."
// component. `what` names the path in the message ("tar member", "sg00/def.json: pe").
StatusOr<std::string> NormalizeMemberPath(std::string_view path, std::string_view what);

}  // namespace trnsim::neff
