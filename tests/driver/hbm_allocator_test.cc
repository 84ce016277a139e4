// HbmAllocator: alignment, 64-byte granules, best fit, coalescing (and the free range Free
// reports), and error codes; then a randomized run against a trivially correct model (one bool
// per granule).
#include "driver/sim/hbm_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace trnsim::driver::sim {
namespace {

constexpr uint64_t kGranule = HbmAllocator::kGranuleBytes;

HbmAllocator::Block MustAllocate(HbmAllocator& allocator, uint64_t size, uint64_t alignment) {
  StatusOr<HbmAllocator::Block> block = allocator.Allocate(size, alignment);
  EXPECT_TRUE(block.ok()) << "Allocate(" << size << ", " << alignment
                          << "): " << block.status().ToString();
  if (!block.ok()) return {UINT64_MAX, 0};
  return *block;
}

TEST(HbmAllocatorTest, FreshAllocator) {
  HbmAllocator allocator(1 << 20);
  EXPECT_EQ(allocator.capacity_bytes(), 1u << 20);
  EXPECT_EQ(allocator.used_bytes(), 0u);
  EXPECT_EQ(allocator.largest_free_bytes(), 1u << 20);
  EXPECT_EQ(kGranule, 64u);
}

TEST(HbmAllocatorTest, SizesRoundUpToGranules) {
  HbmAllocator allocator(1 << 20);
  struct Case {
    uint64_t request, reserved;
  };
  uint64_t expected_used = 0;
  for (Case c : {Case{1, 64}, Case{63, 64}, Case{64, 64}, Case{65, 128}, Case{1000, 1024},
                 Case{4096, 4096}, Case{4097, 4160}}) {
    HbmAllocator::Block block = MustAllocate(allocator, c.request, 1);
    EXPECT_EQ(block.size_bytes, c.reserved) << c.request;
    EXPECT_EQ(block.offset % kGranule, 0u) << c.request;
    expected_used += c.reserved;
    EXPECT_EQ(allocator.used_bytes(), expected_used);
  }
}

TEST(HbmAllocatorTest, FirstAllocationsArePackedFromZero) {
  HbmAllocator allocator(1 << 20);
  EXPECT_EQ(MustAllocate(allocator, 100, 64).offset, 0u);
  EXPECT_EQ(MustAllocate(allocator, 64, 64).offset, 128u);
  EXPECT_EQ(MustAllocate(allocator, 1, 64).offset, 192u);
}

TEST(HbmAllocatorTest, HonoursAlignment) {
  HbmAllocator allocator(1 << 20);
  MustAllocate(allocator, 1, 64);  // offset 0, so the next block must skip ahead
  for (uint64_t alignment : {1ull, 2ull, 32ull, 64ull, 128ull, 4096ull, 65536ull}) {
    HbmAllocator::Block block = MustAllocate(allocator, 100, alignment);
    EXPECT_EQ(block.offset % std::max<uint64_t>(alignment, kGranule), 0u) << alignment;
  }
}

TEST(HbmAllocatorTest, AlignmentPaddingStaysFree) {
  HbmAllocator allocator(1 << 20);
  MustAllocate(allocator, 64, 64);  // [0, 64)
  HbmAllocator::Block aligned = MustAllocate(allocator, 64, 4096);
  EXPECT_EQ(aligned.offset, 4096u);
  EXPECT_EQ(allocator.used_bytes(), 128u);
  // [64, 4096) was skipped for alignment and must still be usable; it is an exact fit.
  HbmAllocator::Block gap = MustAllocate(allocator, 4096 - 64, 64);
  EXPECT_EQ(gap.offset, 64u);
}

TEST(HbmAllocatorTest, AlignmentLargerThanCapacity) {
  HbmAllocator allocator(1 << 20);
  HbmAllocator::Block block = MustAllocate(allocator, 64, 1ull << 40);  // only offset 0 fits
  EXPECT_EQ(block.offset, 0u);
  StatusOr<HbmAllocator::Block> second = allocator.Allocate(64, 1ull << 40);
  EXPECT_EQ(second.status().code(), StatusCode::kResource);
  second = allocator.Allocate(64, 1ull << 63);
  EXPECT_EQ(second.status().code(), StatusCode::kResource);
}

TEST(HbmAllocatorTest, BestFitPicksTheSmallestHoleThatFits) {
  HbmAllocator allocator(1 << 20);
  HbmAllocator::Block big = MustAllocate(allocator, 4096, 64);     // [0, 4096)
  MustAllocate(allocator, 64, 64);                                 // separator
  HbmAllocator::Block small = MustAllocate(allocator, 512, 64);    // [4160, 4672)
  MustAllocate(allocator, 64, 64);                                 // separator
  HbmAllocator::Block medium = MustAllocate(allocator, 1024, 64);  // [4736, 5760)
  MustAllocate(allocator, 64, 64);                                 // separator; tail is free
  ASSERT_TRUE(allocator.Free(big.offset).ok());
  ASSERT_TRUE(allocator.Free(small.offset).ok());
  ASSERT_TRUE(allocator.Free(medium.offset).ok());

  EXPECT_EQ(MustAllocate(allocator, 300, 64).offset, small.offset);    // 512 hole
  EXPECT_EQ(MustAllocate(allocator, 1000, 64).offset, medium.offset);  // 1024 hole
  EXPECT_EQ(MustAllocate(allocator, 2000, 64).offset, big.offset);     // 4096 hole
  // The remainder of the 4096 hole, [2048, 4096), is now the best fit for 2048 bytes.
  EXPECT_EQ(MustAllocate(allocator, 2048, 64).offset, 2048u);
}

TEST(HbmAllocatorTest, ExactFitPreferredOverEarlierLargerHole) {
  HbmAllocator allocator(1 << 20);
  HbmAllocator::Block first = MustAllocate(allocator, 1024, 64);
  MustAllocate(allocator, 64, 64);
  HbmAllocator::Block second = MustAllocate(allocator, 256, 64);
  MustAllocate(allocator, 64, 64);
  ASSERT_TRUE(allocator.Free(first.offset).ok());
  ASSERT_TRUE(allocator.Free(second.offset).ok());
  EXPECT_EQ(MustAllocate(allocator, 256, 64).offset, second.offset);
}

// Fills the allocator with `count` equal blocks, frees them in `order`, then expects the whole
// capacity to be one free range again.
void FillFreeAndCheckCoalesced(const std::vector<int>& order) {
  const int count = static_cast<int>(order.size());
  const uint64_t block_bytes = 4096;
  HbmAllocator allocator(block_bytes * count);
  std::vector<uint64_t> offsets;
  for (int i = 0; i < count; ++i)
    offsets.push_back(MustAllocate(allocator, block_bytes, 64).offset);
  EXPECT_EQ(allocator.used_bytes(), allocator.capacity_bytes());
  EXPECT_EQ(allocator.largest_free_bytes(), 0u);
  EXPECT_EQ(allocator.Allocate(64, 64).status().code(), StatusCode::kResource);
  for (int i : order) ASSERT_TRUE(allocator.Free(offsets[i]).ok()) << i;
  EXPECT_EQ(allocator.used_bytes(), 0u);
  EXPECT_EQ(allocator.largest_free_bytes(), allocator.capacity_bytes());
  HbmAllocator::Block whole = MustAllocate(allocator, allocator.capacity_bytes(), 64);
  EXPECT_EQ(whole.offset, 0u);
  EXPECT_EQ(whole.size_bytes, allocator.capacity_bytes());
}

TEST(HbmAllocatorTest, CoalescesWhateverTheFreeOrder) {
  constexpr int kCount = 16;
  std::vector<int> order(kCount);
  std::iota(order.begin(), order.end(), 0);
  FillFreeAndCheckCoalesced(order);  // ascending: each free merges with its predecessor
  std::reverse(order.begin(), order.end());
  FillFreeAndCheckCoalesced(order);  // descending: each free merges with its successor
  std::vector<int> evens_then_odds;  // odds bridge two free neighbours at once
  for (int i = 0; i < kCount; i += 2) evens_then_odds.push_back(i);
  for (int i = 1; i < kCount; i += 2) evens_then_odds.push_back(i);
  FillFreeAndCheckCoalesced(evens_then_odds);
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(order.begin(), order.end(), rng);
    FillFreeAndCheckCoalesced(order);
  }
}

