// A tensor larger than 4 GiB written and read back through neurond by the remote back end:
// every 32-bit size or offset anywhere on the path (chunking, stream headers, the daemon's
// range checks) would show here. The daemon runs in this process on a unix socket. Label
// `slow` (about 9 GiB of memory at its peak, seconds of copying; `make sanitize` skips it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "driver/device.h"
#include "simulator/spec/instance_spec.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {
namespace {

// Past 4 GiB, and not a multiple of the chunk size or of 8.
constexpr uint64_t kBytes = (uint64_t{4} << 30) + (uint64_t{3} << 20) + 5;

uint64_t PatternWord(uint64_t index) { return index * 0x9E3779B97F4A7C15ull + 1; }

TEST(NeurondBigTransferTest, FourGibibytesAndMoreRoundTripIntact) {
  testing::TempDir dir;
  DaemonOptions options;
  options.listen = "unix:" + (dir.path() / "sock").string();
  options.instance = *simulator::FindInstanceSpec("trn2.3xlarge");
  StatusOr<std::unique_ptr<Daemon>> daemon = Daemon::Start(options);
  ASSERT_TRUE(daemon.ok()) << daemon.status().ToString();

  driver::DeviceOptions device_options;
  device_options.backend = "remote";
  device_options.address = (*daemon)->address();
  StatusOr<std::unique_ptr<driver::Device>> device = driver::OpenDevice(device_options);
  ASSERT_TRUE(device.ok()) << device.status().ToString();

  driver::AllocationRequest request;
  request.size_bytes = kBytes;
  StatusOr<driver::AllocationInfo> info = (*device)->Allocate(request);
  ASSERT_TRUE(info.ok()) << info.status().ToString();

  std::vector<uint8_t> host(kBytes);
  for (uint64_t word = 0; word < kBytes / 8; ++word) {
    uint64_t value = PatternWord(word);
    std::memcpy(host.data() + word * 8, &value, 8);
  }
  for (uint64_t at = kBytes / 8 * 8; at < kBytes; ++at) host[at] = uint8_t(at);

  Status written = (*device)->Write(info->handle, 0, host.data(), kBytes);
  ASSERT_TRUE(written.ok()) << written.ToString();
  std::memset(host.data(), 0, kBytes);
  Status read = (*device)->Read(info->handle, 0, host.data(), kBytes);
  ASSERT_TRUE(read.ok()) << read.ToString();

  uint64_t wrong = 0, first_wrong = kBytes;
  for (uint64_t word = 0; word < kBytes / 8; ++word) {
    uint64_t value = 0;
    std::memcpy(&value, host.data() + word * 8, 8);
    if (value != PatternWord(word)) {
      if (wrong++ == 0) first_wrong = word * 8;
    }
  }
  for (uint64_t at = kBytes / 8 * 8; at < kBytes; ++at) {
    if (host[at] != uint8_t(at) && wrong++ == 0) first_wrong = at;
  }
  EXPECT_EQ(wrong, 0u) << "first wrong byte at offset " << first_wrong;

  // A read of the last bytes alone, at an offset past 4 GiB.
  uint8_t tail[16] = {};
  ASSERT_TRUE((*device)->Read(info->handle, kBytes - 16, tail, 16).ok());
  EXPECT_EQ(std::memcmp(tail, host.data() + kBytes - 16, 16), 0);
  EXPECT_TRUE((*device)->Free(info->handle).ok());
}

}  // namespace
}  // namespace trnsim::neurond
