// What only the sim back end does, beyond the Device contract every back end passes
// (device_test.cc): device memory mapped into this process (HostAddress) and given back to the
// host page by page, and OpenDevice's choice of back end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "driver/device.h"
#include "simulator/spec/instance_spec.h"
#include "tests/driver/device_test_fixture.h"

namespace trnsim::driver {
namespace {

using test::Pattern;
using ::testing::HasSubstr;

const simulator::InstanceSpec& Trn2_3xlarge() {
  return **simulator::FindInstanceSpec("trn2.3xlarge");
}

// The sim back end only (device_test_fixture.h's DeviceTest with one back end).
using SimDeviceTest = test::DeviceTest;
INSTANTIATE_TEST_SUITE_P(Sim, SimDeviceTest, ::testing::Values(std::string("sim")),
                         test::BackendName);

TEST_P(SimDeviceTest, HostAddressMapsTheBytes) {
  AllocationInfo a = MustAllocate(4096);
  std::vector<uint8_t> data = Pattern(100, 9);
  ASSERT_TRUE(device_->Write(a.handle, 200, data.data(), data.size()).ok());
  auto* host = static_cast<uint8_t*>(device_->HostAddress(a.handle, 200));
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(std::memcmp(host, data.data(), data.size()), 0);
  host[0] = 0x99;
  EXPECT_EQ(ReadAll(a.handle, 200, 1), std::vector<uint8_t>{0x99});
  EXPECT_EQ(device_->HostAddress(a.handle, 0), static_cast<uint8_t*>(host) - 200);
  EXPECT_EQ(device_->HostAddress(a.handle, a.size_bytes + 1), nullptr);
  EXPECT_EQ(device_->HostAddress(kInvalidMemoryHandle, 0), nullptr);
}

// Small allocations share host pages. Once every one is freed, whatever the order, no page of
// them stays resident: a page goes back to the host when its last block is freed, not only pages
// wholly inside one block. And the bytes read zero when allocated again.
TEST_P(SimDeviceTest, PagesSharedBySmallAllocationsGoBackToTheHostWhenAllAreFreed) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  constexpr int kBlocks = 200;  // 320 bytes each: about 16 pages, most shared by two blocks
  std::vector<AllocationInfo> blocks;
  for (int i = 0; i < kBlocks; ++i) {
    blocks.push_back(MustAllocate(320, 2));
    std::vector<uint8_t> bytes = Pattern(320, uint8_t(i));
    ASSERT_TRUE(device_->Write(blocks.back().handle, 0, bytes.data(), bytes.size()).ok());
  }
  auto* first = static_cast<uint8_t*>(device_->HostAddress(blocks.front().handle, 0));
  auto* last = static_cast<uint8_t*>(device_->HostAddress(blocks.back().handle, 319));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(last, nullptr);
  auto* begin = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(first) / page * page);
  const size_t pages = (last - begin) / page + 1;
  auto resident_pages = [&] {
    std::vector<unsigned char> residency(pages);
    EXPECT_EQ(mincore(begin, pages * page, residency.data()), 0);
    return std::count_if(residency.begin(), residency.end(), [](unsigned char r) { return r & 1; });
  };
  EXPECT_EQ(resident_pages(), static_cast<long>(pages));
  // Odd blocks first, then even ones: every page is shared with a live block at first.
  for (int parity : {1, 0}) {
    for (int i = parity; i < kBlocks; i += 2) ASSERT_TRUE(device_->Free(blocks[i].handle).ok());
  }
  EXPECT_EQ(resident_pages(), 0);
  AllocationInfo again = MustAllocate(320 * kBlocks, 2);
  ASSERT_EQ(again.device_address, blocks.front().device_address);
  EXPECT_EQ(ReadAll(again.handle, 0, 320 * kBlocks), std::vector<uint8_t>(320 * kBlocks, 0));
}

TEST(OpenDeviceTest, UnknownBackendIsInvalidAndNamesKnownOnes) {
  DeviceOptions options;
  options.backend = "fpga";
  options.instance = &Trn2_3xlarge();
  StatusOr<std::unique_ptr<Device>> device = OpenDevice(options);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(device.status().message(), HasSubstr("fpga"));
  EXPECT_THAT(device.status().message(), HasSubstr("sim"));
}

TEST(OpenDeviceTest, SimNeedsAnInstance) {
  DeviceOptions options;
  options.backend = "sim";
  StatusOr<std::unique_ptr<Device>> device = OpenDevice(options);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
}

TEST(OpenDeviceTest, SeparateSimDevicesAreSeparateInstances) {
  DeviceOptions options;
  options.instance = &Trn2_3xlarge();
  auto first = std::move(OpenDevice(options)).value();
  auto second = std::move(OpenDevice(options)).value();
  ASSERT_TRUE(first->AcquireCores(0, 8).ok());
  EXPECT_TRUE(second->AcquireCores(0, 8).ok());
  AllocationRequest request;
  request.size_bytes = 64;
  StatusOr<AllocationInfo> a = first->Allocate(request);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(second->GetHbmUsage(0, 0)->used_bytes, 0u);
}

}  // namespace
}  // namespace trnsim::driver
