// The payload hash of the NEFF header: SHA-256 for pkg_version 1, MD5 for pkg_version 2 (its
// 16 bytes first, the other 16 zero), over the payload bytes that follow the header.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/status_or.h"

namespace trnsim::neff {

using PayloadHash = std::array<uint8_t, 32>;

// NRT_INVALID for a pkg_version other than 1 or 2; NRT_FAILURE if OpenSSL fails.
StatusOr<PayloadHash> ComputePayloadHash(uint64_t pkg_version, std::span<const uint8_t> payload);

// Bytes of the hash field that carry the digest (32 for SHA-256, 16 for MD5); 0 if unknown.
size_t PayloadHashBytes(uint64_t pkg_version);

// Checks header.hash against the payload: only the digest bytes are compared (the tail of an
// MD5 field is not covered by the hash, so it is not checked). NRT_INVALID on mismatch.
Status VerifyPayloadHash(uint64_t pkg_version, const PayloadHash& stored,
                         std::span<const uint8_t> payload);

}  // namespace trnsim::neff
