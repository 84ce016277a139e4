// HbmAllocator: places allocations inside one HBM stack's byte range, like the kernel
// driver's per-HBM memory pool. Best fit over an ordered free list; neighbours coalesce on
// free. Sizes are rounded up to kGranuleBytes so reported sizes may exceed the request,
// as AWS documents for nrt_tensor_get_device_allocation_info.
//
// Not thread-safe: the owning SimDevice serialises calls.
#pragma once

#include <cstdint>
#include <map>

#include "common/status_or.h"

namespace trnsim::driver::sim {

class HbmAllocator {
 public:
  static constexpr uint64_t kGranuleBytes = 64;

  explicit HbmAllocator(uint64_t capacity_bytes);

  struct Block {
    uint64_t offset;
    uint64_t size_bytes;  // rounded size actually reserved
  };

  // NRT_RESOURCE when no free range fits; NRT_INVALID for size 0 or a bad alignment.
  StatusOr<Block> Allocate(uint64_t size_bytes, uint64_t alignment_bytes);
  // `offset` must be one Allocate returned and not yet freed (checked: NRT_INVALID). Returns the
  // free range the block became part of once coalesced with its free neighbours, so the caller
  // can return every whole page of it to the host (pages the block shared with free space too).
  StatusOr<Block> Free(uint64_t offset);

  uint64_t capacity_bytes() const { return capacity_bytes_; }
  uint64_t used_bytes() const { return used_bytes_; }
  uint64_t largest_free_bytes() const;

 private:
  uint64_t capacity_bytes_;
  uint64_t used_bytes_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> size, non-adjacent
  std::map<uint64_t, uint64_t> used_;  // offset -> size
};

}  // namespace trnsim::driver::sim
