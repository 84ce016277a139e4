// The device plugin's pure parts: core lists, the health rules over a sequence of daemon
// answers, and preferred allocations on a single-chip instance (no links).
#include <gtest/gtest.h>

#include "tools/device_plugin/core_list.h"
#include "tools/device_plugin/health_tracker.h"
#include "tools/device_plugin/inventory.h"
#include "tools/device_plugin/preferred_allocation.h"

namespace trnsim::device_plugin {
namespace {

TEST(CoreList, CompactRangesAscending) {
  EXPECT_EQ(FormatCoreList({}), "");
  EXPECT_EQ(FormatCoreList({5}), "5");
  EXPECT_EQ(FormatCoreList({7, 4, 6, 5}), "4-7");
  EXPECT_EQ(FormatCoreList({0, 1, 2, 3, 8, 9, 10, 11}), "0-3,8-11");
  EXPECT_EQ(FormatCoreList({1, 3, 4, 4, 9}), "1,3-4,9");
}

observe::DaemonStatus Answer(const simulator::InstanceSpec* spec, uint64_t uptime_ms,
                             std::vector<uint64_t> sram_errors) {
  observe::DaemonStatus status;
  status.instance = spec;
  status.uptime_ms = uptime_ms;
  for (size_t d = 0; d < sram_errors.size(); ++d) {
    observe::DeviceErrorCounters counters;
    counters.device = int(d);
    counters.sram_ecc_uncorrected = sram_errors[d];
    status.device_errors.push_back(counters);
  }
  return status;
}

TEST(HealthTracker, ErrorsSinceTheStartUnreachableDaemonsAndRestarts) {
  const simulator::InstanceSpec* spec = *simulator::FindInstanceSpec("trn2.48xlarge");
  const simulator::InstanceSpec* other = *simulator::FindInstanceSpec("trn2.3xlarge");
  HealthTracker tracker("trn2.48xlarge", 2);
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({false, false}));  // not read yet
  // Errors counted before the plugin watched are not held against a device.
  EXPECT_TRUE(tracker.Observe(Answer(spec, 100, {3, 0})));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({true, true}));
  EXPECT_FALSE(tracker.Observe(Answer(spec, 200, {3, 0})));
  EXPECT_TRUE(tracker.Observe(Answer(spec, 300, {3, 1})));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({true, false}));
  EXPECT_NE(tracker.Describe().find("neuron1 (1 uncorrected errors)"), std::string::npos);
  // Unreachable: everything; back (same daemon): the faulted device stays Unhealthy.
  EXPECT_TRUE(tracker.Observe(StatusOr<observe::DaemonStatus>(FailureError("gone"))));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({false, false}));
  EXPECT_FALSE(tracker.reachable());
  EXPECT_TRUE(tracker.Observe(Answer(spec, 400, {3, 1})));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({true, false}));
  // A restarted daemon (uptime went down) is clean; its own errors count from zero.
  EXPECT_TRUE(tracker.Observe(Answer(spec, 10, {0, 0})));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({true, true}));
  EXPECT_TRUE(tracker.Observe(Answer(spec, 20, {1, 0})));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({false, true}));
  // Another instance type behind the address: nothing advertised is valid.
  EXPECT_TRUE(tracker.Observe(Answer(other, 30, {0})));
  EXPECT_EQ(tracker.healthy(), std::vector<bool>({false, false}));
  EXPECT_NE(tracker.Describe().find("trn2.3xlarge"), std::string::npos);
}

TEST(PreferredAllocation, SingleChipAndErrors) {
  const simulator::InstanceSpec* spec = *simulator::FindInstanceSpec("trn2.3xlarge");
  const Inventory inventory(observe::DescribeInstance(*spec, 1));  // 8 cores, one device
  ASSERT_EQ(inventory.Devices(Resource::kNeuronCore).size(), 8u);
  auto cores = [&](std::vector<std::string> available, std::vector<std::string> must, int n) {
    return PreferAllocation(inventory, Resource::kNeuronCore, available, must, n);
  };
  EXPECT_EQ(*cores({"7", "1", "2", "5", "6"}, {}, 2), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(*cores({"7", "1", "2", "5", "6"}, {}, 3), (std::vector<std::string>{"5", "6", "7"}));
  EXPECT_EQ(*cores({"7", "1", "2", "5", "6"}, {"7"}, 2), (std::vector<std::string>{"6", "7"}));
  EXPECT_EQ(*PreferAllocation(inventory, Resource::kNeuron, {"neuron0"}, {}, 1),
            (std::vector<std::string>{"neuron0"}));
  EXPECT_FALSE(cores({"8"}, {}, 1).ok());
  EXPECT_FALSE(cores({"1"}, {}, 2).ok());
  EXPECT_FALSE(cores({"1", "2"}, {"3"}, 2).ok());
  EXPECT_NE(cores({"1", "x"}, {}, 1).status().message().find("'x'"), std::string::npos);
}

}  // namespace
}  // namespace trnsim::device_plugin
