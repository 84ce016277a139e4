#include "driver/sim/hbm_allocator.h"

#include <iterator>
#include <string>

namespace trnsim::driver::sim {
namespace {

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

HbmAllocator::HbmAllocator(uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {
  if (capacity_bytes_ > 0) free_[0] = capacity_bytes_;
}

StatusOr<HbmAllocator::Block> HbmAllocator::Allocate(uint64_t size_bytes,
                                                     uint64_t alignment_bytes) {
  if (size_bytes == 0) return InvalidError("cannot allocate 0 bytes of device memory");
  if (alignment_bytes == 0 || (alignment_bytes & (alignment_bytes - 1)) != 0) {
    return InvalidError("alignment " + std::to_string(alignment_bytes) +
                        " is not a power of two");
  }
  if (size_bytes > capacity_bytes_) {
    return ResourceError("requested " + std::to_string(size_bytes) +
                         " bytes, more than the whole " + std::to_string(capacity_bytes_) +
                         "-byte HBM stack");
  }
  uint64_t alignment = alignment_bytes < kGranuleBytes ? kGranuleBytes : alignment_bytes;
  uint64_t size = RoundUp(size_bytes, kGranuleBytes);

  // Best fit: the smallest free range that holds the aligned block.
  auto best = free_.end();
  uint64_t best_waste = UINT64_MAX;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = RoundUp(it->first, alignment);
    uint64_t end = it->first + it->second;
    if (start >= end || end - start < size) continue;
    uint64_t waste = it->second - size;
    if (waste < best_waste) {
      best = it;
      best_waste = waste;
      if (waste == 0) break;
    }
  }
  if (best == free_.end()) {
    return ResourceError("out of device memory: " + std::to_string(size_bytes) +
                         " bytes requested, " + std::to_string(capacity_bytes_ - used_bytes_) +
                         " free, largest free range " + std::to_string(largest_free_bytes()));
  }

  uint64_t range_start = best->first;
  uint64_t range_end = best->first + best->second;
  uint64_t start = RoundUp(range_start, alignment);
  free_.erase(best);
  if (start > range_start) free_[range_start] = start - range_start;
  if (start + size < range_end) free_[start + size] = range_end - (start + size);
  used_[start] = size;
  used_bytes_ += size;
  return Block{start, size};
}

StatusOr<HbmAllocator::Block> HbmAllocator::Free(uint64_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) {
    return InvalidError("no allocation starts at HBM offset " + std::to_string(offset));
  }
  uint64_t start = it->first;
  uint64_t size = it->second;
  used_.erase(it);
  used_bytes_ -= size;

  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += size;
      return Block{prev->first, prev->second};
    }
  }
  free_[start] = size;
  return Block{start, size};
}

uint64_t HbmAllocator::largest_free_bytes() const {
  uint64_t largest = 0;
  for (const auto& [offset, size] : free_) largest = size > largest ? size : largest;
  return largest;
}

}  // namespace trnsim::driver::sim
