// TLS material for the remote back end and neurond: PEM files read and parsed (OpenSSL) before
// gRPC sees them, so a missing or malformed file is one message naming it instead of a failed
// handshake later.
//
// ReadPemCertificates reads `path` and checks that it holds at least one PEM certificate
// ("-----BEGIN CERTIFICATE-----"); CheckPemCertificates does the same for text already read,
// naming it `what`. Both return NRT_FAILURE with one line naming the file (or `what`) and why.
// Files are at most kMaxPemFileBytes.
//
// Thread safety: all functions are reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace trnsim::driver::remote {

inline constexpr uint64_t kMaxPemFileBytes = uint64_t{1} << 20;

// Reads a whole PEM file; NRT_FAILURE naming `path` (prefixed by `what`, e.g. "TLS CA file")
// when it cannot be read, is empty or is larger than kMaxPemFileBytes.
StatusOr<std::string> ReadPemFile(const std::string& path, std::string_view what);
StatusOr<std::string> ReadPemCertificates(const std::string& path, std::string_view what);
Status CheckPemCertificates(std::string_view pem, std::string_view what);

}  // namespace trnsim::driver::remote
