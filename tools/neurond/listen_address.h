// The addresses neurond listens on. Accepted forms:
//   unix:PATH                         a Unix-domain socket (PATH non-empty)
//   127.0.0.1:PORT  [::1]:PORT  localhost:PORT    TCP on loopback; PORT 0 picks a free port
//   HOST:PORT                         any other TCP address, only with --allow-remote
// ParseListenAddress returns the gRPC address to bind, or NRT_INVALID with one message: a
// malformed address, a port outside 0..65535, or a non-loopback host without allow_remote (a
// daemon never listens beyond this host unless told to).
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"

namespace trnsim::neurond {

StatusOr<std::string> ParseListenAddress(std::string_view address, bool allow_remote);

}  // namespace trnsim::neurond
