// Concurrency of the sim back end (driver/sim/sim_device.h, "Concurrency"): executions on
// distinct cores run at once, an execution on a busy core waits, memory calls never wait for an
// execution, Free of bound memory is deferred to the execution's end and ReleaseCores waits.
// Nothing here is timed: the test observer (SimDevice::SetObserverForTesting) holds an
// execution at its start until the test lets it go, so every claim is a fact of ordering.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "driver/device.h"
#include "driver/sim/sim_device.h"
#include "simulator/isa/encoding.h"
#include "simulator/isa/text.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::driver::sim {
namespace {

using Event = SimDevice::Event;

// 16 fp32 (64 bytes) from var1 to var2.
constexpr char kCopyProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";
constexpr uint64_t kBytes = 64;

// A one-shot signal between threads.
class Signal {
 public:
  void Set() { promise_.set_value(); }
  void Wait() { future_.wait(); }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
};

class SimDeviceConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DeviceOptions options;
    options.instance = *simulator::FindInstanceSpec("trn2.3xlarge");
    StatusOr<std::unique_ptr<Device>> device = OpenSimDevice(options);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    device_.reset(static_cast<SimDevice*>(device->release()));
    ASSERT_TRUE(device_->AcquireCores(0, 4).ok());
    isa::Program parsed = isa::ParseProgram(kCopyProgram).value();
    ProgramImage image;
    image.streams[static_cast<size_t>(isa::Engine::kSp)] =
        isa::EncodeStream(parsed.engine, parsed.instructions,
                          isa::LimitsFor(*options.instance->chip))
            .value();
    program_ = device_->LoadProgram(image).value();
    src_ = Allocate(kBytes);
    for (uint64_t i = 0; i < kBytes; ++i) pattern_.push_back(static_cast<uint8_t>(i * 5 + 1));
    ASSERT_TRUE(device_->Write(src_, 0, pattern_.data(), kBytes).ok());
  }

  // Holds the first execution on `held_core` at its start until the test lets it go (let_go_); reports the other
  // events to `on_event`.
  void HoldFirstExecutionOn(int held_core,
                            std::function<void(Event, std::span<const int>)> on_event = {}) {
    device_->SetObserverForTesting([this, held_core, on_event](Event event,
                                                               std::span<const int> cores) {
      if (event == Event::kRunning && cores.size() == 1 && cores[0] == held_core &&
          !held_.exchange(true)) {
        running_.Set();
        let_go_.Wait();
        return;
      }
      if (on_event) on_event(event, cores);
    });
  }

  MemoryHandle Allocate(uint64_t size) {
    AllocationRequest request;
    request.size_bytes = size;
    StatusOr<AllocationInfo> info = device_->Allocate(request);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? info->handle : kInvalidMemoryHandle;
  }

  CoreExecution CopyOn(int core, MemoryHandle dst) const {
    CoreExecution c;
    c.program = program_;
    c.physical_core = core;
    c.vars = {VarBinding{1, src_, 0, kBytes}, VarBinding{2, dst, 0, kBytes}};
    return c;
  }

  // Runs `cores` on a new thread; the result lands in `*result`.
  std::thread Start(std::vector<CoreExecution> cores, Status* result) {
    return std::thread([this, cores = std::move(cores), result] {
      *result = device_->Execute(cores, {}).status();
    });
  }

  std::vector<uint8_t> ReadAll(MemoryHandle handle) {
    std::vector<uint8_t> bytes(kBytes);
    EXPECT_TRUE(device_->Read(handle, 0, bytes.data(), kBytes).ok());
    return bytes;
  }

  uint64_t HbmUsed() { return device_->GetHbmUsage(0, 0).value().used_bytes; }

  std::unique_ptr<SimDevice> device_;
  ProgramHandle program_ = kInvalidProgramHandle;
  MemoryHandle src_ = kInvalidMemoryHandle;
  std::vector<uint8_t> pattern_;
  std::atomic<bool> held_{false};
  Signal running_;  // the held execution has its cores
  Signal let_go_;   // the test lets it run
};

