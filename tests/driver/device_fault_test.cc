// Fault injection is one mechanism (docs/faults.md, "One mechanism both ways"): the same
// TRNSIM_FAULTS spec and the same executions give the same outcome in-process (sim) and through
// neurond (remote) — which execution each rule hits, the after-effects, a hang that keeps its
// core held (a second execution on it waits for the hang to end), the words `corrupt` overwrites,
// and every status. The scenario runs on both back ends; each outcome is checked against the
// expected one and against the other's. Nothing is timed: the hung execution holds its core
// until the test has seen the second one wait for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "driver/device.h"
#include "driver/faults/fault_spec.h"
#include "tests/driver/device_test_fixture.h"

namespace trnsim::driver {
namespace {

constexpr uint32_t kSrcVar = 1;
constexpr uint32_t kDstVar = 2;
constexpr uint64_t kBytes = 64;  // 16 fp32
constexpr int kHungCore = 4;

constexpr char kCopyProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";

// Physical cores. Core 0: a transient timeout on its 2nd execution. Core 2: an HBM error on its
// 1st, which poisons the stack it shares with core 3. Core 4: a hang on its 1st (the core stays
// dead). Core 5: its 2nd execution's outputs are corrupted. Core 6: no rule.
constexpr char kSpec[] =
    "timeout:core=0,exec=2;hbm_ue:core=2,exec=1;hang:core=4,exec=1;corrupt:core=5,exec=2";

struct Outcome {
  // Status code of each execution, in the order the scenario runs them.
  std::vector<StatusCode> statuses;
  // The execution on the hung core, started while the hang held it, waited for the core.
  bool waited_for_hung_core = false;
  // The output of core 5's corrupted execution.
  std::vector<uint8_t> corrupted_output;
};

// One execution of kCopyProgram on one core, with buffers of its own.
class CopyJob {
 public:
  CopyJob(Device& device, ProgramHandle program, int core) : device_(device) {
    AllocationRequest request;
    request.size_bytes = kBytes;
    request.owner_core = core;
    src_ = device.Allocate(request).value().handle;
    dst_ = device.Allocate(request).value().handle;
    std::vector<uint8_t> pattern = test::Pattern(kBytes, static_cast<uint8_t>(core));
    EXPECT_TRUE(device.Write(src_, 0, pattern.data(), kBytes).ok());
    execution_.program = program;
    execution_.physical_core = core;
    execution_.vars = {VarBinding{kSrcVar, src_, 0, kBytes},
                       VarBinding{kDstVar, dst_, 0, kBytes, /*output=*/true}};
  }

  StatusCode Run(std::chrono::milliseconds host_timeout = std::chrono::milliseconds(60'000)) {
    ExecutionRequestOptions options;
    options.host_timeout = host_timeout;
    return device_.Execute(std::span<const CoreExecution>(&execution_, 1), options).status().code();
  }

  std::vector<uint8_t> Output() {
    std::vector<uint8_t> bytes(kBytes);
    EXPECT_TRUE(device_.Read(dst_, 0, bytes.data(), kBytes).ok());
    return bytes;
  }

 private:
  Device& device_;
  MemoryHandle src_ = kInvalidMemoryHandle;
  MemoryHandle dst_ = kInvalidMemoryHandle;
  CoreExecution execution_;
};

// Signals between the test and the observer of the SimDevice that runs the executions.
struct HangWatch {
  std::mutex mutex;
  std::condition_variable changed;
  bool hanging = false;         // the hung execution holds its core and is about to wait
  bool second_waiting = false;  // another execution found the hung core busy
};

Outcome RunScenario(test::TestDevice& test_device, const std::string& backend) {
  Outcome outcome;
  StatusOr<faults::FaultSpec> spec = faults::ParseFaultSpec(kSpec);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) return outcome;
  test_device.Open(backend, "trn2.3xlarge", *spec);
  if (::testing::Test::HasFatalFailure()) return outcome;
  Device& device = test_device.device();

