// trnsim-device-plugin end to end, with this test playing kubelet (fake_kubelet.h): a real
// neurond (trn2.48xlarge, a token file) and the plugin binary as child processes, the plugin
// pointed at the daemon and at a temporary kubelet directory where the test serves kubelet's
// Registration service. Each test checks one part of the contract (tools/device_plugin/
// README.md): registration of the three resources; ListAndWatch against `neuron-ls -j` run on
// the same daemon; GetPreferredAllocation's contiguity and torus neighbours; Allocate's env and
// mounts; refused requests; health streamed after an injected nc_ue fault, a killed daemon
// and a restarted one; registration again after kubelet restarts; a clean SIGTERM.
// Every wait has a deadline; nothing sleeps as an assertion.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "simulator/spec/instance_spec.h"
#include "tests/tools/device_plugin/fake_kubelet.h"
#include "tests/tools/device_plugin/processes.h"
#include "tests/tools/neurond/child_process.h"
#include "tools/observe/daemon_source.h"

namespace trnsim::device_plugin::testing {
namespace {

using std::chrono::seconds;

constexpr char kToken[] = "device-plugin-test-token";
const std::vector<std::string> kEndpoints = {"trnsim-neuron.sock", "trnsim-neurondevice.sock",
                                             "trnsim-neuroncore.sock"};

class DevicePluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    kubelet_dir_ = dir_.path() + "/kubelet";
    ASSERT_EQ(mkdir(kubelet_dir_.c_str(), 0700), 0);
    log_ = dir_.path() + "/children.log";
    token_file_ = dir_.path() + "/token";
    std::ofstream(token_file_) << kToken << "\n";
    daemon_socket_ = dir_.path() + "/neurond.sock";
    kubelet_ = std::make_unique<FakeKubelet>(kubelet_dir_);
    ASSERT_TRUE(kubelet_->Start());
    ASSERT_NO_FATAL_FAILURE(StartDaemon());
    plugin_ = Spawn({DEVICE_PLUGIN_PATH, "--daemon", "unix:" + daemon_socket_, "--token-file",
                     token_file_, "--kubelet-dir", kubelet_dir_, "--poll-ms", "100"},
                    Env(), log_);
    ASSERT_GT(plugin_, 0);
    registrations_ = kubelet_->WaitForRegistrations(3, seconds(15));
    ASSERT_EQ(registrations_.size(), 3u) << Log();
  }
  void TearDown() override {
    if (plugin_ > 0) {
      kill(plugin_, SIGTERM);
      EXPECT_EQ(neurond::testing::WaitExit(plugin_, seconds(10)), 0)
          << "SIGTERM must stop the plugin cleanly";
      for (const std::string& endpoint : kEndpoints) {
        EXPECT_FALSE(std::filesystem::exists(kubelet_dir_ + "/" + endpoint)) << endpoint;
      }
    }
    Kill(daemon_);
    if (HasFailure()) std::fprintf(stderr, "--- children's output ---\n%s", Log().c_str());
  }

  // What the plugin, neuron-ls and the clients share: LNC 2 (trn2's default, said outright).
  std::map<std::string, std::string> Env() const {
    return {{"NEURON_LOGICAL_NC_CONFIG", "2"}, {"NEURON_RT_LOG_LEVEL", "INFO"}};
  }
  std::map<std::string, std::string> ClientEnv() const {
    std::map<std::string, std::string> env = Env();
    env["TRNSIM_DAEMON"] = "unix:" + daemon_socket_;
    env["TRNSIM_TOKEN_FILE"] = token_file_;
    return env;
  }

