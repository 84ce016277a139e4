// HbmStack: lazily backed emulated HBM. Fresh bytes read zero, data round-trips anywhere in a
// full-size stack, Discard zeroes exactly its range, and whole instances cost little host memory
// until written.
#include "simulator/memory/hbm_stack.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "simulator/instance.h"
#include "simulator/spec/chip_spec.h"
#include "simulator/spec/instance_spec.h"

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

uint64_t PageBytes() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

std::unique_ptr<HbmStack> MakeStack(uint64_t size_bytes) {
  StatusOr<std::unique_ptr<HbmStack>> stack = HbmStack::Create(size_bytes);
  EXPECT_TRUE(stack.ok()) << stack.status().ToString();
  if (!stack.ok()) return nullptr;
  return std::move(stack).value();
}

uint8_t ByteAt(const HbmStack& stack, uint64_t offset) {
  uint8_t byte = 0xEE;
  stack.Read(offset, &byte, 1);
  return byte;
}

TEST(HbmStackTest, EmptyStackIsInvalid) {
  StatusOr<std::unique_ptr<HbmStack>> stack = HbmStack::Create(0);
  ASSERT_FALSE(stack.ok());
  EXPECT_EQ(stack.status().code(), StatusCode::kInvalid);
}

TEST(HbmStackTest, ImpossibleReservationIsResource) {
  // 2^62 bytes exceeds any x86-64/arm64 user address space.
  StatusOr<std::unique_ptr<HbmStack>> stack = HbmStack::Create(1ull << 62);
  ASSERT_FALSE(stack.ok());
  EXPECT_EQ(stack.status().code(), StatusCode::kResource);
}

TEST(HbmStackTest, FreshStackReadsZero) {
  auto stack = MakeStack(24 * kGiB);
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->size_bytes(), 24 * kGiB);
  std::vector<uint8_t> buffer(4096, 0xAB);
  for (uint64_t offset : {uint64_t{0}, 12 * kGiB + 123, 24 * kGiB - 4096}) {
    stack->Read(offset, buffer.data(), buffer.size());
    EXPECT_EQ(buffer, std::vector<uint8_t>(4096, 0)) << "offset " << offset;
    std::fill(buffer.begin(), buffer.end(), 0xAB);
  }
}

TEST(HbmStackTest, RoundTripAtStartMiddleAndLastByte) {
  auto stack = MakeStack(24 * kGiB);
  ASSERT_NE(stack, nullptr);
  const uint64_t last = 24 * kGiB - 1;
  const uint64_t middle = 12 * kGiB - 3;  // straddles a page boundary below
  const char pattern[] = "trainium";
  stack->Write(0, pattern, sizeof(pattern));
  stack->Write(middle, pattern, sizeof(pattern));
  uint8_t last_byte = 0x5A;
  stack->Write(last, &last_byte, 1);

  char out[sizeof(pattern)] = {};
  stack->Read(0, out, sizeof(out));
  EXPECT_STREQ(out, pattern);
  std::memset(out, 0, sizeof(out));
  stack->Read(middle, out, sizeof(out));
  EXPECT_STREQ(out, pattern);
  EXPECT_EQ(ByteAt(*stack, last), 0x5A);
  // Bytes next to the writes are untouched.
  EXPECT_EQ(ByteAt(*stack, sizeof(pattern)), 0);
  EXPECT_EQ(ByteAt(*stack, middle - 1), 0);
  EXPECT_EQ(ByteAt(*stack, middle + sizeof(pattern)), 0);
  EXPECT_EQ(ByteAt(*stack, last - 1), 0);
}

TEST(HbmStackTest, ZeroSizeAccessAtTheEndIsAllowed) {
  auto stack = MakeStack(1 * kMiB);
  ASSERT_NE(stack, nullptr);
  stack->Write(1 * kMiB, nullptr, 0);
  stack->Read(1 * kMiB, nullptr, 0);
  stack->Fill(1 * kMiB, 1, 0);
  stack->Discard(1 * kMiB, 0);
  EXPECT_EQ(stack->HostAddress(1 * kMiB), stack->HostAddress(0) + 1 * kMiB);
}

TEST(HbmStackTest, HostAddressSeesWrites) {
  auto stack = MakeStack(1 * kMiB);
  ASSERT_NE(stack, nullptr);
  uint8_t value = 0x77;
  stack->Write(4097, &value, 1);
  EXPECT_EQ(*stack->HostAddress(4097), 0x77);
  *stack->HostAddress(10) = 0x33;
  EXPECT_EQ(ByteAt(*stack, 10), 0x33);
}

