// tools/observe: InstanceView from the spec tables, and from an in-process neurond with a
// remote back end client holding cores and memory (its session's cores, memory categories,
// devices, pid; the observer's own session marked), the emulated instance id, and the errors
// of an unreachable daemon, a refused token and bad settings.
#include "tools/observe/observe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "driver/device.h"
#include "simulator/spec/instance_spec.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"
#include "tools/observe/daemon_source.h"
#include "simulator/spec/instance_id.h"

namespace trnsim::observe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const simulator::InstanceSpec& Spec(const char* name) {
  return **simulator::FindInstanceSpec(name);
}

TEST(InstanceIdTest, StableDistinctAndShapedLikeEc2) {
  std::set<std::string> ids;
  for (const simulator::InstanceSpec& spec : simulator::InstanceSpecs()) {
    const std::string id = simulator::EmulatedInstanceId(spec.type_name);
    EXPECT_THAT(id, MatchesRegex("i-0[0-9a-f]{16}"));
    EXPECT_EQ(id, simulator::EmulatedInstanceId(spec.type_name));
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), simulator::InstanceSpecs().size());
}

TEST(DescribeInstanceTest, CoresMemoryAndLinksPerDevice) {
  for (const simulator::InstanceSpec& spec : simulator::InstanceSpecs()) {
    for (int lnc : {1, 2}) {
      InstanceView view = DescribeInstance(spec, lnc);
      ASSERT_EQ(static_cast<int>(view.devices.size()), spec.chip_count);
      EXPECT_EQ(view.lnc, lnc);
      EXPECT_TRUE(view.processes.empty());
      int next_id = 0;
      for (const DeviceView& device : view.devices) {
        EXPECT_EQ(static_cast<int>(device.logical_core_ids.size()),
                  spec.chip->physical_cores / lnc);
        for (int id : device.logical_core_ids) EXPECT_EQ(id, next_id++);
        EXPECT_EQ(device.memory_bytes, spec.chip->HbmBytes());
        EXPECT_FALSE(device.pci_bdf.empty());
      }
      EXPECT_EQ(next_id, spec.PhysicalCores() / lnc);
      EXPECT_EQ(view.HasLinks(), spec.chip_count > 1);
    }
  }
}

TEST(DevicePlacementTest, TorusLinksAreSymmetricAndAwsOrdered) {
  const simulator::InstanceSpec& spec = Spec("trn2.48xlarge");
  EXPECT_THAT(simulator::ConnectedDevices(spec, 0), ElementsAre(12, 3, 4, 1));
  EXPECT_THAT(simulator::ConnectedDevices(spec, 15), ElementsAre(11, 14, 3, 12));
  std::set<std::string> bdfs;
  for (int d = 0; d < 16; ++d) {
    std::vector<int> links = simulator::ConnectedDevices(spec, d);
    ASSERT_EQ(links.size(), 4u);
    // north's south and west's east are this device.
    EXPECT_EQ(simulator::ConnectedDevices(spec, links[0])[2], d);
    EXPECT_EQ(simulator::ConnectedDevices(spec, links[1])[3], d);
    bdfs.insert(spec.devices[size_t(d)].pci_bdf);
  }
  EXPECT_EQ(bdfs.size(), 16u);
  EXPECT_TRUE(simulator::ConnectedDevices(Spec("trn2.3xlarge"), 0).empty());
  EXPECT_EQ(simulator::ConnectedDevices(Spec("trn3.48xlarge"), 5).size(), 15u);
}

TEST(ObserveInstanceTest, ConfiguredInstanceWithoutDaemon) {
  StatusOr<InstanceView> view = ObserveInstance(Environment::FromMap(
      {{"TRNSIM_INSTANCE", "trn2.3xlarge"}, {"NEURON_LOGICAL_NC_CONFIG", "1"}}));
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_EQ(view->instance_type, "trn2.3xlarge");
  EXPECT_EQ(view->lnc, 1);
  EXPECT_TRUE(view->daemon_address.empty());
  EXPECT_TRUE(view->processes.empty());

  StatusOr<InstanceView> bad = ObserveInstance(Environment::FromMap({{"TRNSIM_INSTANCE", "x"}}));
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
}

class ObserveDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    neurond::DaemonOptions options;
    options.listen = "unix:" + (dir_.path() / "neurond.sock").string();
    options.instance = &Spec("trn2.48xlarge");
    options.service.token = "secret";
    auto daemon = neurond::Daemon::Start(options);
    ASSERT_TRUE(daemon.ok()) << daemon.status().message();
    daemon_ = std::move(*daemon);
  }

  std::map<std::string, std::string> Env() const {
    return {{"TRNSIM_DAEMON", daemon_->address()}, {"TRNSIM_TOKEN", "secret"}};
  }

  neurond::testing::TempDir dir_;
  std::unique_ptr<neurond::Daemon> daemon_;
};

TEST_F(ObserveDaemonTest, ClientCoresMemoryAndTheObserversOwnSession) {
  driver::DeviceOptions options;
  options.backend = "remote";
  options.address = daemon_->address();
  options.token = "secret";
  StatusOr<std::unique_ptr<driver::Device>> client = driver::OpenDevice(options);
  ASSERT_TRUE(client.ok()) << client.status().message();
  ASSERT_TRUE((*client)->AcquireCores(18, 2).ok());  // physical 18-19: device 2
  driver::AllocationRequest request;
  request.chip = 2;
  request.hbm = 1;
  request.size_bytes = 1 << 20;
  request.owner_core = 18;
  request.category = driver::MemoryCategory::kConstant;
  ASSERT_TRUE((*client)->Allocate(request).ok());

  std::map<std::string, std::string> env = Env();
  env["NEURON_LOGICAL_NC_CONFIG"] = "1";
  StatusOr<InstanceView> view = ObserveInstance(Environment::FromMap(env));
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_EQ(view->instance_type, "trn2.48xlarge");
  EXPECT_EQ(view->lnc, 1);
  EXPECT_EQ(view->daemon_address, daemon_->address());
  ASSERT_EQ(view->processes.size(), 2u);
  const ProcessView& runtime = view->processes[0];
  EXPECT_EQ(runtime.pid, getpid());
  EXPECT_TRUE(runtime.IsRuntimeUser());
  EXPECT_FALSE(runtime.is_observer);
  EXPECT_THAT(runtime.physical_cores, ElementsAre(18, 19));
  ASSERT_EQ(runtime.memory.size(), 1u);
  EXPECT_EQ(runtime.memory[0].device, 2);
  EXPECT_EQ(runtime.memory[0].hbm, 1);
  EXPECT_EQ(runtime.memory[0].category, "constants");
  EXPECT_GE(runtime.memory[0].bytes, uint64_t{1} << 20);
  EXPECT_THAT(view->DevicesOf(runtime), ElementsAre(2));
  ASSERT_EQ(view->cores.size(), 128u);
  EXPECT_EQ(view->cores[18].physical_core, 18);
  EXPECT_EQ(view->cores[18].owner_session_id, runtime.session_id);
  EXPECT_EQ(view->cores[20].owner_session_id, 0u);
  const ProcessView& observer = view->processes[1];
  EXPECT_TRUE(observer.is_observer);
  EXPECT_FALSE(observer.IsRuntimeUser());
  EXPECT_TRUE(observer.physical_cores.empty());
  EXPECT_TRUE(view->DevicesOf(observer).empty());

  // The observer said Goodbye: the next snapshot sees only the client and its own new session.
  StatusOr<InstanceView> again = ObserveInstance(Environment::FromMap(env));
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->processes.size(), 2u);
  EXPECT_NE(again->processes[1].session_id, observer.session_id);
}

TEST_F(ObserveDaemonTest, RefusedTokenIsOneLine) {
  std::map<std::string, std::string> env = Env();
  env["TRNSIM_TOKEN"] = "wrong";
  StatusOr<InstanceView> view = ObserveInstance(Environment::FromMap(env));
  EXPECT_EQ(view.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(view.status().message(), HasSubstr(daemon_->address()));
  EXPECT_THAT(view.status().message(), HasSubstr("TRNSIM_TOKEN"));
}

TEST(ObserveUnreachableTest, NamesTheAddress) {
  neurond::testing::TempDir dir;
  const std::string address = "unix:" + (dir.path() / "nobody.sock").string();
  StatusOr<InstanceView> view = ObserveInstance(Environment::FromMap({{"TRNSIM_DAEMON", address}}));
  EXPECT_EQ(view.status().code(), StatusCode::kFailure);
  EXPECT_THAT(view.status().message(), HasSubstr(address));
  EXPECT_THAT(view.status().message(), HasSubstr("unreachable"));
  EXPECT_EQ(view.status().message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace trnsim::observe
