// The Device contract's memory, core and point-to-point parts, run against every back end
// (device_test_fixture.h) on a trn2.3xlarge: allocation and its physical addresses, data
// movement, zeroing, argument validation, core ownership, HBM usage and point-to-point
// transfers.
#include "driver/device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "simulator/spec/instance_spec.h"
#include "tests/driver/device_test_fixture.h"

namespace trnsim::driver {
namespace {

using test::Pattern;

const simulator::InstanceSpec& Trn2_3xlarge() {
  return **simulator::FindInstanceSpec("trn2.3xlarge");
}

using DeviceMemoryTest = test::DeviceTest;
INSTANTIATE_TEST_SUITE_P(Backends, DeviceMemoryTest, ::testing::ValuesIn(test::kDeviceBackends),
                         test::BackendName);

TEST_P(DeviceMemoryTest, ReportsItsInstance) {
  EXPECT_EQ(&device_->instance_spec(), &Trn2_3xlarge());
}

TEST_P(DeviceMemoryTest, AllocateAndDescribe) {
  AllocationRequest request;
  request.chip = 0;
  request.hbm = 2;
  request.size_bytes = 1000;
  request.owner_core = 5;
  request.category = MemoryCategory::kScratchpad;
  StatusOr<AllocationInfo> info = device_->Allocate(request);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_NE(info->handle, kInvalidMemoryHandle);
  EXPECT_EQ(info->chip, 0);
  EXPECT_EQ(info->hbm, 2);
  EXPECT_EQ(info->size_bytes, 1024u);  // rounded to 64-byte granules
  EXPECT_EQ(info->owner_core, 5);
  EXPECT_EQ(info->category, MemoryCategory::kScratchpad);

  StatusOr<AllocationInfo> described = device_->Describe(info->handle);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->handle, info->handle);
  EXPECT_EQ(described->device_address, info->device_address);
  EXPECT_EQ(described->size_bytes, info->size_bytes);
  EXPECT_EQ(described->hbm, 2);
  EXPECT_EQ(described->owner_core, 5);
  EXPECT_EQ(described->category, MemoryCategory::kScratchpad);
}

TEST_P(DeviceMemoryTest, PhysicalAddressIsHbmBasePlusOffset) {
  const simulator::ChipSpec& chip = *Trn2_3xlarge().chip;
  for (int hbm = 0; hbm < chip.hbm_stacks; ++hbm) {
    // A fresh stack places its first blocks at offsets 0, 1024, 1088.
    AllocationInfo a = MustAllocate(1000, hbm);
    AllocationInfo b = MustAllocate(64, hbm);
    AllocationInfo c = MustAllocate(64, hbm);
    EXPECT_EQ(a.device_address, chip.hbm_base_pa[hbm]) << "hbm " << hbm;
    EXPECT_EQ(b.device_address, chip.hbm_base_pa[hbm] + 1024) << "hbm " << hbm;
    EXPECT_EQ(c.device_address, chip.hbm_base_pa[hbm] + 1088) << "hbm " << hbm;
  }
}

TEST_P(DeviceMemoryTest, HandlesAreDistinct) {
  AllocationInfo a = MustAllocate(64);
  AllocationInfo b = MustAllocate(64);
  AllocationInfo c = MustAllocate(64, 1);
  EXPECT_NE(a.handle, b.handle);
  EXPECT_NE(a.handle, c.handle);
  EXPECT_NE(b.handle, c.handle);
}

TEST_P(DeviceMemoryTest, NewAllocationReadsZero) {
  AllocationInfo a = MustAllocate(1 << 20, 3);
  EXPECT_EQ(ReadAll(a.handle, 0, 1 << 20), std::vector<uint8_t>(1 << 20, 0));
}

TEST_P(DeviceMemoryTest, WriteReadRoundTrip) {
  AllocationInfo a = MustAllocate(10000);
  std::vector<uint8_t> data = Pattern(3000, 1);
  ASSERT_TRUE(device_->Write(a.handle, 5000, data.data(), data.size()).ok());
  EXPECT_EQ(ReadAll(a.handle, 5000, 3000), data);
  EXPECT_EQ(ReadAll(a.handle, 4999, 1), std::vector<uint8_t>{0});
  EXPECT_EQ(ReadAll(a.handle, 8000, 1), std::vector<uint8_t>{0});
  // The last byte of the reserved (rounded-up) size is addressable.
  uint8_t last = 0x42;
  ASSERT_TRUE(device_->Write(a.handle, a.size_bytes - 1, &last, 1).ok());
  EXPECT_EQ(ReadAll(a.handle, a.size_bytes - 1, 1), std::vector<uint8_t>{0x42});
}

TEST_P(DeviceMemoryTest, AllocationsDoNotShareBytes) {
  AllocationInfo a = MustAllocate(128);
  AllocationInfo b = MustAllocate(128);
  ASSERT_TRUE(device_->Fill(a.handle, 0, 0xAA, 128).ok());
  ASSERT_TRUE(device_->Fill(b.handle, 0, 0xBB, 128).ok());
  EXPECT_EQ(ReadAll(a.handle, 0, 128), std::vector<uint8_t>(128, 0xAA));
  EXPECT_EQ(ReadAll(b.handle, 0, 128), std::vector<uint8_t>(128, 0xBB));
}

TEST_P(DeviceMemoryTest, CopyBetweenAllocations) {
  AllocationInfo src = MustAllocate(4096);
  AllocationInfo dst = MustAllocate(4096);
  AllocationInfo other_hbm = MustAllocate(4096, 3);
  std::vector<uint8_t> data = Pattern(1000, 3);
  ASSERT_TRUE(device_->Write(src.handle, 10, data.data(), data.size()).ok());
  ASSERT_TRUE(device_->Copy(src.handle, 10, dst.handle, 2000, 1000).ok());
  EXPECT_EQ(ReadAll(dst.handle, 2000, 1000), data);
  EXPECT_EQ(ReadAll(dst.handle, 1999, 1), std::vector<uint8_t>{0});
  EXPECT_EQ(ReadAll(dst.handle, 3000, 1), std::vector<uint8_t>{0});
  // The driver copies across stacks; keeping copies on one HBM is the runtime's rule.
  ASSERT_TRUE(device_->Copy(dst.handle, 2000, other_hbm.handle, 0, 1000).ok());
  EXPECT_EQ(ReadAll(other_hbm.handle, 0, 1000), data);
}

// Overlapping copies inside one allocation must behave like memmove, in both directions.
TEST_P(DeviceMemoryTest, OverlappingCopyWithinOneAllocationIsMemmove) {
  struct Case {
    uint64_t src, dst, size;
  };
  for (Case c : {Case{0, 100, 1000}, Case{100, 0, 1000}, Case{0, 1, 4000}, Case{1, 0, 4000},
                 Case{500, 500, 200}}) {
    AllocationInfo a = MustAllocate(8192);
    std::vector<uint8_t> expected = Pattern(8192, static_cast<uint8_t>(c.src + c.dst));
    ASSERT_TRUE(device_->Write(a.handle, 0, expected.data(), expected.size()).ok());
    std::memmove(expected.data() + c.dst, expected.data() + c.src, c.size);
    ASSERT_TRUE(device_->Copy(a.handle, c.src, a.handle, c.dst, c.size).ok());
    EXPECT_EQ(ReadAll(a.handle, 0, 8192), expected)
        << "src " << c.src << " dst " << c.dst << " size " << c.size;
    ASSERT_TRUE(device_->Free(a.handle).ok());
  }
}

TEST_P(DeviceMemoryTest, Fill) {
  AllocationInfo a = MustAllocate(1024);
  ASSERT_TRUE(device_->Fill(a.handle, 100, 0x5C, 300).ok());
  std::vector<uint8_t> expected(1024, 0);
  std::fill(expected.begin() + 100, expected.begin() + 400, 0x5C);
  EXPECT_EQ(ReadAll(a.handle, 0, 1024), expected);
}

TEST_P(DeviceMemoryTest, ZeroSizeTransfersAreAllowedUpToTheEnd) {
  AllocationInfo a = MustAllocate(64);
  EXPECT_TRUE(device_->Write(a.handle, 64, nullptr, 0).ok());
  EXPECT_TRUE(device_->Read(a.handle, 64, nullptr, 0).ok());
  EXPECT_TRUE(device_->Fill(a.handle, 64, 1, 0).ok());
  EXPECT_TRUE(device_->Copy(a.handle, 64, a.handle, 0, 0).ok());
}

TEST_P(DeviceMemoryTest, FreedMemoryReadsZeroWhenAllocatedAgain) {
  AllocationInfo a = MustAllocate(1 << 16, 1);
  ASSERT_TRUE(device_->Fill(a.handle, 0, 0xFF, 1 << 16).ok());
  ASSERT_TRUE(device_->Free(a.handle).ok());
  AllocationInfo b = MustAllocate(1 << 16, 1);
  // Same place in the stack, so stale bytes would show if Free did not discard them.
  ASSERT_EQ(b.device_address, a.device_address);
  EXPECT_EQ(ReadAll(b.handle, 0, 1 << 16), std::vector<uint8_t>(1 << 16, 0));
}

// ShareMemory (sim only; remote: NRT_FAILURE): the whole pages inside an allocation, mapped
// elsewhere, are the allocation's bytes until it is freed; after Free the same place reads zero
// and the old mapping reaches it no more.
TEST_P(DeviceMemoryTest, SharedMemoryIsTheAllocationUntilFreed) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  AllocationInfo pad = MustAllocate(100, 1);  // so the next allocation starts inside a page
  AllocationInfo a = MustAllocate(8 * page, 1);
  std::vector<uint8_t> pattern = Pattern(8 * page, 3);
  ASSERT_TRUE(device_->Write(a.handle, 0, pattern.data(), pattern.size()).ok());
  StatusOr<Device::SharedMemory> shared = device_->ShareMemory(a.handle);
  if (GetParam() == "remote") {
    EXPECT_EQ(shared.status().code(), StatusCode::kFailure);
    return;
  }
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  EXPECT_EQ((a.device_address + shared->offset) % page, 0u);
  EXPECT_LT(shared->offset, page);
  EXPECT_GE(shared->size, 7 * page);
  EXPECT_LE(shared->offset + shared->size, a.size_bytes);
  auto* view = static_cast<uint8_t*>(
      mmap(nullptr, shared->size, PROT_READ | PROT_WRITE, MAP_SHARED, shared->fd, 0));
  ASSERT_NE(view, MAP_FAILED);
  EXPECT_EQ(std::memcmp(view, pattern.data() + shared->offset, shared->size), 0);
  view[10] = 0xEE;
  EXPECT_EQ(ReadAll(a.handle, shared->offset + 10, 1)[0], 0xEE);
  // Asked again: the same memory, another descriptor.
  StatusOr<Device::SharedMemory> again = device_->ShareMemory(a.handle);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->fd, shared->fd);
  EXPECT_EQ(again->offset, shared->offset);
  close(again->fd);

  ASSERT_TRUE(device_->Free(a.handle).ok());
  EXPECT_EQ(device_->ShareMemory(a.handle).status().code(), StatusCode::kInvalidHandle);
  AllocationInfo b = MustAllocate(8 * page, 1);
  ASSERT_EQ(b.device_address, a.device_address);
  view[11] = 0xDD;
  EXPECT_EQ(ReadAll(b.handle, 0, 8 * page), std::vector<uint8_t>(8 * page, 0));
  munmap(view, shared->size);
  close(shared->fd);
  // Less than a whole page inside: nothing to share.
  EXPECT_EQ(device_->ShareMemory(pad.handle).status().code(), StatusCode::kInvalid);
}

