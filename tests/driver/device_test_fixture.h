// The Device contract suites (device_test.cc, device_execute_test.cc) are value-parameterised
// by the back end's name and run against each of kDeviceBackends, as PoCL reruns its suite
// against its remote driver:
//   sim     driver::OpenDevice in this process;
//   remote  driver::OpenDevice against a neurond started in this process for the test (its own
//           temporary socket, no token), whose sim device serves it.
// TestDevice opens one device of a named back end (device_fault_test.cc runs one scenario on
// both and compares); its sim_device() is the SimDevice that runs the executions either way
// (the remote's is the daemon's), for tests that observe it. A new back end gets the suites by
// adding its name to kDeviceBackends (and, when it needs a server, a branch to
// TestDevice::Open).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"
#include "driver/sim/sim_device.h"
#include "simulator/isa/encoding.h"
#include "simulator/spec/instance_spec.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"

namespace trnsim::driver::test {

inline const std::vector<std::string> kDeviceBackends = {"sim", "remote"};

inline std::vector<uint8_t> Pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed + i * 7);
  return bytes;
}

// The stream of `text` encoded for Trainium2.
inline std::vector<uint8_t> Encode(const std::string& text) {
  StatusOr<isa::Program> program = isa::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  if (!program.ok()) return {};
  StatusOr<std::vector<uint8_t>> stream = isa::EncodeStream(
      program->engine, program->instructions, isa::LimitsFor(simulator::Trainium2Spec()));
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  return stream.ok() ? *stream : std::vector<uint8_t>{};
}

inline ProgramImage SpImage(const std::string& text) {
  ProgramImage image;
  image.streams[static_cast<size_t>(isa::Engine::kSp)] = Encode(text);
  return image;
}

// One device of a named back end, and the daemon behind it for remote.
class TestDevice {
 public:
  ~TestDevice() { Close(); }

  // Opens a fresh device of `backend` on `instance` (remote: on a fresh daemon) with `faults`
  // (docs/faults.md; rules naming physical cores).
  void Open(const std::string& backend, const char* instance, faults::FaultSpec faults = {}) {
    Close();
    const simulator::InstanceSpec* spec = *simulator::FindInstanceSpec(instance);
    DeviceOptions options;
    options.backend = backend;
    options.instance = spec;
    options.faults = std::move(faults);
    if (backend == "remote") {
      neurond::DaemonOptions daemon;
      daemon.listen = "unix:" + (dir_.path() / "neurond.sock").string();
      daemon.instance = spec;
      StatusOr<std::unique_ptr<neurond::Daemon>> started = neurond::Daemon::Start(daemon);
      ASSERT_TRUE(started.ok()) << started.status().ToString();
      daemon_ = std::move(*started);
      options.address = daemon_->address();
    }
    StatusOr<std::unique_ptr<Device>> device = OpenDevice(options);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    device_ = std::move(device).value();
  }

  void Close() {
    device_.reset();  // says Goodbye before the daemon goes
    daemon_.reset();
  }

  Device& device() { return *device_; }
  // The SimDevice that runs the executions: the device itself (sim) or the daemon's (remote).
  sim::SimDevice& sim_device() {
    Device& device = daemon_ != nullptr ? daemon_->device() : *device_;
    return dynamic_cast<sim::SimDevice&>(device);
  }

 private:
  neurond::testing::TempDir dir_;
  std::unique_ptr<neurond::Daemon> daemon_;  // remote only
  std::unique_ptr<Device> device_;
};

// A suite over kDeviceBackends: device_ is a trn2.3xlarge of the parameter's back end.
class DeviceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Open("trn2.3xlarge"); }
  void TearDown() override { test_device_.Close(); }

  // Reopens device_ on `instance` with `faults`.
  void Open(const char* instance, faults::FaultSpec faults = {}) {
    device_ = nullptr;
    test_device_.Open(GetParam(), instance, std::move(faults));
    if (!::testing::Test::HasFatalFailure()) device_ = &test_device_.device();
  }

  AllocationInfo MustAllocate(uint64_t size, int hbm = 0, int chip = 0) {
    AllocationRequest request;
    request.chip = chip;
    request.hbm = hbm;
    request.size_bytes = size;
    StatusOr<AllocationInfo> info = device_->Allocate(request);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? *info : AllocationInfo{};
  }

  std::vector<uint8_t> ReadAll(MemoryHandle handle, uint64_t offset, uint64_t size) {
    std::vector<uint8_t> out(size, 0xEE);
    Status status = device_->Read(handle, offset, out.data(), size);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out;
  }

  TestDevice test_device_;
  Device* device_ = nullptr;
};

// "sim", "remote" as test name suffixes.
inline std::string BackendName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace trnsim::driver::test
