// Fault injection through neurond (docs/faults.md): this process's Runtime, a client of an
// in-process daemon (TRNSIM_DAEMON) with TRNSIM_FAULTS set, gets every execution fault kind's
// status and after-effect (a hang
// after its 1 s timeout, and a corrupt execution's overwritten output words) from the daemon;
// the daemon's Status counts the session's executions by status and the memory errors per
// chip; neuron-monitor's report (observe::ObserveInstance + ReportBuilder) turns them into
// execution_stats' error_summary / execution_summary and neuron_hw_counters. A new session
// without TRNSIM_FAULTS (nrt_close + nrt_init) runs cleanly on the same daemon: the faults and
// what they left behind belonged to the first session.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/env.h"
#include "proto/neurond.grpc.pb.h"
#include "runtime/runtime.h"
#include "tests/tools/neurond/runtime_client_fixture.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/neuron_monitor/report.h"
#include "tools/neurond/daemon.h"
#include "tools/observe/observe.h"
#include "tools/samples/reference/samples.h"
#include "tools/samples/sample_kernels.h"

namespace trnsim::neurond {
namespace {

using testing::RawClient;

constexpr uint64_t kTensorBytes = 128 * 128 * 2;  // bf16 [128, 128]

class FaultStatusTest : public testing::RuntimeClientTest {
 protected:
  // A 128x128 bf16 matmul (the sample generator's) loaded on `vnc`, with its tensors.
  struct Setup {
    runtime::model::Model* model = nullptr;
    runtime::TensorSet* in = nullptr;
    runtime::TensorSet* out = nullptr;
    runtime::Tensor* c = nullptr;  // the output
  };
  static Setup Prepare(int vnc) {
    Setup s;
    samples::SampleSpec spec = samples::internal::Matmul(128);
    kb::KernelBuilder k({"fault_matmul", "trn2", spec.lnc});
    EXPECT_TRUE(samples::GenerateMatmul(spec, k).ok());
    StatusOr<neff::Neff> neff = k.Build();
    EXPECT_TRUE(neff.ok()) << neff.status().ToString();
    if (!neff.ok()) return s;
    StatusOr<runtime::model::Model*> model = rt().models().Load(std::move(*neff), vnc, -1);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    if (!model.ok()) return s;
    s.model = *model;
    s.in = *rt().tensors().AllocateSet();
    s.out = *rt().tensors().AllocateSet();
    std::vector<uint16_t> ones(128 * 128, 0x3F80);  // bf16 1.0
    for (const char* name : {"a_t", "b", "c"}) {
      StatusOr<runtime::Tensor*> tensor =
          rt().tensors().Allocate(runtime::Placement::kDevice, vnc, kTensorBytes, name);
      EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
      if (!tensor.ok()) return s;
      EXPECT_TRUE(rt().tensors().Write(*tensor, ones.data(), 0, kTensorBytes).ok());
      if (std::string(name) == "c") s.c = *tensor;
      EXPECT_TRUE(
          rt().tensors().AddToSet(std::string(name) == "c" ? s.out : s.in, name, *tensor).ok());
    }
    return s;
  }
  static StatusCode Run(const Setup& s) {
    if (s.model == nullptr) return StatusCode::kFailure;
    return rt().executions().Execute(s.model, s.in, s.out, 1).code();
  }