  void StartDaemon() {
    daemon_ = Spawn({NEUROND_PATH, "--listen", "unix:" + daemon_socket_, "--instance",
                     "trn2.48xlarge", "--token-file", token_file_},
                    {}, log_);
    ASSERT_GT(daemon_, 0);
    driver::DeviceOptions connection;
    connection.address = "unix:" + daemon_socket_;
    connection.token = kToken;
    const auto end = std::chrono::steady_clock::now() + seconds(15);
    while (!observe::ReadDaemonStatus(connection, std::chrono::milliseconds(500)).ok()) {
      ASSERT_LT(std::chrono::steady_clock::now(), end) << "neurond did not come up\n" << Log();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::string Log() const {
    std::ifstream file(log_);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }

  std::unique_ptr<v1beta1::DevicePlugin::Stub> Dial(const std::string& endpoint) {
    return kubelet_->Dial(endpoint);
  }

  TempDir dir_;
  std::string kubelet_dir_, log_, token_file_, daemon_socket_;
  std::unique_ptr<FakeKubelet> kubelet_;
  std::vector<v1beta1::RegisterRequest> registrations_;
  pid_t daemon_ = -1, plugin_ = -1;
};

// (id, health, NUMA nodes) of each device, in order.
using Listing = std::vector<std::tuple<std::string, std::string, std::vector<int64_t>>>;
Listing Flatten(const v1beta1::ListAndWatchResponse& list) {
  Listing out;
  for (const v1beta1::Device& device : list.devices()) {
    std::vector<int64_t> nodes;
    for (const v1beta1::NUMANode& node : device.topology().nodes()) nodes.push_back(node.id());
    out.emplace_back(device.id(), device.health(), nodes);
  }
  return out;
}

// The health of every device in `list`, by ID.
std::map<std::string, std::string> Health(const v1beta1::ListAndWatchResponse& list) {
  std::map<std::string, std::string> health;
  for (const v1beta1::Device& device : list.devices()) health[device.id()] = device.health();
  return health;
}

TEST_F(DevicePluginTest, RegistersEachResourceAndListsTheDevicesNeuronLsLists) {
  std::map<std::string, std::string> endpoint_of;
  for (const v1beta1::RegisterRequest& request : registrations_) {
    EXPECT_EQ(request.version(), "v1beta1");
    EXPECT_TRUE(request.options().get_preferred_allocation_available());
    EXPECT_FALSE(request.options().pre_start_required());
    endpoint_of[request.resource_name()] = request.endpoint();
  }
  const std::map<std::string, std::string> want = {
      {"aws.amazon.com/neuron", "trnsim-neuron.sock"},
      {"aws.amazon.com/neurondevice", "trnsim-neurondevice.sock"},
      {"aws.amazon.com/neuroncore", "trnsim-neuroncore.sock"}};
  EXPECT_EQ(endpoint_of, want);

  // What neuron-ls lists for the same daemon, as each resource's expected list.
  std::string json;
  ASSERT_EQ(RunCapture({NEURON_LS_PATH, "-j"}, ClientEnv(), seconds(15), &json), 0) << json;
  const nlohmann::json devices = nlohmann::json::parse(json);
  ASSERT_EQ(devices.size(), 16u);
  Listing whole, cores;
  for (const nlohmann::json& device : devices) {
    const int numa = std::stoi(device["numa_node"].get<std::string>());
    std::vector<int64_t> nodes;
    if (numa >= 0) nodes.push_back(numa);
    whole.emplace_back("neuron" + std::to_string(device["neuron_device"].get<int>()), "Healthy",
                       nodes);
    for (int core : device["neuroncore_ids"]) {
      cores.emplace_back(std::to_string(core), "Healthy", nodes);
    }
  }
  ASSERT_EQ(cores.size(), 64u);  // trn2.48xlarge at LNC=2

  for (const std::string& endpoint : kEndpoints) {
    auto stub = Dial(endpoint);
    grpc::ClientContext context;
    v1beta1::DevicePluginOptions options;
    ASSERT_TRUE(stub->GetDevicePluginOptions(&context, v1beta1::Empty(), &options).ok());
    EXPECT_TRUE(options.get_preferred_allocation_available());
    EXPECT_FALSE(options.pre_start_required());
    ListWatcher watcher(*stub);
    v1beta1::ListAndWatchResponse list;
    ASSERT_TRUE(watcher.WaitFor([](const auto&) { return true; }, seconds(10), &list)) << endpoint;
    EXPECT_EQ(Flatten(list), endpoint == "trnsim-neuroncore.sock" ? cores : whole) << endpoint;
  }
}

std::vector<std::string> Prefer(v1beta1::DevicePlugin::Stub& stub,
                                const std::vector<std::string>& available,
                                const std::vector<std::string>& must, int size,
                                grpc::Status* status = nullptr) {
  v1beta1::PreferredAllocationRequest request;
  auto* container = request.add_container_requests();
  for (const std::string& id : available) container->add_available_deviceids(id);
  for (const std::string& id : must) container->add_must_include_deviceids(id);
  container->set_allocation_size(size);
  grpc::ClientContext context;
  v1beta1::PreferredAllocationResponse response;
  grpc::Status result = stub.GetPreferredAllocation(&context, request, &response);
  if (status != nullptr) *status = result;
  if (!result.ok() || response.container_responses_size() != 1) return {};
  const auto& ids = response.container_responses(0).deviceids();
  return {ids.begin(), ids.end()};
}

std::vector<std::string> Strings(std::initializer_list<int> cores) {
  std::vector<std::string> out;
  for (int core : cores) out.push_back(std::to_string(core));
  return out;
}

TEST_F(DevicePluginTest, PrefersContiguousCoresAndLinkedDevices) {
  auto cores = Dial("trnsim-neuroncore.sock");
  // A fragmented set: the run 4-7 (one device) rather than the first four.
  const std::vector<std::string> fragmented = Strings({1, 2, 4, 5, 6, 7, 9, 12, 13, 14, 15});
  EXPECT_EQ(Prefer(*cores, fragmented, {}, 4), Strings({4, 5, 6, 7}));
  EXPECT_EQ(Prefer(*cores, fragmented, {"13"}, 4), Strings({12, 13, 14, 15}));  // must_include
  EXPECT_EQ(Prefer(*cores, fragmented, {"9"}, 2), Strings({7, 9}));  // no run holds 9: nearest
  // A run inside one device beats a run across two; across neighbours beats none at all.
  EXPECT_EQ(Prefer(*cores, Strings({6, 7, 8, 9, 20, 21, 22, 23}), {}, 4),
            Strings({20, 21, 22, 23}));
  EXPECT_EQ(Prefer(*cores, Strings({2, 3, 4, 5, 30}), {}, 4), Strings({2, 3, 4, 5}));
  // No run of 4: the longest run grown by the nearest cores (0 and 8 tie: the lower).
  EXPECT_EQ(Prefer(*cores, Strings({0, 3, 4, 5, 8, 40}), {}, 4), Strings({0, 3, 4, 5}));

  auto devices = Dial("trnsim-neurondevice.sock");
  // Torus neighbours: 7 and 11 are linked (and 8 and 11, by the wrap-around); 0, 2, 5 have no
  // available neighbour. The lowest IDs (0, 2) would not be linked.
  const std::vector<std::string> two =
      Prefer(*devices, {"neuron0", "neuron2", "neuron5", "neuron7", "neuron8", "neuron11"}, {}, 2);
  ASSERT_EQ(two, (std::vector<std::string>{"neuron7", "neuron11"}));
  const simulator::InstanceSpec* spec = *simulator::FindInstanceSpec("trn2.48xlarge");
  const std::vector<int> links = simulator::ConnectedDevices(*spec, 7);
  EXPECT_NE(std::find(links.begin(), links.end(), 11), links.end());
  EXPECT_EQ(
      Prefer(*devices, {"neuron0", "neuron2", "neuron5", "neuron8", "neuron11"}, {"neuron8"}, 2),
      (std::vector<std::string>{"neuron8", "neuron11"}));  // must_include, its neighbour
  EXPECT_EQ(Prefer(*devices, {"neuron3", "neuron0", "neuron1", "neuron4"}, {"neuron0"}, 3),
            (std::vector<std::string>{"neuron0", "neuron1", "neuron3"}));  // both of 0's links

  // Two containers in one request: one answer each, in order.
  v1beta1::PreferredAllocationRequest request;
  for (int c = 0; c < 2; ++c) {
    auto* container = request.add_container_requests();
    for (const std::string& id : Strings({0, 1, 2, 3, 4, 5, 6, 7})) {
      container->add_available_deviceids(id);
    }
    container->set_allocation_size(c + 1);
  }
  grpc::ClientContext context;
  v1beta1::PreferredAllocationResponse response;
  ASSERT_TRUE(cores->GetPreferredAllocation(&context, request, &response).ok());
  ASSERT_EQ(response.container_responses_size(), 2);
  EXPECT_EQ(response.container_responses(1).deviceids_size(), 2);
}

v1beta1::ContainerAllocateResponse AllocateOne(v1beta1::DevicePlugin::Stub& stub,
                                               const std::vector<std::string>& ids) {
  v1beta1::AllocateRequest request;
  auto* container = request.add_container_requests();
  for (const std::string& id : ids) container->add_devices_ids(id);
  grpc::ClientContext context;
  v1beta1::AllocateResponse response;
  grpc::Status status = stub.Allocate(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.container_responses_size(), 1);
  return response.container_responses_size() == 1 ? response.container_responses(0)
                                                  : v1beta1::ContainerAllocateResponse();
}

TEST_F(DevicePluginTest, AllocateGivesTheCoresTheDaemonSocketAndTheToken) {
  ASSERT_TRUE(std::filesystem::is_socket(daemon_socket_ + ".shm"));
  auto check = [&](const v1beta1::ContainerAllocateResponse& answer, const std::string& cores) {
    const std::map<std::string, std::string> envs(answer.envs().begin(), answer.envs().end());
    const std::map<std::string, std::string> want = {
        {"NEURON_RT_VISIBLE_CORES", cores},
        {"NEURON_LOGICAL_NC_CONFIG", "2"},
        {"TRNSIM_DAEMON", "unix:/run/trnsim/neurond.sock"},
        {"TRNSIM_TOKEN_FILE", "/run/trnsim/neurond.token"}};
    EXPECT_EQ(envs, want);
    std::vector<std::tuple<std::string, std::string, bool>> mounts;
    for (const v1beta1::Mount& mount : answer.mounts()) {
      mounts.emplace_back(mount.host_path(), mount.container_path(), mount.read_only());
    }
    const std::vector<std::tuple<std::string, std::string, bool>> want_mounts = {
        {daemon_socket_, "/run/trnsim/neurond.sock", false},
        {daemon_socket_ + ".shm", "/run/trnsim/neurond.sock.shm", false},
        {token_file_, "/run/trnsim/neurond.token", true}};
    EXPECT_EQ(mounts, want_mounts);
    EXPECT_EQ(answer.devices_size(), 0);
    EXPECT_EQ(answer.annotations_size(), 0);
  };
  auto cores = Dial("trnsim-neuroncore.sock");
  check(AllocateOne(*cores, {"5", "4", "7", "6"}), "4-7");
  check(AllocateOne(*cores, {"0", "1", "2", "3", "9", "8", "10", "11"}), "0-3,8-11");
  check(AllocateOne(*cores, {"63"}), "63");
  auto devices = Dial("trnsim-neurondevice.sock");
  check(AllocateOne(*devices, {"neuron2", "neuron0"}), "0-3,8-11");
  auto neuron = Dial("trnsim-neuron.sock");
  check(AllocateOne(*neuron, {"neuron15"}), "60-63");
}

TEST_F(DevicePluginTest, RefusesWhatKubeletShouldNotSendAndKeepsServing) {
  auto cores = Dial("trnsim-neuroncore.sock");
  auto devices = Dial("trnsim-neurondevice.sock");
  auto allocate = [](v1beta1::DevicePlugin::Stub& stub, std::vector<std::vector<std::string>> c) {
    v1beta1::AllocateRequest request;
    for (const auto& ids : c) {
      auto* container = request.add_container_requests();
      for (const std::string& id : ids) container->add_devices_ids(id);
    }
    grpc::ClientContext context;
    v1beta1::AllocateResponse response;
    return stub.Allocate(&context, request, &response).error_code();
  };
  const auto kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
  EXPECT_EQ(allocate(*cores, {{"64"}}), kInvalid);       // past the last core
  EXPECT_EQ(allocate(*cores, {{"neuron0"}}), kInvalid);  // another resource's ID
  EXPECT_EQ(allocate(*cores, {{"-1"}}), kInvalid);
  EXPECT_EQ(allocate(*cores, {{"1", "1"}}), kInvalid);    // twice
  EXPECT_EQ(allocate(*cores, {{}}), kInvalid);            // a container with nothing
  EXPECT_EQ(allocate(*cores, {}), kInvalid);              // no containers
  EXPECT_EQ(allocate(*cores, {{"1"}, {"x"}}), kInvalid);  // the second container's
  EXPECT_EQ(allocate(*devices, {{"neuron16"}}), kInvalid);
  EXPECT_EQ(allocate(*devices, {{"0"}}), kInvalid);

  grpc::Status status;
  const std::vector<std::string> some = Strings({0, 1, 2, 3});
  Prefer(*cores, some, {}, 0, &status);
  EXPECT_EQ(status.error_code(), kInvalid);  // size 0
  Prefer(*cores, some, {}, 5, &status);
  EXPECT_EQ(status.error_code(), kInvalid);  // more than available
  Prefer(*cores, some, {"9"}, 2, &status);
  EXPECT_EQ(status.error_code(), kInvalid);  // must_include not available
  Prefer(*cores, some, {"0", "1", "2"}, 2, &status);
  EXPECT_EQ(status.error_code(), kInvalid);  // size below must_include
  Prefer(*cores, Strings({0, 1, 200}), {}, 2, &status);
  EXPECT_EQ(status.error_code(), kInvalid);  // unknown available ID
  Prefer(*devices, {"neuron1", "neuron1"}, {}, 1, &status);
  EXPECT_EQ(status.error_code(), kInvalid);  // duplicate

  // Still serving, and each refusal was logged as one line.
  grpc::ClientContext context;
  v1beta1::DevicePluginOptions options;
  EXPECT_TRUE(cores->GetDevicePluginOptions(&context, v1beta1::Empty(), &options).ok());
  int status_code = 0;
  EXPECT_EQ(waitpid(plugin_, &status_code, WNOHANG), 0) << "the plugin exited";
  const std::string log = Log();
  size_t refusals = 0;
  for (size_t at = log.find(" refused: "); at != std::string::npos;
       at = log.find(" refused: ", at + 1)) {
    ++refusals;
  }
  EXPECT_EQ(refusals, 15u) << log;
}

TEST_F(DevicePluginTest, StreamsAFaultedDeviceAndALostDaemonAsUnhealthy) {
  auto neuron = Dial("trnsim-neuron.sock");
  auto devices = Dial("trnsim-neurondevice.sock");
  auto cores = Dial("trnsim-neuroncore.sock");
  ListWatcher neuron_watch(*neuron), device_watch(*devices), core_watch(*cores);
  v1beta1::ListAndWatchResponse list;
  auto all = [](const char* health) {
    return [health](const v1beta1::ListAndWatchResponse& l) {
      return l.devices_size() > 0 &&
             std::all_of(l.devices().begin(), l.devices().end(),
                         [&](const v1beta1::Device& d) { return d.health() == health; });
    };
  };
  ASSERT_TRUE(core_watch.WaitFor(all("Healthy"), seconds(10), &list));

  // An nc_ue fault on physical core 20 (device 2, whose logical cores are 8-11 at LNC=2),
  // executed by a client process of the daemon at LNC=1.
  std::map<std::string, std::string> env = ClientEnv();
  env["NEURON_LOGICAL_NC_CONFIG"] = "1";
  env["NEURON_RT_VISIBLE_CORES"] = "20";
  env["TRNSIM_FAULTS"] = "nc_ue:nc=0,exec=1";
  env["NEURON_RT_LOG_LEVEL"] = "ERROR";
  std::string out;
  ASSERT_EQ(RunCapture({FAULT_CLIENT_PATH, "1202"}, env, seconds(30), &out), 0) << out;

  auto device2_only = [](const std::set<std::string>& bad) {
    return [bad](const v1beta1::ListAndWatchResponse& l) {
      for (const v1beta1::Device& d : l.devices()) {
        if ((d.health() == "Unhealthy") != (bad.count(d.id()) > 0)) return false;
      }
      return l.devices_size() > 0;
    };
  };
  EXPECT_TRUE(device_watch.WaitFor(device2_only({"neuron2"}), seconds(10), &list)) << Log();
  EXPECT_TRUE(neuron_watch.WaitFor(device2_only({"neuron2"}), seconds(10), &list));
  EXPECT_TRUE(core_watch.WaitFor(device2_only({"8", "9", "10", "11"}), seconds(10), &list));
  EXPECT_EQ(Health(list).size(), 64u);

  // The daemon gone: every device of every resource.
  Kill(daemon_);
  daemon_ = -1;
  EXPECT_TRUE(neuron_watch.WaitFor(all("Unhealthy"), seconds(10), &list));
  EXPECT_TRUE(device_watch.WaitFor(all("Unhealthy"), seconds(10), &list));
  EXPECT_TRUE(core_watch.WaitFor(all("Unhealthy"), seconds(10), &list));

  // A new daemon on the same socket: a clean instance, every device Healthy again.
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  EXPECT_TRUE(device_watch.WaitFor(all("Healthy"), seconds(10), &list)) << Log();
  EXPECT_TRUE(core_watch.WaitFor(all("Healthy"), seconds(10), &list));
}

TEST_F(DevicePluginTest, RegistersAgainWhenKubeletRestarts) {
  // kubelet restarting: its socket goes, it clears the directory, a new one serves.
  kubelet_->Stop();
  for (const std::string& endpoint : kEndpoints) {
    std::filesystem::remove(kubelet_dir_ + "/" + endpoint);
  }
  kubelet_ = std::make_unique<FakeKubelet>(kubelet_dir_);
  ASSERT_TRUE(kubelet_->Start());
  const auto again = kubelet_->WaitForRegistrations(3, seconds(15));
  ASSERT_EQ(again.size(), 3u) << Log();
  for (const std::string& endpoint : kEndpoints) {
    auto stub = Dial(endpoint);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + seconds(5));
    v1beta1::DevicePluginOptions options;
    EXPECT_TRUE(stub->GetDevicePluginOptions(&context, v1beta1::Empty(), &options).ok())
        << endpoint;
  }
}

}  // namespace
}  // namespace trnsim::device_plugin::testing
