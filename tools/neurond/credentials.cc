#include "tools/neurond/credentials.h"

#include <cstdint>
#include <fstream>
#include <random>

namespace trnsim::neurond {

StatusOr<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return InvalidError("cannot read the token file " + path);
  std::string token;
  std::getline(file, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) return InvalidError("the token file " + path + " is empty");
  return token;
}

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

}  // namespace trnsim::neurond