TEST(HbmStackTest, Fill) {
  auto stack = MakeStack(1 * kMiB);
  ASSERT_NE(stack, nullptr);
  stack->Fill(100, 0xC3, 10000);
  EXPECT_EQ(ByteAt(*stack, 99), 0);
  EXPECT_EQ(ByteAt(*stack, 100), 0xC3);
  EXPECT_EQ(ByteAt(*stack, 5000), 0xC3);
  EXPECT_EQ(ByteAt(*stack, 10099), 0xC3);
  EXPECT_EQ(ByteAt(*stack, 10100), 0);
}

// Fills the first `span` bytes with 0xFF, discards [offset, offset+size), and checks every byte.
void CheckDiscard(uint64_t span, uint64_t offset, uint64_t size) {
  auto stack = MakeStack(span);
  ASSERT_NE(stack, nullptr);
  stack->Fill(0, 0xFF, span);
  stack->Discard(offset, size);
  std::vector<uint8_t> bytes(span);
  stack->Read(0, bytes.data(), span);
  for (uint64_t i = 0; i < span; ++i) {
    uint8_t expected = (i >= offset && i < offset + size) ? 0 : 0xFF;
    if (bytes[i] != expected) {
      ADD_FAILURE() << "Discard(" << offset << ", " << size << "): byte " << i << " is "
                    << int(bytes[i]) << ", expected " << int(expected);
      return;
    }
  }
}

// Share: the range's bytes move to a memfd mapped in place; another mapping of the descriptor
// (a client's) and the stack then see each other's writes; Unshare ends the aliasing and the
// range reads zero; the bytes around the range never enter the memfd.
TEST(HbmStackTest, ShareAliasesTheRangeUntilUnshared) {
  const uint64_t page = HbmStack::PageBytes();
  auto stack = MakeStack(16 * page);
  std::vector<uint8_t> before(4 * page);
  for (size_t i = 0; i < before.size(); ++i) before[i] = uint8_t(i * 7 + 1);
  stack->Write(3 * page, before.data(), before.size());
  const uint8_t edge = 0x5C;
  stack->Write(3 * page - 1, &edge, 1);
  StatusOr<int> fd = stack->Share(3 * page, 4 * page);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  struct stat info {};
  ASSERT_EQ(fstat(*fd, &info), 0);
  EXPECT_EQ(uint64_t(info.st_size), 4 * page);
  EXPECT_EQ(ftruncate(*fd, 0), -1) << "a shared range must be sealed against shrinking";
  auto* other = static_cast<uint8_t*>(
      mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0));
  ASSERT_NE(other, MAP_FAILED);
  EXPECT_EQ(std::memcmp(other, before.data(), before.size()), 0) << "contents kept";
  other[5] = 0xA1;  // the client writes, the stack sees it
  EXPECT_EQ(ByteAt(*stack, 3 * page + 5), 0xA1);
  const uint8_t mine = 0xB2;  // and the other way round
  stack->Write(6 * page + 9, &mine, 1);
  EXPECT_EQ(other[3 * page + 9], 0xB2);
  EXPECT_EQ(ByteAt(*stack, 3 * page - 1), edge);

  stack->Unshare(3 * page, 4 * page);
  EXPECT_EQ(ByteAt(*stack, 3 * page + 5), 0) << "unshared pages read zero";
  other[6] = 0xC3;
  stack->Write(3 * page + 7, &mine, 1);
  EXPECT_EQ(ByteAt(*stack, 3 * page + 6), 0) << "the old mapping no longer reaches the stack";
  EXPECT_EQ(other[7], before[7]) << "nor the stack the old mapping";
  EXPECT_EQ(ByteAt(*stack, 3 * page - 1), edge);
  munmap(other, 4 * page);
  close(*fd);
}

