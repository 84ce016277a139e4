// The 1024-byte NEFF header (neff_header_t): encoding and decoding, field for field at AWS's
// documented offsets (docs/neff.md, "Header"). All integers are little-endian.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/status_or.h"
#include "runtime/neff/neff.h"

namespace trnsim::neff {

// Byte offsets of the fields (derived from AWS's struct; tools-driver-facts §5.2).
inline constexpr size_t kOffPkgVersion = 0;
inline constexpr size_t kOffHeaderSize = 8;
inline constexpr size_t kOffDataSize = 16;
inline constexpr size_t kOffVersionMajor = 24;
inline constexpr size_t kOffVersionMinor = 32;
inline constexpr size_t kOffBuildVersion = 40;  // char[128]
inline constexpr size_t kOffNumTpb = 168;
inline constexpr size_t kOffHash = 172;  // uint8_t[32]
inline constexpr size_t kOffUuid = 204;  // uint8_t[16]
inline constexpr size_t kOffName = 220;  // char[256]
inline constexpr size_t kOffRequestedTpbCount = 476;
inline constexpr size_t kOffTpbPerNode = 480;  // uint8_t[64]
inline constexpr size_t kOffFeatureBits = 544;
inline constexpr size_t kOffLncSize = 552;
inline constexpr size_t kOffPad = 556;  // uint8_t[468]
inline constexpr size_t kBuildVersionBytes = 128;
inline constexpr size_t kNameBytes = 256;

// The newest NEFF major version trnsim reads (AWS's message: "supported: 2.x").
inline constexpr uint64_t kMaxNeffVersionMajor = 2;

// Encodes `header` as written (no checks; strings longer than their field are cut so that the
// NUL terminator fits — ValidateHeader rejects them first).
std::array<uint8_t, kHeaderSize> EncodeHeader(const Header& header);

// Decodes and checks the header fields that need no payload: the first kHeaderSize bytes of
// `bytes` (fewer is NRT_INVALID). Checks header_size == 1024, NUL-terminated strings, the NEFF
// version (NRT_UNSUPPORTED_NEFF_VERSION), pkg_version (1 or 2) and lnc_size. data_size and
// the hash are the reader's (they need the payload).
StatusOr<Header> DecodeHeader(std::span<const uint8_t> bytes);

// The checks DecodeHeader makes, on a typed header (WriteNeff uses it on its input).
Status ValidateHeader(const Header& header);

}  // namespace trnsim::neff