TEST_P(DeviceMemoryTest, OutOfRangeIsInvalidAndWritesNothing) {
  AllocationInfo a = MustAllocate(1000);  // reserves 1024
  std::vector<uint8_t> data(2048, 0x11);
  struct Case {
    uint64_t offset, size;
  };
  for (Case c : {Case{0, 1025}, Case{1024, 1}, Case{1000, 25}, Case{1025, 0}, Case{1, UINT64_MAX},
                 Case{UINT64_MAX, 2}}) {
    SCOPED_TRACE(::testing::Message() << "offset " << c.offset << " size " << c.size);
    EXPECT_EQ(device_->Write(a.handle, c.offset, data.data(), c.size).code(), StatusCode::kInvalid);
    EXPECT_EQ(device_->Read(a.handle, c.offset, data.data(), c.size).code(), StatusCode::kInvalid);
    EXPECT_EQ(device_->Fill(a.handle, c.offset, 0x22, c.size).code(), StatusCode::kInvalid);
    EXPECT_EQ(device_->Copy(a.handle, c.offset, a.handle, 0, c.size).code(), StatusCode::kInvalid);
    EXPECT_EQ(device_->Copy(a.handle, 0, a.handle, c.offset, c.size).code(), StatusCode::kInvalid);
  }
  EXPECT_EQ(ReadAll(a.handle, 0, 1024), std::vector<uint8_t>(1024, 0));
  EXPECT_EQ(data, std::vector<uint8_t>(2048, 0x11));  // failed reads leave the buffer alone
}

