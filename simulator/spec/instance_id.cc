#include "simulator/spec/instance_id.h"

#include <cstdint>
#include <cstdio>

namespace trnsim::simulator {

std::string EmulatedInstanceId(std::string_view instance_type) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : instance_type) {
    hash ^= c;
    hash *= 0x100000001b3ull;  // FNV-1a 64-bit prime
  }
  char text[24];
  std::snprintf(text, sizeof(text), "i-0%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace trnsim::simulator