  // The hung execution waits in the observer until the test has seen the second one find its
  // core busy (or gives up after a minute, and the test fails): order, not timing.
  HangWatch watch;
  test_device.sim_device().SetObserverForTesting(
      [&watch](sim::SimDevice::Event event, std::span<const int> cores) {
        if (cores.size() != 1 || cores[0] != kHungCore) return;
        std::unique_lock lock(watch.mutex);
        if (event == sim::SimDevice::Event::kHanging && !watch.hanging) {
          watch.hanging = true;
          watch.changed.notify_all();
          watch.changed.wait_for(lock, std::chrono::minutes(1),
                                 [&watch] { return watch.second_waiting; });
        } else if (event == sim::SimDevice::Event::kWaitingForCores && watch.hanging) {
          watch.second_waiting = true;
          watch.changed.notify_all();
        }
      });

  EXPECT_TRUE(device.AcquireCores(0, 8).ok());
  StatusOr<ProgramHandle> program = device.LoadProgram(test::SpImage(kCopyProgram));
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  if (!program.ok()) return outcome;
  CopyJob core0(device, *program, 0), core2(device, *program, 2), core3(device, *program, 3),
      core4(device, *program, kHungCore), core5(device, *program, 5), core6(device, *program, 6);

  for (int i = 0; i < 3; ++i) outcome.statuses.push_back(core0.Run());
  outcome.statuses.push_back(core2.Run());
  outcome.statuses.push_back(core2.Run());
  outcome.statuses.push_back(core3.Run());
  outcome.statuses.push_back(core5.Run());
  outcome.statuses.push_back(core5.Run());
  outcome.corrupted_output = core5.Output();

  // The hang: a short timeout to wait out once the second execution has queued behind it.
  StatusCode hung = StatusCode::kOk;
  std::thread hang([&] { hung = core4.Run(std::chrono::milliseconds(50)); });
  {
    std::unique_lock lock(watch.mutex);
    EXPECT_TRUE(
        watch.changed.wait_for(lock, std::chrono::minutes(1), [&watch] { return watch.hanging; }));
  }
  // The core is dead now: the second execution fails too, at once (no timeout: no wait).
  const StatusCode after = core4.Run(std::chrono::milliseconds(0));
  hang.join();
  {
    std::lock_guard lock(watch.mutex);
    outcome.waited_for_hung_core = watch.second_waiting;
  }
  outcome.statuses.push_back(hung);
  outcome.statuses.push_back(after);
  outcome.statuses.push_back(core6.Run());
  test_device.Close();
  return outcome;
}

TEST(DeviceFaultTest, OneSpecGivesTheSameOutcomeInProcessAndThroughNeurond) {
  test::TestDevice in_process, through_daemon;
  const Outcome sim = RunScenario(in_process, "sim");
  const Outcome remote = RunScenario(through_daemon, "remote");

  const std::vector<StatusCode> want = {
      StatusCode::kOk,
      StatusCode::kTimeout,
      StatusCode::kOk,  // core 0
      StatusCode::kExecHwErrHbmUe,
      StatusCode::kExecHwErrHbmUe,  // core 2: new, left
      StatusCode::kExecHwErrHbmUe,  // core 3: same stack
      StatusCode::kOk,
      StatusCode::kOk,  // core 5: corrupt
      StatusCode::kTimeout,
      StatusCode::kTimeout,  // core 4: hang, dead
      StatusCode::kOk,       // core 6
  };
  for (const auto& [name, outcome] : {std::pair{"sim", &sim}, std::pair{"remote", &remote}}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(outcome->statuses, want);
    EXPECT_TRUE(outcome->waited_for_hung_core) << "the hang did not hold its core";
    ASSERT_EQ(outcome->corrupted_output.size(), kBytes);
    int corrupted_words = 0;
    const std::vector<uint8_t> clean = test::Pattern(kBytes, 5);
    for (size_t i = 0; i < kBytes; i += 4) {
      if (std::equal(clean.begin() + i, clean.begin() + i + 4,
                     outcome->corrupted_output.begin() + i)) {
        continue;
      }
      ++corrupted_words;
      EXPECT_EQ(std::vector<uint8_t>(outcome->corrupted_output.begin() + i,
                                     outcome->corrupted_output.begin() + i + 4),
                std::vector<uint8_t>(4, 0xFF));
    }
    EXPECT_GE(corrupted_words, 1);
    EXPECT_LE(corrupted_words, 4);
  }
  EXPECT_EQ(sim.statuses, remote.statuses);
  EXPECT_EQ(sim.corrupted_output, remote.corrupted_output);  // the same words overwritten
}

}  // namespace
}  // namespace trnsim::driver