TEST_P(DeviceMemoryTest, NullBuffersAreInvalid) {
  AllocationInfo a = MustAllocate(64);
  EXPECT_EQ(device_->Write(a.handle, 0, nullptr, 1).code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->Read(a.handle, 0, nullptr, 1).code(), StatusCode::kInvalid);
}

TEST_P(DeviceMemoryTest, UnknownHandleIsInvalidHandle) {
  AllocationInfo live = MustAllocate(64);
  AllocationInfo freed = MustAllocate(64);
  ASSERT_TRUE(device_->Free(freed.handle).ok());
  MustAllocate(64);  // a later allocation must not revive the freed handle
  uint8_t byte = 0;
  for (MemoryHandle h : {kInvalidMemoryHandle, freed.handle, MemoryHandle{0xDEADBEEF}}) {
    SCOPED_TRACE(::testing::Message() << "handle " << h);
    EXPECT_EQ(device_->Free(h).code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->Describe(h).status().code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->Write(h, 0, &byte, 1).code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->Read(h, 0, &byte, 1).code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->Fill(h, 0, 1, 1).code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->Copy(h, 0, live.handle, 0, 1).code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->Copy(live.handle, 0, h, 0, 1).code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(device_->HostAddress(h, 0), nullptr);
  }
}

TEST_P(DeviceMemoryTest, BadAllocationRequests) {
  AllocationRequest request;
  request.size_bytes = 64;
  request.chip = 1;  // trn2.3xlarge has one chip
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kInvalid);
  request.chip = -1;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kInvalid);
  request.chip = 0;
  request.hbm = 4;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kInvalid);
  request.hbm = -1;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kInvalid);
  request.hbm = 0;
  request.size_bytes = 0;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kInvalid);
  request.size_bytes = 64;
  request.alignment_bytes = 100;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kInvalid);
  request.alignment_bytes = 64;
  request.size_bytes = 24ull * simulator::kGiB + 1;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kResource);
}