TEST(HbmAllocatorTest, ExhaustionIsResource) {
  HbmAllocator allocator(4096);
  MustAllocate(allocator, 4000, 64);  // reserves 4032
  StatusOr<HbmAllocator::Block> block = allocator.Allocate(128, 64);
  EXPECT_EQ(block.status().code(), StatusCode::kResource);
  EXPECT_EQ(allocator.used_bytes(), 4032u);  // a failed allocation changes nothing
  EXPECT_EQ(MustAllocate(allocator, 64, 64).offset, 4032u);
  EXPECT_EQ(allocator.Allocate(1, 1).status().code(), StatusCode::kResource);
}

TEST(HbmAllocatorTest, LargerThanCapacityIsResource) {
  HbmAllocator allocator(4096);
  EXPECT_EQ(allocator.Allocate(4097, 64).status().code(), StatusCode::kResource);
  EXPECT_EQ(allocator.Allocate(UINT64_MAX, 64).status().code(), StatusCode::kResource);
  EXPECT_EQ(allocator.Allocate(UINT64_MAX - 62, 64).status().code(), StatusCode::kResource);
  EXPECT_EQ(allocator.used_bytes(), 0u);
}

TEST(HbmAllocatorTest, FragmentationIsResourceDespiteEnoughFreeBytes) {
  HbmAllocator allocator(4 * 1024);
  std::vector<uint64_t> offsets;
  for (int i = 0; i < 4; ++i) offsets.push_back(MustAllocate(allocator, 1024, 64).offset);
  ASSERT_TRUE(allocator.Free(offsets[0]).ok());
  ASSERT_TRUE(allocator.Free(offsets[2]).ok());
  EXPECT_EQ(allocator.capacity_bytes() - allocator.used_bytes(), 2048u);
  EXPECT_EQ(allocator.largest_free_bytes(), 1024u);
  EXPECT_EQ(allocator.Allocate(2048, 64).status().code(), StatusCode::kResource);
}

