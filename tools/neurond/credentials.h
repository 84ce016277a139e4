// neurond's secrets: the daemon's shared token (--token-file), the per-session keys it hands
// out in Hello, and its TLS certificate and key (--tls-cert, --tls-key).
//
// The token file is read by trnsim::ReadTokenFile (common/token_file.h, shared with clients'
// TRNSIM_TOKEN_FILE). TokensEqual compares in time that
// depends only on the lengths, never on where the first difference is, so a client cannot find
// the token byte by byte by timing refusals. NewSessionKey returns 128 bits from the system's
// random source (std::random_device) as 32 lower-case hex digits.
//
// TLS is server authentication only: the daemon proves who it is with its certificate, asks no
// client certificate, and clients still authenticate with the token. ReadTlsKeyPair reads the
// two PEM files and checks them (CheckTlsKeyPair): the certificate file holds at least one
// certificate (the first is the daemon's, any others its chain), the key file a private key
// without a passphrase, and the key belongs to the first certificate; each failure is
// NRT_FAILURE naming the file. ServerCredentials returns gRPC's plaintext credentials for an
// empty pair, TLS ones (SslServerCredentials, no client certificate requested) for a checked
// pair, and NRT_INVALID when only one half is set.
//
// Thread safety: all functions are reentrant.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace trnsim::neurond {

// PEM text, not paths: tests build one in memory. Both empty: plaintext.
struct TlsKeyPair {
  std::string certificate_chain_pem;
  std::string private_key_pem;
};

bool TokensEqual(std::string_view expected, std::string_view given);
std::string NewSessionKey();

StatusOr<TlsKeyPair> ReadTlsKeyPair(const std::string& certificate_path,
                                    const std::string& key_path);
// `certificate_name` and `key_name` name the two halves in messages (paths, or option names).
Status CheckTlsKeyPair(const TlsKeyPair& pair, const std::string& certificate_name,
                       const std::string& key_name);
StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(const TlsKeyPair& pair);

}  // namespace trnsim::neurond