TEST_P(DeviceMemoryTest, WholeStackThenExhaustion) {
  const uint64_t stack_bytes = Trn2_3xlarge().chip->hbm_bytes_per_stack;
  AllocationInfo whole = MustAllocate(stack_bytes, 2);  // lazily backed: costs nothing
  EXPECT_EQ(whole.size_bytes, stack_bytes);
  AllocationRequest request;
  request.hbm = 2;
  request.size_bytes = 64;
  EXPECT_EQ(device_->Allocate(request).status().code(), StatusCode::kResource);
  request.hbm = 1;  // other stacks are unaffected
  EXPECT_TRUE(device_->Allocate(request).ok());
  ASSERT_TRUE(device_->Free(whole.handle).ok());
  request.hbm = 2;
  EXPECT_TRUE(device_->Allocate(request).ok());
}

TEST_P(DeviceMemoryTest, GetHbmUsage) {
  const uint64_t stack_bytes = Trn2_3xlarge().chip->hbm_bytes_per_stack;
  for (int hbm = 0; hbm < 4; ++hbm) {
    StatusOr<HbmUsage> usage = device_->GetHbmUsage(0, hbm);
    ASSERT_TRUE(usage.ok());
    EXPECT_EQ(usage->used_bytes, 0u);
    EXPECT_EQ(usage->capacity_bytes, stack_bytes);
  }
  AllocationInfo a = MustAllocate(1000, 1);
  AllocationInfo b = MustAllocate(64, 1);
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 1088u);
  EXPECT_EQ(device_->GetHbmUsage(0, 0)->used_bytes, 0u);
  ASSERT_TRUE(device_->Free(a.handle).ok());
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 64u);
  ASSERT_TRUE(device_->Free(b.handle).ok());
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 0u);
  EXPECT_EQ(device_->GetHbmUsage(1, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->GetHbmUsage(0, 4).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->GetHbmUsage(-1, 0).status().code(), StatusCode::kInvalid);
}

