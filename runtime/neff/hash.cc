#include "runtime/neff/hash.h"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <string>

namespace trnsim::neff {
namespace {

std::string Hex(const uint8_t* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

}  // namespace

size_t PayloadHashBytes(uint64_t pkg_version) {
  if (pkg_version == 1) return 32;
  if (pkg_version == 2) return 16;
  return 0;
}

StatusOr<PayloadHash> ComputePayloadHash(uint64_t pkg_version, std::span<const uint8_t> payload) {
  const EVP_MD* md = pkg_version == 1 ? EVP_sha256() : pkg_version == 2 ? EVP_md5() : nullptr;
  if (md == nullptr) {
    return InvalidError("NEFF header: pkg_version " + std::to_string(pkg_version) +
                        " has no known hash kind");
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), payload.data(), payload.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest, &digest_len) != 1 ||
      digest_len != PayloadHashBytes(pkg_version)) {
    return FailureError("NEFF hash: OpenSSL digest failed");
  }
  PayloadHash out{};
  std::copy(digest, digest + digest_len, out.begin());
  return out;
}

Status VerifyPayloadHash(uint64_t pkg_version, const PayloadHash& stored,
                         std::span<const uint8_t> payload) {
  TRNSIM_ASSIGN_OR_RETURN(PayloadHash actual, ComputePayloadHash(pkg_version, payload));
  size_t n = PayloadHashBytes(pkg_version);
  if (!std::equal(actual.begin(), actual.begin() + n, stored.begin())) {
    return InvalidError(std::string("NEFF header: hash (offset 172) mismatch: the ") +
                        (pkg_version == 1 ? "SHA-256" : "MD5") + " of the " +
                        std::to_string(payload.size()) + "-byte payload is " +
                        Hex(actual.data(), n) + ", the header has " + Hex(stored.data(), n));
  }
  return Status::Ok();
}

}  // namespace trnsim::neff
