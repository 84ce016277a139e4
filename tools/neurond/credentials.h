// neurond's secrets: the daemon's shared token (--token-file) and the per-session keys it hands
// out in Hello.
//
// ReadTokenFile reads the token as the file's first line (trailing whitespace dropped); an
// unreadable or empty file is NRT_INVALID naming the path. TokensEqual compares in time that
// depends only on the lengths, never on where the first difference is, so a client cannot find
// the token byte by byte by timing refusals. NewSessionKey returns 128 bits from the system's
// random source (std::random_device) as 32 lower-case hex digits.
//
// Thread safety: all functions are reentrant.
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"

namespace trnsim::neurond {

StatusOr<std::string> ReadTokenFile(const std::string& path);
bool TokensEqual(std::string_view expected, std::string_view given);
std::string NewSessionKey();

}  // namespace trnsim::neurond
