#include "tools/neurond/credentials.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdint>
#include <random>

#include "driver/remote/tls.h"

namespace trnsim::neurond {
namespace {

// Keys are read without a passphrase: the callback refuses rather than prompting on a terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

std::unique_ptr<BIO, decltype(&BIO_free)> MemoryBio(std::string_view text) {
  return {BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free};
}

}  // namespace

bool TokensEqual(std::string_view expected, std::string_view given) {
  // Every byte of `given` is visited whatever the content; the length difference is folded in
  // rather than returned early.
  uint64_t diff = expected.size() ^ given.size();
  for (size_t i = 0; i < given.size(); ++i) {
    uint8_t e = expected.empty() ? 0 : static_cast<uint8_t>(expected[i % expected.size()]);
    diff |= static_cast<uint8_t>(e ^ static_cast<uint8_t>(given[i]));
  }
  return diff == 0 && !expected.empty();
}

std::string NewSessionKey() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;
  std::string key;
  for (int word = 0; word < 4; ++word) {
    uint32_t bits = random();
    for (int nibble = 0; nibble < 8; ++nibble, bits >>= 4) key += kHex[bits & 0xF];
  }
  return key;
}

StatusOr<TlsKeyPair> ReadTlsKeyPair(const std::string& certificate_path,
                                    const std::string& key_path) {
  TlsKeyPair pair;
  TRNSIM_ASSIGN_OR_RETURN(pair.certificate_chain_pem,
                          driver::remote::ReadPemFile(certificate_path, "TLS certificate file"));
  TRNSIM_ASSIGN_OR_RETURN(pair.private_key_pem,
                          driver::remote::ReadPemFile(key_path, "TLS key file"));
  TRNSIM_RETURN_IF_ERROR(CheckTlsKeyPair(pair, "TLS certificate file " + certificate_path,
                                         "TLS key file " + key_path));
  return pair;
}

Status CheckTlsKeyPair(const TlsKeyPair& pair, const std::string& certificate_name,
                       const std::string& key_name) {
  TRNSIM_RETURN_IF_ERROR(
      driver::remote::CheckPemCertificates(pair.certificate_chain_pem, certificate_name));
  auto certificate_bio = MemoryBio(pair.certificate_chain_pem);
  std::unique_ptr<X509, decltype(&X509_free)> certificate(
      PEM_read_bio_X509(certificate_bio.get(), nullptr, NoPassphrase, nullptr), &X509_free);
  auto key_bio = MemoryBio(pair.private_key_pem);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, NoPassphrase, nullptr), &EVP_PKEY_free);
  ERR_clear_error();
  if (certificate == nullptr) return FailureError("the " + certificate_name + " is unreadable");
  if (key == nullptr) {
    return FailureError("the " + key_name +
                        " holds no PEM private key (or one protected by a passphrase)");
  }
  const bool matches = X509_check_private_key(certificate.get(), key.get()) == 1;
  ERR_clear_error();
  if (!matches) {
    return FailureError("the " + key_name + " is not the key of the first certificate of the " +
                        certificate_name);
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(const TlsKeyPair& pair) {
  const bool has_certificate = !pair.certificate_chain_pem.empty();
  const bool has_key = !pair.private_key_pem.empty();
  if (!has_certificate && !has_key) return grpc::InsecureServerCredentials();
  if (has_certificate != has_key) {
    return InvalidError(std::string("TLS needs both a certificate and its key; only the ") +
                        (has_certificate ? "certificate" : "key") + " is set");
  }
  TRNSIM_RETURN_IF_ERROR(CheckTlsKeyPair(pair, "TLS certificate", "TLS key"));
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({pair.private_key_pem, pair.certificate_chain_pem});
  return grpc::SslServerCredentials(options);
}

}  // namespace trnsim::neurond
