#include "driver/remote/tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

namespace trnsim::driver::remote {

StatusOr<std::string> ReadPemFile(const std::string& path, std::string_view what) {
  const std::string named = std::string(what) + " " + path;
  std::ifstream file(path, std::ios::binary);
  if (!file) return FailureError("cannot read the " + named + ": " + std::strerror(errno));
  std::string text;
  char buffer[4096];
  while (file.read(buffer, sizeof(buffer)) || file.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(file.gcount()));
    if (text.size() > kMaxPemFileBytes) {
      return FailureError("the " + named + " is larger than " + std::to_string(kMaxPemFileBytes) +
                          " bytes: not a PEM file");
    }
  }
  if (file.bad()) return FailureError("cannot read the " + named + ": " + std::strerror(errno));
  if (text.empty()) return FailureError("the " + named + " is empty");
  return text;
}

Status CheckPemCertificates(std::string_view pem, std::string_view what) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  if (bio == nullptr) return FailureError(std::string(what) + ": out of memory");
  int certificates = 0;
  // A certificate has no passphrase: the callback refuses rather than prompting on a terminal.
  auto no_passphrase = [](char*, int, int, void*) { return -1; };
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr)) {
    X509_free(certificate);
    ++certificates;
  }
  ERR_clear_error();  // the read that ended the loop left an error in OpenSSL's queue
  if (certificates == 0) {
    return FailureError("the " + std::string(what) + " holds no PEM certificate");
  }
  return Status::Ok();
}

StatusOr<std::string> ReadPemCertificates(const std::string& path, std::string_view what) {
  TRNSIM_ASSIGN_OR_RETURN(std::string pem, ReadPemFile(path, what));
  TRNSIM_RETURN_IF_ERROR(CheckPemCertificates(pem, std::string(what) + " " + path));
  return pem;
}

}  // namespace trnsim::driver::remote
