// CopyNonZeroPages: copies `size` bytes from `src` to `dst`, page by page, skipping every page of
// `src` that holds only zero bytes — for a destination that already reads as zero (fresh
// anonymous memory, a fresh memfd), so the copy commits no more host memory than the source
// holds, and reading an untouched source page commits nothing either. The last page may be
// partial. Used by LazyBuffer's copies and HbmStack::Share.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trnsim::simulator {

void CopyNonZeroPages(uint8_t* dst, const uint8_t* src, size_t size, size_t page_bytes);

}  // namespace trnsim::simulator