TEST(HbmStackTest, ShareNeedsWholePagesInsideTheStack) {
  const uint64_t page = HbmStack::PageBytes();
  auto stack = MakeStack(4 * page);
  EXPECT_EQ(stack->Share(1, page).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(stack->Share(page, page + 1).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(stack->Share(page, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(stack->Share(2 * page, 3 * page).status().code(), StatusCode::kInvalid);
}

TEST(HbmStackTest, DiscardPageAligned) {
  const uint64_t page = PageBytes();
  CheckDiscard(8 * page, 2 * page, 3 * page);
  CheckDiscard(8 * page, 0, 8 * page);
}

TEST(HbmStackTest, DiscardUnalignedEdgesAcrossPages) {
  const uint64_t page = PageBytes();
  CheckDiscard(8 * page, page + 17, 4 * page);         // both edges unaligned
  CheckDiscard(8 * page, page - 1, 2 * page + 2);      // one byte into each neighbour page
  CheckDiscard(8 * page, 2 * page, 3 * page + 5);      // aligned start, unaligned end
  CheckDiscard(8 * page, 2 * page + 5, 3 * page - 5);  // unaligned start, aligned end
  CheckDiscard(8 * page, 7 * page + 1, page - 1);      // up to the very last byte
}

TEST(HbmStackTest, DiscardInsideOnePage) {
  const uint64_t page = PageBytes();
  CheckDiscard(4 * page, page + 100, 200);
  CheckDiscard(4 * page, page + 1, page - 2);
  CheckDiscard(4 * page, page - 10, 20);  // straddles a boundary without a whole page
  CheckDiscard(4 * page, 5, 1);
  CheckDiscard(4 * page, 5, 0);
}

TEST(HbmStackTest, DiscardReturnsPagesToTheHost) {
  auto stack = MakeStack(1 * kGiB);
  ASSERT_NE(stack, nullptr);
  const uint64_t written = 64 * kMiB;
  uint64_t before = ResidentBytes();
  ASSERT_GT(before, 0u) << "cannot read /proc/self/statm";
  stack->Fill(0, 1, written);
  uint64_t after_fill = ResidentBytes();
  EXPECT_GE(after_fill, before + written / 2);
  stack->Discard(0, written);
  uint64_t after_discard = ResidentBytes();
  EXPECT_LE(after_discard + written / 2, after_fill);
  EXPECT_EQ(ByteAt(*stack, written - 1), 0);
}

using HbmStackDeathTest = ::testing::Test;

TEST_F(HbmStackDeathTest, OutOfRangeAccessAborts) {
  auto stack = MakeStack(1 * kMiB);
  ASSERT_NE(stack, nullptr);
  uint8_t byte = 0;
  EXPECT_DEATH(stack->Read(1 * kMiB, &byte, 1), "outside the 1048576-byte stack");
  EXPECT_DEATH(stack->Write(1 * kMiB - 1, &byte, 2), "outside");
  EXPECT_DEATH(stack->Fill(UINT64_MAX, 0, 2), "outside");
  EXPECT_DEATH(stack->Discard(0, 1 * kMiB + 1), "outside");
}

TEST(InstanceTest, WholeTrn2_48xlargeIsCheapUntilWritten) {
  StatusOr<const InstanceSpec*> spec = FindInstanceSpec("trn2.48xlarge");
  ASSERT_TRUE(spec.ok());
  uint64_t before = ResidentBytes();
  ASSERT_GT(before, 0u);
  StatusOr<std::unique_ptr<Instance>> instance = Instance::Create(**spec);
  ASSERT_TRUE(instance.ok()) << instance.status().ToString();
  Instance& inst = **instance;
  EXPECT_EQ(&inst.spec(), *spec);
  ASSERT_EQ(inst.chip_count(), 16);
  uint64_t total_bytes = 0;
  int stacks = 0;
  for (int c = 0; c < inst.chip_count(); ++c) {
    Chip& chip = inst.chip(c);
    EXPECT_EQ(chip.index(), c);
    EXPECT_EQ(&chip.spec(), &Trainium2Spec());
    for (int h = 0; h < chip.spec().hbm_stacks; ++h) {
      HbmStack& stack = chip.hbm(h);
      total_bytes += stack.size_bytes();
      ++stacks;
      // Tag the last byte of every stack with its number; stacks must not share storage.
      uint8_t tag = static_cast<uint8_t>(c * 4 + h + 1);
      stack.Write(stack.size_bytes() - 1, &tag, 1);
    }
  }
  EXPECT_EQ(stacks, 64);
  EXPECT_EQ(total_bytes, 1536 * kGiB);
  for (int c = 0; c < inst.chip_count(); ++c) {
    for (int h = 0; h < 4; ++h) {
      const HbmStack& stack = inst.chip(c).hbm(h);
      EXPECT_EQ(ByteAt(stack, stack.size_bytes() - 1), c * 4 + h + 1);
      EXPECT_EQ(ByteAt(stack, 0), 0);
    }
  }
  uint64_t growth = ResidentBytes() - before;
  EXPECT_LT(growth, 64 * kMiB) << "resident set grew by " << growth << " bytes";
}

TEST(InstanceTest, EveryInstanceTypeCanBeCreated) {
  for (const InstanceSpec& spec : InstanceSpecs()) {
    StatusOr<std::unique_ptr<Instance>> instance = Instance::Create(spec);
    ASSERT_TRUE(instance.ok()) << spec.type_name << ": " << instance.status().ToString();
    EXPECT_EQ((*instance)->chip_count(), spec.chip_count);
    EXPECT_EQ((*instance)->chip(0).hbm(0).size_bytes(), spec.chip->hbm_bytes_per_stack);
  }
}

}  // namespace
}  // namespace trnsim::simulator
