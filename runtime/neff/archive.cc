#include "runtime/neff/archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <unordered_set>

#include "runtime/neff/limits.h"

namespace trnsim::neff {
namespace {

using ReadHandle = std::unique_ptr<struct archive, decltype(&archive_read_free)>;
using WriteHandle = std::unique_ptr<struct archive, decltype(&archive_write_free)>;
using EntryHandle = std::unique_ptr<struct archive_entry, decltype(&archive_entry_free)>;

std::string ArchiveError(struct archive* a) {
  const char* s = archive_error_string(a);
  return s != nullptr ? s : "unknown libarchive error";
}

// Shown in messages: the path as stored, cut to a sane length.
std::string Quoted(std::string_view path) {
  constexpr size_t kShown = 200;
  if (path.size() <= kShown) return "'" + std::string(path) + "'";
  return "'" + std::string(path.substr(0, kShown)) + "...'";
}

const char* FileTypeName(mode_t type) {
  switch (type) {
    case AE_IFLNK:
      return "a symbolic link";
    case AE_IFSOCK:
      return "a socket";
    case AE_IFCHR:
      return "a character device";
    case AE_IFBLK:
      return "a block device";
    case AE_IFIFO:
      return "a FIFO";
    default:
      return "of an unknown file type";
  }
}

// Reads the data of the current entry (declared `size` bytes) into `out`.
Status ReadEntryData(struct archive* a, const std::string& path, uint64_t size,
                     std::vector<uint8_t>* out) {
  // reserve() commits no pages until written; `size` is already within the budget.
  out->reserve(size);
  while (true) {
    const void* block = nullptr;
    size_t block_size = 0;
    la_int64_t offset = 0;
    int r = archive_read_data_block(a, &block, &block_size, &offset);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      return InvalidError("NEFF payload: tar member " + Quoted(path) + ": " + ArchiveError(a));
    }
    if (offset < 0 || static_cast<uint64_t>(offset) != out->size() ||
        block_size > size - out->size()) {
      return InvalidError("NEFF payload: tar member " + Quoted(path) +
                          ": data does not match its declared size of " + std::to_string(size) +
                          " bytes");
    }
    const auto* p = static_cast<const uint8_t*>(block);
    out->insert(out->end(), p, p + block_size);
  }
  if (out->size() != size) {
    return InvalidError("NEFF payload: tar member " + Quoted(path) + " is truncated: " +
                        std::to_string(out->size()) + " of " + std::to_string(size) + " bytes");
  }
  return Status::Ok();
}

// A file path must not also be a directory of another file ("a" and "a/b").
Status CheckNoFileIsADirectory(const std::vector<ArchiveMember>& members,
                               const std::unordered_set<std::string_view>& paths) {
  for (const ArchiveMember& m : members) {
    for (size_t slash = m.path.find('/'); slash != std::string::npos;
         slash = m.path.find('/', slash + 1)) {
      std::string_view dir(m.path.data(), slash);
      if (paths.count(dir) != 0) {
        return InvalidError("NEFF payload: tar member " + Quoted(dir) + " is a file, but " +
                            Quoted(m.path) + " needs it as a directory");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> NormalizeMemberPath(std::string_view path, std::string_view what) {
  if (path.empty()) return InvalidError(std::string(what) + ": empty path");
  if (path.size() > kMaxPathBytes) {
    return InvalidError(std::string(what) + ": path " + Quoted(path) + " is longer than " +
                        std::to_string(kMaxPathBytes) + " bytes");
  }
  if (path.front() == '/') {
    return InvalidError(std::string(what) + ": absolute path " + Quoted(path));
  }
  std::string out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(pos, end - pos);
    if (part == "..") {
      return InvalidError(std::string(what) + ": path " + Quoted(path) + " has a '..' component");
    }
    if (!part.empty() && part != ".") {
      if (!out.empty()) out += '/';
      out += part;
    }
    pos = end + 1;
  }
  if (out.empty())
    return InvalidError(std::string(what) + ": path " + Quoted(path) + " names no file");
  return out;
}

StatusOr<std::vector<ArchiveMember>> ReadArchive(std::span<const uint8_t> payload,
                                                 uint64_t budget_bytes) {
  if (payload.empty()) return InvalidError("NEFF payload is empty (data_size 0): no tar");
  ReadHandle a(archive_read_new(), &archive_read_free);
  if (!a) return Status(StatusCode::kFailHostMemAlloc, "libarchive: out of memory");
  // Only what a NEFF can be: tar (ustar, PAX, GNU), plain or gzip'd.
  if (archive_read_support_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
      archive_read_open_memory(a.get(), payload.data(), payload.size()) != ARCHIVE_OK) {
    return InvalidError("NEFF payload is not a tar archive (plain or gzip'd): " +
                        ArchiveError(a.get()));
  }

  std::vector<ArchiveMember> members;
  std::unordered_set<std::string> seen;
  uint64_t used_bytes = 0;
  size_t entries = 0;
  while (true) {
    struct archive_entry* entry = nullptr;
    int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      return InvalidError("NEFF payload: bad tar archive after " + std::to_string(entries) +
                          " entries: " + ArchiveError(a.get()));
    }
    if (++entries > kMaxMembers) {
      return InvalidError("NEFF payload: more than " + std::to_string(kMaxMembers) +
                          " tar entries");
    }
    // PAX stores UTF-8 paths; a ustar path that is not valid in the locale falls back to bytes.
    const char* raw = archive_entry_pathname_utf8(entry);
    if (raw == nullptr) raw = archive_entry_pathname(entry);
    if (raw == nullptr) {
      return InvalidError("NEFF payload: tar entry " + std::to_string(entries) +
                          " has no readable path");
    }
    if (archive_entry_hardlink(entry) != nullptr) {
      return InvalidError("NEFF payload: tar member " + Quoted(raw) +
                          " is a hard link; only regular files and directories are allowed");
    }
    mode_t type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      // Directories carry nothing (their files name them), but may not point outside either.
      std::string_view dir(raw);
      if (!dir.empty() && dir.front() == '/') {
        return InvalidError("NEFF payload: tar member: absolute path " + Quoted(dir));
      }
      if (("/" + std::string(dir) + "/").find("/../") != std::string::npos) {
        return InvalidError("NEFF payload: tar member: path " + Quoted(dir) +
                            " has a '..' component");
      }
      continue;
    }
    if (type != AE_IFREG) {
      return InvalidError("NEFF payload: tar member " + Quoted(raw) + " is " + FileTypeName(type) +
                          "; only regular files and directories are allowed");
    }
    if (archive_entry_sparse_count(entry) > 0) {
      return InvalidError("NEFF payload: tar member " + Quoted(raw) +
                          " is a sparse file; only plain regular files are allowed");
    }
    TRNSIM_ASSIGN_OR_RETURN(std::string path, NormalizeMemberPath(raw, "NEFF payload: tar member"));
    if (!seen.insert(path).second) {
      return InvalidError("NEFF payload: duplicate tar member " + Quoted(path));
    }
    if (!archive_entry_size_is_set(entry) || archive_entry_size(entry) < 0) {
      return InvalidError("NEFF payload: tar member " + Quoted(path) + " has no size");
    }
    auto size = static_cast<uint64_t>(archive_entry_size(entry));
    if (size > budget_bytes - used_bytes) {
      return InvalidError("NEFF payload: tar member " + Quoted(path) + " (" + std::to_string(size) +
                          " bytes) takes the decompressed payload past " +
                          std::to_string(budget_bytes) +
                          " bytes, the limit for a NEFF of this size (docs/neff.md, Limits)");
    }
    used_bytes += size;
    ArchiveMember member{std::move(path), {}};
    TRNSIM_RETURN_IF_ERROR(ReadEntryData(a.get(), member.path, size, &member.data));
    members.push_back(std::move(member));
  }
  std::unordered_set<std::string_view> paths;
  for (const ArchiveMember& m : members) paths.insert(m.path);
  TRNSIM_RETURN_IF_ERROR(CheckNoFileIsADirectory(members, paths));
  return members;
}

namespace {

struct Sink {
  std::vector<uint8_t> bytes;
};

la_ssize_t SinkWrite(struct archive*, void* client, const void* buffer, size_t length) {
  auto* sink = static_cast<Sink*>(client);
  const auto* p = static_cast<const uint8_t*>(buffer);
  try {
    sink->bytes.insert(sink->bytes.end(), p, p + length);
  } catch (...) {
    return -1;
  }
  return static_cast<la_ssize_t>(length);
}

}  // namespace

StatusOr<std::vector<uint8_t>> WriteArchive(const std::vector<ArchiveEntry>& entries,
                                            size_t prefix_bytes) {
  WriteHandle a(archive_write_new(), &archive_write_free);
  if (!a) return Status(StatusCode::kFailHostMemAlloc, "libarchive: out of memory");
  Sink sink;
  sink.bytes.resize(prefix_bytes);
  if (archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr) != ARCHIVE_OK ||
      archive_write_set_bytes_per_block(a.get(), 0) != ARCHIVE_OK ||
      archive_write_open(a.get(), &sink, nullptr, &SinkWrite, nullptr) != ARCHIVE_OK) {
    return FailureError("NEFF writer: libarchive setup failed: " + ArchiveError(a.get()));
  }
  EntryHandle entry(archive_entry_new(), &archive_entry_free);
  if (!entry) return Status(StatusCode::kFailHostMemAlloc, "libarchive: out of memory");
  for (const ArchiveEntry& e : entries) {
    archive_entry_clear(entry.get());
    std::string path(e.path);
    // The path's bytes as they are (JSON gives UTF-8): libarchive's UTF-8 setter crashes in
    // the pax writer under a C locale (it cannot convert the name back to the locale).
    archive_entry_set_pathname(entry.get(), path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(e.data.size()));
    archive_entry_set_mtime(entry.get(), 0, 0);
    // ARCHIVE_WARN: a non-ASCII path the locale cannot convert; the PAX record then carries
    // its bytes unconverted (hdrcharset=BINARY), which is what the reader returns.
    int r = archive_write_header(a.get(), entry.get());
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      return FailureError("NEFF writer: tar member " + Quoted(path) + ": " + ArchiveError(a.get()));
    }
    size_t done = 0;
    while (done < e.data.size()) {
      la_ssize_t n = archive_write_data(a.get(), e.data.data() + done, e.data.size() - done);
      if (n <= 0) {
        return FailureError("NEFF writer: tar member " + Quoted(path) + ": " +
                            ArchiveError(a.get()));
      }
      done += static_cast<size_t>(n);
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) {
    return FailureError("NEFF writer: finishing the tar failed: " + ArchiveError(a.get()));
  }
  return std::move(sink.bytes);
}

}  // namespace trnsim::neff