TEST_P(DeviceMemoryTest, CoreAcquireAndRelease) {
  ASSERT_TRUE(device_->AcquireCores(0, 2).ok());
  EXPECT_EQ(device_->AcquireCores(0, 2).code(), StatusCode::kFailure);  // double acquire
  EXPECT_EQ(device_->AcquireCores(1, 2).code(), StatusCode::kFailure);  // overlaps core 1
  // The failed request took nothing: core 2 is still free.
  ASSERT_TRUE(device_->AcquireCores(2, 1).ok());
  ASSERT_TRUE(device_->AcquireCores(3, 5).ok());  // up to the last core
  EXPECT_EQ(device_->AcquireCores(7, 1).code(), StatusCode::kFailure);
  device_->ReleaseCores(0, 2);
  EXPECT_TRUE(device_->AcquireCores(1, 1).ok());
  EXPECT_EQ(device_->AcquireCores(0, 2).code(), StatusCode::kFailure);
  EXPECT_TRUE(device_->AcquireCores(0, 1).ok());
  device_->ReleaseCores(0, 8);
  EXPECT_TRUE(device_->AcquireCores(0, 8).ok());
}

TEST_P(DeviceMemoryTest, CoreRangesOutsideTheInstanceAreInvalid) {
  EXPECT_EQ(device_->AcquireCores(-1, 1).code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->AcquireCores(7, 2).code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->AcquireCores(8, 1).code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->AcquireCores(0, 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->AcquireCores(0, 9).code(), StatusCode::kInvalid);
  EXPECT_EQ(device_->AcquireCores(1, INT32_MAX).code(), StatusCode::kInvalid);
  device_->ReleaseCores(-5, 100);  // out-of-range releases are ignored
  EXPECT_TRUE(device_->AcquireCores(0, 8).ok());
}

TEST_P(DeviceMemoryTest, ConcurrentTransfersOnDistinctAllocations) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 100;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &failures] {
      for (int round = 0; round < kRounds; ++round) {
        AllocationRequest request;
        request.hbm = t % 4;
        request.size_bytes = 4096;
        StatusOr<AllocationInfo> info = device_->Allocate(request);
        if (!info.ok()) {
          ++failures[t];
          continue;
        }
        std::vector<uint8_t> data = Pattern(4096, static_cast<uint8_t>(t * 31 + round));
        std::vector<uint8_t> back(4096);
        if (!device_->Write(info->handle, 0, data.data(), 4096).ok() ||
            !device_->Read(info->handle, 0, back.data(), 4096).ok() || back != data ||
            !device_->Free(info->handle).ok()) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  for (int hbm = 0; hbm < 4; ++hbm) EXPECT_EQ(device_->GetHbmUsage(0, hbm)->used_bytes, 0u);
}

}  // namespace
}  // namespace trnsim::driver

