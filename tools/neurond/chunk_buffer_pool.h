// ChunkBufferPool: buffers of one chunk (driver/remote/chunking.h, kChunkBytes) that Write
// streams reuse, so a chunk lands in memory already mapped instead of a fresh protobuf string
// (malloc, page faults, and the pages going back to the host when it is freed; issue 21). Take()
// hands out a spare buffer or allocates one; the Lease gives it back when it goes out of scope,
// and the pool keeps at most `max_spare` of them (the rest are freed), so its memory is bounded
// by the Write streams in flight plus max_spare chunks.
//
// Thread safety: Take and the leases' destructors may run on any threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "driver/remote/chunking.h"

namespace trnsim::neurond {

class ChunkBufferPool {
 public:
  explicit ChunkBufferPool(size_t max_spare) : max_spare_(max_spare) {}

  class Lease {
   public:
    Lease(ChunkBufferPool* pool, std::unique_ptr<uint8_t[]> bytes)
        : pool_(pool), bytes_(std::move(bytes)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_->GiveBack(std::move(bytes_)); }
    uint8_t* data() const { return bytes_.get(); }
    static constexpr uint64_t size() { return driver::remote::kChunkBytes; }

   private:
    ChunkBufferPool* const pool_;
    std::unique_ptr<uint8_t[]> bytes_;
  };

  Lease Take() {
    {
      std::lock_guard lock(mutex_);
      if (!spare_.empty()) {
        std::unique_ptr<uint8_t[]> bytes = std::move(spare_.back());
        spare_.pop_back();
        return Lease(this, std::move(bytes));
      }
    }
    // Not value-initialised: every byte is written before it is used.
    return Lease(this, std::unique_ptr<uint8_t[]>(new uint8_t[driver::remote::kChunkBytes]));
  }

 private:
  void GiveBack(std::unique_ptr<uint8_t[]> bytes) {
    std::lock_guard lock(mutex_);
    if (spare_.size() < max_spare_) spare_.push_back(std::move(bytes));
  }

  const size_t max_spare_;
  std::mutex mutex_;  // guards spare_
  std::vector<std::unique_ptr<uint8_t[]>> spare_;
};

}  // namespace trnsim::neurond
