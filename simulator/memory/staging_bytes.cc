#include "simulator/memory/staging_bytes.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace trnsim::simulator {
namespace {

// Free blocks of this thread, as (bytes, capacity).
struct Pool {
  std::vector<std::pair<uint8_t*, size_t>> free;
  ~Pool() {
    for (auto& [p, n] : free) delete[] p;
  }
};

Pool& ThreadPool() {
  thread_local Pool pool;
  return pool;
}

// Small transfers share one block size, so a run of them reuses one block.
constexpr size_t kMinBlock = size_t{64} << 10;

}  // namespace

StagingBytes::StagingBytes(size_t bytes) {
  Pool& pool = ThreadPool();
  // The smallest free block that fits.
  auto best = pool.free.end();
  for (auto it = pool.free.begin(); it != pool.free.end(); ++it)
    if (it->second >= bytes && (best == pool.free.end() || it->second < best->second)) best = it;
  if (best != pool.free.end()) {
    data_ = best->first;
    capacity_ = best->second;
    pool.free.erase(best);
    return;
  }
  capacity_ = std::max(bytes, kMinBlock);
  data_ = new uint8_t[capacity_];  // default-initialised: no zero-fill
}

StagingBytes::~StagingBytes() {
  Pool& pool = ThreadPool();
  if (capacity_ <= kKeepBytes && pool.free.size() < kKeepBlocks) {
    pool.free.emplace_back(data_, capacity_);
    return;
  }
  delete[] data_;
}

}  // namespace trnsim::simulator