  // The runtime's session: the one with this process's pid and the most recent id.
  static std::map<uint32_t, uint64_t> RuntimeStatuses(const v1::StatusResponse& status) {
    std::map<uint32_t, uint64_t> by_code;
    uint64_t newest = 0;
    for (const auto& session : status.sessions()) {
      if (session.client_pid() != getpid() || session.session_id() < newest) continue;
      newest = session.session_id();
      by_code.clear();
      for (const v1::StatusCount& entry : session.execution_statuses()) {
        by_code[entry.code()] = entry.count();
      }
    }
    return by_code;
  }
};

TEST_F(FaultStatusTest, TheClientsFaultsThroughTheDaemonAndNeuronMonitorCountsThem) {
  // vnc k is physical core k at LNC=1; cores 0 and 1 share HBM stack 0.
  setenv("TRNSIM_FAULTS",
         "hbm_ue:nc=0,exec=2;nc_ue:nc=2,exec=1;timeout:nc=3,exec=1;corrupt:nc=1,exec=2;"
         "hang:nc=4;repairable_hbm_ue:nc=6,exec=1;dma_abort:nc=5,exec=1;"
         "collectives:nc=7,exec=1;nq_overflow:nc=3,exec=3",
         1);
  setenv("NEURON_RT_EXEC_TIMEOUT", "1", 1);
  ASSERT_NO_FATAL_FAILURE(InitRuntime());
  Setup v0 = Prepare(0), v1 = Prepare(1), v2 = Prepare(2), v3 = Prepare(3), v4 = Prepare(4),
        v5 = Prepare(5), v6 = Prepare(6), v7 = Prepare(7);

  // corrupt: the daemon overwrites output words of the second execution, which succeeds.
  ASSERT_NE(v1.c, nullptr);
  std::vector<uint8_t> clean(kTensorBytes), corrupted(kTensorBytes);
  EXPECT_EQ(Run(v1), StatusCode::kOk);
  ASSERT_TRUE(rt().tensors().Read(v1.c, clean.data(), 0, kTensorBytes).ok());
  EXPECT_EQ(Run(v1), StatusCode::kOk);
  ASSERT_TRUE(rt().tensors().Read(v1.c, corrupted.data(), 0, kTensorBytes).ok());
  int changed_words = 0;
  for (size_t i = 0; i < kTensorBytes; i += 4) {
    if (std::memcmp(&clean[i], &corrupted[i], 4) == 0) continue;
    ++changed_words;
    EXPECT_EQ(std::vector<uint8_t>(corrupted.begin() + i, corrupted.begin() + i + 4),
              std::vector<uint8_t>(4, 0xFF));
  }
  EXPECT_GE(changed_words, 1);
  EXPECT_LE(changed_words, 4);

  EXPECT_EQ(Run(v0), StatusCode::kOk);
  EXPECT_EQ(Run(v0), StatusCode::kExecHwErrHbmUe);  // injected
  EXPECT_EQ(Run(v0), StatusCode::kExecHwErrHbmUe);  // the poisoned stack
  EXPECT_EQ(Run(v2), StatusCode::kExecHwErrNcUe);   // injected
  EXPECT_EQ(Run(v2), StatusCode::kExecHwErrNcUe);   // the dead core
  EXPECT_EQ(Run(v3), StatusCode::kTimeout);         // injected, transient
  EXPECT_EQ(Run(v3), StatusCode::kOk);
  EXPECT_EQ(Run(v3), StatusCode::kExecSwNqOverflow);  // injected, transient
  EXPECT_EQ(Run(v3), StatusCode::kOk);
  EXPECT_EQ(Run(v5), StatusCode::kExecHwErrDmaAbort);  // injected
  EXPECT_EQ(Run(v5), StatusCode::kExecHwErrDmaAbort);  // the aborted engine's core
  EXPECT_EQ(Run(v7), StatusCode::kExecHwErrCollectives);  // injected, transient
  EXPECT_EQ(Run(v7), StatusCode::kOk);
  // hang: the daemon holds the execution for the client's timeout (1 s), then times it out.
  EXPECT_EQ(Run(v4), StatusCode::kTimeout);
  EXPECT_EQ(Run(v6), StatusCode::kExecHwErrRepairableHbmUe);

  v1::StatusResponse status = DaemonStatus();
  const std::map<uint32_t, uint64_t> want = {{0, 6},    {5, 2},    {1200, 1}, {1201, 2},
                                             {1202, 2}, {1203, 2}, {1204, 1}, {1205, 1}};
  EXPECT_EQ(RuntimeStatuses(status), want);
  ASSERT_EQ(status.chip_errors_size(), 1);
  EXPECT_EQ(status.chip_errors(0).mem_ecc_uncorrected(), 1u);  // faults injected, not refusals
  EXPECT_EQ(status.chip_errors(0).sram_ecc_uncorrected(), 1u);
  EXPECT_EQ(status.chip_errors(0).mem_ecc_repairable_uncorrected(), 1u);

  // neuron-monitor's report of the same.
  StatusOr<observe::InstanceView> view = observe::ObserveInstance(Environment::FromMap(
      {{"TRNSIM_DAEMON", daemon_->address()}, {"NEURON_LOGICAL_NC_CONFIG", "1"}}));
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  neuron_monitor::ReportBuilder builder;
  nlohmann::ordered_json report;
  builder.Collect(*view, {"execution_stats"}, std::to_string(getpid()), {"neuron_hw_counters"},
                  std::chrono::steady_clock::now(), &report);
  ASSERT_EQ(report["neuron_runtime_data"].size(), 1u) << report.dump();
  const nlohmann::ordered_json& stats =
      report["neuron_runtime_data"][0]["report"]["execution_stats"];
  EXPECT_EQ(stats["execution_summary"]["completed"], 6) << stats.dump();  // corrupt's too
  EXPECT_EQ(stats["execution_summary"]["timed_out"], 2);
  EXPECT_EQ(stats["execution_summary"]["completed_with_err"], 9);
  EXPECT_EQ(stats["error_summary"]["hardware"], 8);  // 1200..1203, 1205
  EXPECT_EQ(stats["error_summary"]["runtime"], 1);   // 1204
  EXPECT_EQ(stats["error_summary"]["transient"], 2);
  EXPECT_EQ(stats["error_summary"]["generic"], 0);
  const nlohmann::ordered_json& device =
      report["system_data"]["neuron_hw_counters"]["neuron_devices"][0];
  EXPECT_EQ(device["mem_ecc_uncorrected"], 2) << device.dump();  // hbm_ue + repairable
  EXPECT_EQ(device["sram_ecc_uncorrected"], 1);

  // A new session without faults: the poisoned stack and dead core were the old session's.
  rt().Close();
  unsetenv("TRNSIM_FAULTS");
  ASSERT_NO_FATAL_FAILURE(InitRuntime());
  Setup again0 = Prepare(0), again2 = Prepare(2);
  EXPECT_EQ(Run(again0), StatusCode::kOk);
  EXPECT_EQ(Run(again0), StatusCode::kOk);
  EXPECT_EQ(Run(again2), StatusCode::kOk);
  status = DaemonStatus();
  const std::map<uint32_t, uint64_t> all_ok = {{0, 3}};
  EXPECT_EQ(RuntimeStatuses(status), all_ok);
  EXPECT_EQ(status.chip_errors(0).mem_ecc_uncorrected(), 1u);  // counted since daemon start
}

TEST_F(FaultStatusTest, ASpecWithLogicalCoresIsRefusedAtHello) {
  RawClient client(daemon_->address());
  v1::HelloRequest request;
  request.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  request.set_faults("hbm_ue:nc=0");  // a logical core: the client must translate it
  v1::HelloResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(client.stub().Hello(&context, request, &response).ok());
  EXPECT_EQ(response.status().code(), uint32_t(StatusCode::kInvalid));
  EXPECT_NE(response.status().message().find("nc=0 is a logical core"), std::string::npos)
      << response.status().message();
  EXPECT_TRUE(response.session_key().empty());
}

}  // namespace
}  // namespace trnsim::neurond
