// StagingBytes: a lease on scratch bytes for a data path that gathers a source before it
// scatters to a destination (DMA copies and casts, dma_copy's fast path).
//
// The bytes come from a small per-thread pool and go back to it when the lease ends, so a
// transfer reuses the previous transfer's buffer instead of allocating — and they are never
// zero-filled: every user writes the bytes it reads back. A block larger than kKeepBytes, or
// beyond kKeepBlocks per thread, is freed when its lease ends, so the pool holds at most
// kKeepBlocks x kKeepBytes per thread that has staged a transfer.
//
// Thread safety: a lease belongs to the thread that took it (the pool is thread-local).
#pragma once

#include <cstddef>
#include <cstdint>

namespace trnsim::simulator {

class StagingBytes {
 public:
  static constexpr size_t kKeepBytes = size_t{16} << 20;
  static constexpr size_t kKeepBlocks = 4;

  // At least `bytes` bytes (16-byte aligned, so also usable as floats), contents unspecified.
  // Throws std::bad_alloc as operator new does.
  explicit StagingBytes(size_t bytes);
  ~StagingBytes();
  StagingBytes(const StagingBytes&) = delete;
  StagingBytes& operator=(const StagingBytes&) = delete;

  uint8_t* data() { return data_; }

 private:
  uint8_t* data_;
  size_t capacity_;
};

}  // namespace trnsim::simulator