TEST_F(SimDeviceConcurrencyTest, DistinctCoresRunAtOnceAndASharedCoreWaits) {
  Signal overlap_waits;
  std::atomic<bool> let_go{false};
  std::atomic<bool> overlap_ran_after_let_go{false};
  HoldFirstExecutionOn(0, [&](Event event, std::span<const int> cores) {
    if (event == Event::kWaitingForCores) overlap_waits.Set();
    if (event == Event::kRunning && cores.size() == 2) overlap_ran_after_let_go = let_go.load();
  });
  const MemoryHandle dst0 = Allocate(kBytes), dst1 = Allocate(kBytes);
  const MemoryHandle dst2 = Allocate(kBytes), dst3 = Allocate(kBytes);
  Status held_result, overlap_result;
  std::thread held = Start({CopyOn(0, dst0)}, &held_result);
  running_.Wait();

  // Core 1 runs to its end while the execution on core 0 is still held at its start.
  std::vector<CoreExecution> other = {CopyOn(1, dst1)};
  ASSERT_TRUE(device_->Execute(other, {}).ok());
  EXPECT_EQ(ReadAll(dst1), pattern_);
  EXPECT_EQ(ReadAll(dst0), std::vector<uint8_t>(kBytes, 0));

  // Cores 2 and 0: waits for core 0, and runs only after the held execution was let go.
  std::thread overlap = Start({CopyOn(2, dst2), CopyOn(0, dst3)}, &overlap_result);
  overlap_waits.Wait();
  EXPECT_EQ(ReadAll(dst2), std::vector<uint8_t>(kBytes, 0));
  let_go = true;
  let_go_.Set();
  held.join();
  overlap.join();
  EXPECT_TRUE(held_result.ok()) << held_result.ToString();
  EXPECT_TRUE(overlap_result.ok()) << overlap_result.ToString();
  EXPECT_TRUE(overlap_ran_after_let_go);
  EXPECT_EQ(ReadAll(dst0), pattern_);
  EXPECT_EQ(ReadAll(dst2), pattern_);
  EXPECT_EQ(ReadAll(dst3), pattern_);
}

TEST_F(SimDeviceConcurrencyTest, MemoryCallsDoNotWaitAndFreeOfBoundMemoryIsDeferred) {
  HoldFirstExecutionOn(0);
  const MemoryHandle dst = Allocate(kBytes);
  Status result;
  std::thread held = Start({CopyOn(0, dst)}, &result);
  running_.Wait();

  // Unrelated memory comes and goes while the execution is held.
  const uint64_t used = HbmUsed();
  const MemoryHandle other = Allocate(4096);
  ASSERT_NE(other, kInvalidMemoryHandle);
  EXPECT_TRUE(device_->Free(other).ok());
  // The bound source and the program go at once for the caller, not for the execution.
  const uint64_t src_bytes = device_->Describe(src_).value().size_bytes;
  EXPECT_TRUE(device_->Free(src_).ok());
  EXPECT_EQ(device_->Describe(src_).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(device_->Free(src_).code(), StatusCode::kInvalidHandle);
  uint8_t byte = 0;
  EXPECT_EQ(device_->Read(src_, 0, &byte, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_TRUE(device_->UnloadProgram(program_).ok());
  EXPECT_EQ(HbmUsed(), used);  // still reserved: the execution holds it

  let_go_.Set();
  held.join();
  ASSERT_TRUE(result.ok()) << result.ToString();
  EXPECT_EQ(ReadAll(dst), pattern_);  // the source was intact for the execution
  EXPECT_EQ(HbmUsed(), used - src_bytes);  // returned once the execution ended
}

TEST_F(SimDeviceConcurrencyTest, ReleaseCoresWaitsForTheExecutionOnThem) {
  Signal release_waits;
  HoldFirstExecutionOn(0, [&](Event event, std::span<const int>) {
    if (event == Event::kReleaseWaiting) release_waits.Set();
  });
  const MemoryHandle dst = Allocate(kBytes);
  Status result;
  std::thread held = Start({CopyOn(0, dst)}, &result);
  running_.Wait();
  std::atomic<bool> released{false};
  std::thread release([&] {
    device_->ReleaseCores(0, 2);
    released = true;
  });
  release_waits.Wait();
  EXPECT_FALSE(released);
  let_go_.Set();
  held.join();
  release.join();
  ASSERT_TRUE(result.ok()) << result.ToString();  // its core state outlived the release
  EXPECT_EQ(ReadAll(dst), pattern_);
  std::vector<CoreExecution> again = {CopyOn(0, dst)};
  EXPECT_EQ(device_->Execute(again, {}).status().code(), StatusCode::kFailure);
}

// Many executions on four cores from four threads while a fifth allocates and frees: every
// execution succeeds with the right bytes (run under the sanitizers for data races).
TEST_F(SimDeviceConcurrencyTest, ManyThreadsOnDistinctCoresAndAnAllocator) {
  constexpr int kRounds = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int core = 0; core < 4; ++core) {
    threads.emplace_back([&, core] {
      const MemoryHandle dst = Allocate(kBytes);
      for (int round = 0; round < kRounds; ++round) {
        std::vector<CoreExecution> one = {CopyOn(core, dst)};
        if (!device_->Execute(one, {}).ok() || ReadAll(dst) != pattern_) ++failures;
        if (device_->Fill(dst, 0, 0, kBytes).code() != StatusCode::kOk) ++failures;
      }
    });
  }
  threads.emplace_back([&] {
    for (int round = 0; round < 4 * kRounds; ++round) {
      const MemoryHandle scratch = Allocate(4096);
      if (!device_->Free(scratch).ok()) ++failures;
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace trnsim::driver::sim
