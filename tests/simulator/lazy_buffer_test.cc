// LazyBuffer: the lazily backed bytes of a core's SBUF and PSUM. Fresh bytes read zero, writes
// round-trip, copies are deep and equal, moves transfer, Clear zeroes, and creating (and
// reading) whole SBUFs costs host memory only for the pages written.
#include "simulator/memory/lazy_buffer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <span>
#include <utility>
#include <vector>

#include "simulator/isa/limits.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator {
namespace {

// Resident set size of this process, from /proc/self/statm (second field, in pages).
uint64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size_pages = 0, resident_pages = 0;
  int fields = std::fscanf(f, "%llu %llu", &size_pages, &resident_pages);
  std::fclose(f);
  if (fields != 2) return 0;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

TEST(LazyBufferTest, FreshBytesReadZeroAndWritesRoundTrip) {
  LazyBuffer b(size_t{3} << 20);
  ASSERT_EQ(b.size(), size_t{3} << 20);
  for (size_t i = 0; i < b.size(); i += 4093) EXPECT_EQ(b[i], 0) << i;
  b[0] = 1;
  b[b.size() - 1] = 2;
  b.data()[12345] = 3;
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(b[b.size() - 1], 2);
  EXPECT_EQ(b[12345], 3);
  std::span<uint8_t> all(b);  // contiguous, as dma descriptors address SBUF
  EXPECT_EQ(all.size(), b.size());
  EXPECT_EQ(all[12345], 3);
}

TEST(LazyBufferTest, CopiesAreDeepAndMovesTransfer) {
  LazyBuffer a(size_t{1} << 20);
  a[7] = 7;
  a[(size_t{1} << 20) - 3] = 9;
  LazyBuffer b = a;
  EXPECT_TRUE(a == b);
  b[7] = 8;
  EXPECT_EQ(a[7], 7);
  EXPECT_FALSE(a == b);
  b = a;  // same size: the old bytes go
  EXPECT_TRUE(a == b);
  LazyBuffer other(4096);
  other[1] = 5;
  other = a;  // another size: takes a's size and bytes
  EXPECT_TRUE(other == a);
  const uint8_t* where = a.data();
  LazyBuffer moved = std::move(a);
  EXPECT_EQ(moved.data(), where);
  EXPECT_EQ(moved[(size_t{1} << 20) - 3], 9);
  EXPECT_TRUE(LazyBuffer(16) == LazyBuffer(16));
  EXPECT_FALSE(LazyBuffer(16) == LazyBuffer(32));
  EXPECT_TRUE(LazyBuffer() == LazyBuffer());
}

TEST(LazyBufferTest, ClearZeroesEverything) {
  LazyBuffer b(size_t{1} << 20);
  for (size_t i = 0; i < b.size(); i += 1000) b[i] = uint8_t(i | 1);
  b.Clear();
  EXPECT_TRUE(b == LazyBuffer(size_t{1} << 20));
}

// Sixteen Trainium2 core states (26 MiB of SBUF and PSUM each, 416 MiB in all), each read in
// full and written in one [128, 64] fp32 tile: host memory grows by the pages written (128
// partitions x 1 page per core, 8 MiB), not by the states' size. An eager zero-fill would add
// all 416 MiB.
TEST(LazyBufferTest, CoreStatesCostOnlyThePagesWritten) {
  const isa::IsaLimits limits = isa::LimitsFor(Trainium2Spec());
  const uint64_t before = ResidentBytes();
  std::vector<reference::CoreState> states;
  states.reserve(16);
  uint64_t total = 0;
  for (int c = 0; c < 16; ++c) {
    reference::CoreState& s = states.emplace_back(limits);
    total += s.sbuf.size() + s.psum.size();
    uint64_t sum = 0;
    for (size_t i = 0; i < s.sbuf.size(); i += 512) sum += s.sbuf[i];
    EXPECT_EQ(sum, 0u);
    for (int p = 0; p < limits.partitions; ++p)
      for (uint32_t k = 0; k < 256; ++k) *s.SbufAt(p, k) = uint8_t(k + 1);
  }
  const uint64_t grown = ResidentBytes() - before;
  ASSERT_GT(total, uint64_t{400} << 20);
  EXPECT_LT(grown, uint64_t{64} << 20) << "of " << total << " bytes of state";
  EXPECT_EQ(*states[15].SbufAt(127, 255), 0);  // 256 wraps to 0
  EXPECT_EQ(*states[15].SbufAt(127, 254), 255);
}

}  // namespace
}  // namespace trnsim::simulator
