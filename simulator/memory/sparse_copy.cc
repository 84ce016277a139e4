#include "simulator/memory/sparse_copy.h"

#include <algorithm>
#include <cstring>

namespace trnsim::simulator {
namespace {

bool AllZero(const uint8_t* p, size_t n) {
  // Word-wide OR; a tail of fewer than 8 bytes byte by byte.
  uint64_t acc = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    acc |= w;
  }
  for (; i < n; ++i) acc |= p[i];
  return acc == 0;
}

}  // namespace

void CopyNonZeroPages(uint8_t* dst, const uint8_t* src, size_t size, size_t page_bytes) {
  for (size_t at = 0; at < size; at += page_bytes) {
    const size_t n = std::min(page_bytes, size - at);
    if (!AllZero(src + at, n)) std::memcpy(dst + at, src + at, n);
  }
}

}  // namespace trnsim::simulator