TEST(HbmAllocatorTest, BadFreeIsInvalid) {
  HbmAllocator allocator(1 << 20);
  HbmAllocator::Block a = MustAllocate(allocator, 1024, 64);
  HbmAllocator::Block b = MustAllocate(allocator, 1024, 64);
  EXPECT_EQ(allocator.Free(a.offset + 64).status().code(), StatusCode::kInvalid);  // inside a block
  EXPECT_EQ(allocator.Free(1 << 19).status().code(), StatusCode::kInvalid);        // in free space
  EXPECT_EQ(allocator.Free(UINT64_MAX).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(allocator.used_bytes(), 2048u);
  ASSERT_TRUE(allocator.Free(a.offset).ok());
  EXPECT_EQ(allocator.Free(a.offset).status().code(), StatusCode::kInvalid);  // double free
  EXPECT_EQ(allocator.used_bytes(), 1024u);
  ASSERT_TRUE(allocator.Free(b.offset).ok());
  EXPECT_EQ(allocator.largest_free_bytes(), 1u << 20);
}

TEST(HbmAllocatorTest, SizeZeroIsInvalid) {
  HbmAllocator allocator(1 << 20);
  EXPECT_EQ(allocator.Allocate(0, 64).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(allocator.used_bytes(), 0u);
}

TEST(HbmAllocatorTest, NonPowerOfTwoAlignmentIsInvalid) {
  HbmAllocator allocator(1 << 20);
  for (uint64_t alignment : {0ull, 3ull, 48ull, 96ull, 4095ull, (1ull << 63) + 1}) {
    EXPECT_EQ(allocator.Allocate(64, alignment).status().code(), StatusCode::kInvalid) << alignment;
  }
  EXPECT_EQ(allocator.used_bytes(), 0u);
}

TEST(HbmAllocatorTest, ZeroCapacity) {
  HbmAllocator allocator(0);
  EXPECT_EQ(allocator.largest_free_bytes(), 0u);
  EXPECT_EQ(allocator.Allocate(1, 64).status().code(), StatusCode::kResource);
}

TEST(HbmAllocatorTest, FullSizeStackCapacity) {
  const uint64_t capacity = 24ull << 30;  // a Trainium2 HBM stack
  HbmAllocator allocator(capacity);
  HbmAllocator::Block whole = MustAllocate(allocator, capacity, 64);
  EXPECT_EQ(whole.offset, 0u);
  EXPECT_EQ(whole.size_bytes, capacity);
  EXPECT_EQ(allocator.Allocate(64, 64).status().code(), StatusCode::kResource);
  ASSERT_TRUE(allocator.Free(0).ok());
  EXPECT_EQ(allocator.used_bytes(), 0u);
}

// --- Randomized comparison with a trivially correct model --------------------------------------

// One bool per granule. Slow but obviously right.
class GranuleModel {
 public:
  explicit GranuleModel(uint64_t capacity) : used_(capacity / kGranule, false) {}

  bool RangeFree(uint64_t offset, uint64_t size) const {
    for (uint64_t g = offset / kGranule; g < (offset + size) / kGranule; ++g) {
      if (used_[g]) return false;
    }
    return true;
  }
  void Mark(uint64_t offset, uint64_t size, bool used) {
    for (uint64_t g = offset / kGranule; g < (offset + size) / kGranule; ++g) used_[g] = used;
  }
  uint64_t UsedBytes() const {
    return static_cast<uint64_t>(std::count(used_.begin(), used_.end(), true)) * kGranule;
  }
  uint64_t LargestFreeBytes() const {
    uint64_t best = 0, run = 0;
    for (bool used : used_) {
      run = used ? 0 : run + 1;
      best = std::max(best, run);
    }
    return best * kGranule;
  }
  // The maximal run of free granules around the free byte `offset`.
  HbmAllocator::Block FreeRunAround(uint64_t offset) const {
    uint64_t begin = offset / kGranule, end = begin;
    while (begin > 0 && !used_[begin - 1]) --begin;
    while (end < used_.size() && !used_[end]) ++end;
    return {begin * kGranule, (end - begin) * kGranule};
  }
  // Whether some offset aligned to `alignment` starts `size` free bytes.
  bool AnyFit(uint64_t size, uint64_t alignment) const {
    const uint64_t capacity = used_.size() * kGranule;
    for (uint64_t offset = 0; offset + size <= capacity; offset += alignment) {
      if (RangeFree(offset, size)) return true;
    }
    return false;
  }

 private:
  std::vector<bool> used_;
};

TEST(HbmAllocatorTest, RandomizedAgainstGranuleModel) {
  constexpr uint64_t kCapacity = 256 * 1024;  // 4096 granules
  constexpr int kSteps = 4000;
  HbmAllocator allocator(kCapacity);
  GranuleModel model(kCapacity);
  std::map<uint64_t, uint64_t> live;  // offset -> reserved size
  std::mt19937_64 rng(20240607);
  const uint64_t alignments[] = {1, 16, 64, 128, 256, 1024, 4096, 16384};
  int allocations = 0, exhaustions = 0, frees = 0;

  for (int step = 0; step < kSteps; ++step) {
    bool do_alloc = live.empty() || rng() % 100 < 55;
    if (do_alloc) {
      // Mostly small, sometimes large enough to exhaust the stack.
      uint64_t size = rng() % 8 == 0 ? 1 + rng() % (kCapacity / 4) : 1 + rng() % 4096;
      uint64_t alignment = alignments[rng() % std::size(alignments)];
      uint64_t effective_alignment = std::max(alignment, kGranule);
      uint64_t reserved = (size + kGranule - 1) / kGranule * kGranule;
      StatusOr<HbmAllocator::Block> block = allocator.Allocate(size, alignment);
      if (block.ok()) {
        ++allocations;
        ASSERT_EQ(block->size_bytes, reserved) << "step " << step;
        ASSERT_EQ(block->offset % effective_alignment, 0u) << "step " << step;
        ASSERT_LE(block->offset + block->size_bytes, kCapacity) << "step " << step;
        ASSERT_TRUE(model.RangeFree(block->offset, block->size_bytes))
            << "step " << step << ": [" << block->offset << ", +" << block->size_bytes
            << ") overlaps a live block";
        model.Mark(block->offset, block->size_bytes, true);
        live[block->offset] = block->size_bytes;
      } else {
        ++exhaustions;
        ASSERT_EQ(block.status().code(), StatusCode::kResource) << "step " << step;
        // Completeness: the allocator may only refuse when nothing fits.
        ASSERT_FALSE(model.AnyFit(reserved, effective_alignment))
            << "step " << step << ": refused " << size << " bytes aligned to " << alignment
            << " although a fitting free range exists";
      }
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      StatusOr<HbmAllocator::Block> freed = allocator.Free(it->first);
      ASSERT_TRUE(freed.ok()) << "step " << step;
      model.Mark(it->first, it->second, false);
      // Free returns the whole free range the block coalesced into.
      HbmAllocator::Block run = model.FreeRunAround(it->first);
      ASSERT_EQ(freed->offset, run.offset) << "step " << step;
      ASSERT_EQ(freed->size_bytes, run.size_bytes) << "step " << step;
      live.erase(it);
      ++frees;
    }
    ASSERT_EQ(allocator.used_bytes(), model.UsedBytes()) << "step " << step;
    // Coalescing: the largest free range equals the model's longest run of free granules.
    ASSERT_EQ(allocator.largest_free_bytes(), model.LargestFreeBytes()) << "step " << step;
  }
  // The run must have exercised every path.
  EXPECT_GT(allocations, 500);
  EXPECT_GT(exhaustions, 20);
  EXPECT_GT(frees, 500);

  for (const auto& [offset, size] : live) ASSERT_TRUE(allocator.Free(offset).ok());
  EXPECT_EQ(allocator.used_bytes(), 0u);
  EXPECT_EQ(MustAllocate(allocator, kCapacity, 64).offset, 0u);
}

}  // namespace
}  // namespace trnsim::driver::sim
