#include "runtime/neff/header.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace trnsim::neff {
namespace {

void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void PutString(uint8_t* p, size_t field_bytes, const std::string& s) {
  size_t n = std::min(s.size(), field_bytes - 1);
  std::memcpy(p, s.data(), n);  // the rest of the field stays zero
}

// A NUL-terminated string within its field; bytes after the NUL are ignored.
StatusOr<std::string> GetString(const uint8_t* p, size_t field_bytes, size_t offset,
                                const char* field) {
  const void* nul = std::memchr(p, 0, field_bytes);
  if (nul == nullptr) {
    return InvalidError("NEFF header: " + std::string(field) + " (offset " +
                        std::to_string(offset) + ", " + std::to_string(field_bytes) +
                        " bytes) is not NUL-terminated");
  }
  return std::string(reinterpret_cast<const char*>(p), static_cast<const uint8_t*>(nul) - p);
}

Status CheckVersion(uint64_t major, uint64_t minor) {
  if (major == 0 || major > kMaxNeffVersionMajor) {
    return Status(StatusCode::kUnsupportedNeffVersion,
                  "NEFF version mismatch supported: " + std::to_string(kMaxNeffVersionMajor) +
                      ".x received: " + std::to_string(major) + "." + std::to_string(minor));
  }
  return Status::Ok();
}

Status CheckString(const std::string& s, size_t field_bytes, const char* field) {
  if (s.size() >= field_bytes) {
    return InvalidError("NEFF header: " + std::string(field) + " is " + std::to_string(s.size()) +
                        " bytes; at most " + std::to_string(field_bytes - 1) +
                        " fit with the NUL terminator");
  }
  if (s.find('\0') != std::string::npos) {
    return InvalidError("NEFF header: " + std::string(field) + " contains a NUL byte");
  }
  return Status::Ok();
}

}  // namespace

std::array<uint8_t, kHeaderSize> EncodeHeader(const Header& h) {
  std::array<uint8_t, kHeaderSize> out{};
  uint8_t* p = out.data();
  PutU64(p + kOffPkgVersion, h.pkg_version);
  PutU64(p + kOffHeaderSize, h.header_size);
  PutU64(p + kOffDataSize, h.data_size);
  PutU64(p + kOffVersionMajor, h.neff_version_major);
  PutU64(p + kOffVersionMinor, h.neff_version_minor);
  PutString(p + kOffBuildVersion, kBuildVersionBytes, h.neff_build_version);
  PutU32(p + kOffNumTpb, h.num_tpb);
  std::memcpy(p + kOffHash, h.hash.data(), h.hash.size());
  std::memcpy(p + kOffUuid, h.uuid.data(), h.uuid.size());
  PutString(p + kOffName, kNameBytes, h.name);
  PutU32(p + kOffRequestedTpbCount, h.requested_tpb_count);
  std::memcpy(p + kOffTpbPerNode, h.tpb_per_node.data(), h.tpb_per_node.size());
  PutU64(p + kOffFeatureBits, h.feature_bits);
  PutU32(p + kOffLncSize, h.lnc_size);
  return out;
}

StatusOr<Header> DecodeHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) {
    return InvalidError("NEFF is truncated: " + std::to_string(bytes.size()) +
                        " bytes, the header alone is " + std::to_string(kHeaderSize));
  }
  const uint8_t* p = bytes.data();
  Header h;
  h.pkg_version = GetU64(p + kOffPkgVersion);
  h.header_size = GetU64(p + kOffHeaderSize);
  h.data_size = GetU64(p + kOffDataSize);
  h.neff_version_major = GetU64(p + kOffVersionMajor);
  h.neff_version_minor = GetU64(p + kOffVersionMinor);
  h.num_tpb = GetU32(p + kOffNumTpb);
  std::memcpy(h.hash.data(), p + kOffHash, h.hash.size());
  std::memcpy(h.uuid.data(), p + kOffUuid, h.uuid.size());
  h.requested_tpb_count = GetU32(p + kOffRequestedTpbCount);
  std::memcpy(h.tpb_per_node.data(), p + kOffTpbPerNode, h.tpb_per_node.size());
  h.feature_bits = GetU64(p + kOffFeatureBits);
  h.lnc_size = GetU32(p + kOffLncSize);

  if (h.header_size != kHeaderSize) {
    return InvalidError("NEFF header: header_size (offset 8) is " + std::to_string(h.header_size) +
                        ", expected " + std::to_string(kHeaderSize));
  }
  // The version decides whether anything else can be read, so it is checked first.
  TRNSIM_RETURN_IF_ERROR(CheckVersion(h.neff_version_major, h.neff_version_minor));
  TRNSIM_ASSIGN_OR_RETURN(h.neff_build_version, GetString(p + kOffBuildVersion, kBuildVersionBytes,
                                                          kOffBuildVersion, "neff_build_version"));
  TRNSIM_ASSIGN_OR_RETURN(h.name, GetString(p + kOffName, kNameBytes, kOffName, "name"));
  TRNSIM_RETURN_IF_ERROR(ValidateHeader(h));
  return h;
}

Status ValidateHeader(const Header& h) {
  if (h.header_size != kHeaderSize) {
    return InvalidError("NEFF header: header_size is " + std::to_string(h.header_size) +
                        ", expected " + std::to_string(kHeaderSize));
  }
  TRNSIM_RETURN_IF_ERROR(CheckVersion(h.neff_version_major, h.neff_version_minor));
  if (h.pkg_version != 1 && h.pkg_version != 2) {
    return Status(StatusCode::kUnsupportedNeffVersion,
                  "NEFF header: pkg_version (offset 0) is " + std::to_string(h.pkg_version) +
                      "; supported: 1 (SHA-256 hash) and 2 (MD5 hash)");
  }
  TRNSIM_RETURN_IF_ERROR(
      CheckString(h.neff_build_version, kBuildVersionBytes, "neff_build_version"));
  TRNSIM_RETURN_IF_ERROR(CheckString(h.name, kNameBytes, "name"));
  // 0 is what NEFFs written before the field existed carry there (it was padding): read as 1.
  if (h.lnc_size > 2) {
    return InvalidError("NEFF header: lnc_size (offset 552) is " + std::to_string(h.lnc_size) +
                        "; a logical core has 1 or 2 physical cores");
  }
  return Status::Ok();
}

}  // namespace trnsim::neff