// PointToPoint: the instance's PeerExchange moves bytes between allocations of different HBM
// stacks when both sides are posted; a post's memory is checked first, and memory freed before
// the match fails the transfer instead of touching the pool.
namespace trnsim::driver {
namespace {

namespace p2p = driver;

StatusOr<p2p::PeerReply> Peer(Device& device, p2p::PeerOp op, uint64_t id,
                              p2p::PeerBuffer buffer = {}) {
  p2p::PeerCall call;
  call.op = op;
  call.id = id;
  call.buffer = buffer;
  return device.PointToPoint(call);
}

uint64_t OpenEnd(Device& device, p2p::PeerSide side, int lnc, int peer) {
  p2p::PeerCall call;
  call.op = p2p::PeerOp::kOpen;
  call.side = side;
  call.lnc = lnc;
  call.peer_lnc = peer;
  StatusOr<p2p::PeerReply> reply = device.PointToPoint(call);
  EXPECT_TRUE(reply.ok()) << reply.status().ToString();
  return reply.ok() ? reply->id : 0;
}

TEST_P(DeviceMemoryTest, PointToPointCopiesAcrossHbmStacksAndChecksMemory) {
  ASSERT_GE(Trn2_3xlarge().chip->hbm_stacks, 2);
  AllocationInfo src = MustAllocate(4096, 0);
  AllocationInfo dst = MustAllocate(4096, 1);
  std::vector<uint8_t> pattern = Pattern(4096, 9);
  ASSERT_TRUE(device_->Write(src.handle, 0, pattern.data(), pattern.size()).ok());
  // Ends are opened on logical cores the caller holds (neurond checks; at the trn2.3xlarge's
  // default LNC 2, logical cores 0 and 1 are physical cores 0-3).
  ASSERT_TRUE(device_->AcquireCores(0, 4).ok());
  uint64_t send = OpenEnd(*device_, p2p::PeerSide::kSend, 0, 1);
  uint64_t recv = OpenEnd(*device_, p2p::PeerSide::kRecv, 1, 0);
  EXPECT_TRUE(Peer(*device_, p2p::PeerOp::kConnected, send)->connected);

  // Memory is checked before anything is posted.
  EXPECT_EQ(Peer(*device_, p2p::PeerOp::kPost, send, {src.handle + 1000, 0, 8}).status().code(),
            StatusCode::kInvalidHandle);
  EXPECT_EQ(Peer(*device_, p2p::PeerOp::kPost, send, {src.handle, 4090, 8}).status().code(),
            StatusCode::kInvalid);

  uint64_t s = Peer(*device_, p2p::PeerOp::kPost, send, {src.handle, 100, 1000})->id;
  uint64_t r = Peer(*device_, p2p::PeerOp::kPost, recv, {dst.handle, 2000, 1000})->id;
  p2p::PeerReply done = *Peer(*device_, p2p::PeerOp::kTest, r);
  EXPECT_TRUE(done.request.done);
  EXPECT_TRUE(done.request.status.ok()) << done.request.status.ToString();
  EXPECT_EQ(done.request.bytes, 1000u);
  EXPECT_TRUE(Peer(*device_, p2p::PeerOp::kTest, s)->request.done);
  std::vector<uint8_t> got = ReadAll(dst.handle, 2000, 1000);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), pattern.begin() + 100));

  // The receiver's memory is freed before the send arrives: the transfer fails.
  AllocationInfo doomed = MustAllocate(64, 1);
  uint64_t r2 = Peer(*device_, p2p::PeerOp::kPost, recv, {doomed.handle, 0, 64})->id;
  ASSERT_TRUE(device_->Free(doomed.handle).ok());
  uint64_t s2 = Peer(*device_, p2p::PeerOp::kPost, send, {src.handle, 0, 64})->id;
  EXPECT_EQ(Peer(*device_, p2p::PeerOp::kTest, r2)->request.status.code(),
            StatusCode::kInvalidHandle);
  EXPECT_EQ(Peer(*device_, p2p::PeerOp::kTest, s2)->request.status.code(),
            StatusCode::kInvalidHandle);
}

}  // namespace
}  // namespace trnsim::driver
