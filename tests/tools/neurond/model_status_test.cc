// neurond's Status as neuron-top and neuron-monitor read it, end to end: an in-process daemon,
// this process's Runtime as its client over the remote back end (TRNSIM_DAEMON) loading and
// executing a 128x128 bf16 matmul built by the sample generator (plus a scratch buffer), and a raw
// client (and observe::ObserveInstance) reading Status. Checks the per-model data the runtime sends
// (model id, name, uuid; memory per model) and the per-core and per-session execution data the
// daemon measures, against what the runtime itself got back from each execution.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "common/env.h"
#include "proto/neurond.grpc.pb.h"
#include "runtime/runtime.h"
#include "tests/tools/neurond/runtime_client_fixture.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/neurond/daemon.h"
#include "tools/observe/observe.h"
#include "tools/samples/reference/samples.h"
#include "tools/samples/sample_kernels.h"

namespace trnsim::neurond {
namespace {

constexpr char kModelName[] = "status_matmul";
constexpr std::array<uint8_t, 16> kUuid = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                           0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
constexpr char kUuidHex[] = "0123456789abcdeffedcba9876543210";
constexpr uint64_t kScratchBytes = 64 * 1024;

class ModelStatusTest : public testing::RuntimeClientTest {
 protected:
  void SetUp() override {
    RuntimeClientTest::SetUp();
    if (!HasFatalFailure()) InitRuntime();
  }

  // The matmul sample at 128, named kModelName with uuid kUuid.
  static neff::Neff MatmulNeff() {
    samples::SampleSpec spec = samples::internal::Matmul(128);
    kb::KernelBuilder k({kModelName, "trn2", spec.lnc});
    k.header().uuid = kUuid;
    Status made = samples::GenerateMatmul(spec, k);
    EXPECT_TRUE(made.ok()) << made.ToString();
    // The sample keeps everything in its tensors and SBUF; a scratch buffer of its own gives
    // the model device memory (the kind the daemon must attribute to it).
    EXPECT_TRUE(k.AddScratch("model_scratch", kScratchBytes).ok());
    StatusOr<neff::Neff> neff = k.Build();
    EXPECT_TRUE(neff.ok()) << neff.status().ToString();
    return neff.ok() ? std::move(*neff) : neff::Neff{};
  }

  // The runtime's session: this process's (the raw client says it is pid 4242).
  static const v1::SessionStatus* RuntimeSession(const v1::StatusResponse& status) {
    const v1::SessionStatus* found = nullptr;
    for (const auto& session : status.sessions()) {
      if (session.client_pid() == getpid()) {
        EXPECT_EQ(found, nullptr) << "two runtime sessions";
        found = &session;
      }
    }
    return found;
  }
};

TEST_F(ModelStatusTest, ModelsMemoryExecutionsAndCoreCountersOfARuntimeClient) {
  const neff::Neff neff = MatmulNeff();
  StatusOr<runtime::model::Model*> model = rt().models().Load(neff, 0, -1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  StatusOr<runtime::ModelInfo> info = rt().models().Info(*model);
  ASSERT_TRUE(info.ok());
  ASSERT_NE(info->model_id, 0u);

  constexpr uint64_t kBytes = 128 * 128 * 2;
  runtime::TensorSet* in = *rt().tensors().AllocateSet();
  runtime::TensorSet* out = *rt().tensors().AllocateSet();
  std::vector<uint16_t> ones(128 * 128, 0x3F80);  // bf16 1.0
  for (const char* name : {"a_t", "b", "c"}) {
    StatusOr<runtime::Tensor*> tensor =
        rt().tensors().Allocate(runtime::Placement::kDevice, 0, kBytes, name);
    ASSERT_TRUE(tensor.ok()) << tensor.status().ToString();
    ASSERT_TRUE(rt().tensors().Write(*tensor, ones.data(), 0, kBytes).ok());
    ASSERT_TRUE(rt().tensors().AddToSet(std::string(name) == "c" ? out : in, name, *tensor).ok());
  }

  // Two executions; what the runtime got back from each.
  constexpr int kExecutions = 2;
  std::vector<uint64_t> durations_ps;
  uint64_t flops = 0;  // of one execution: the same program on the same inputs each time
  for (int i = 0; i < kExecutions; ++i) {
    Status ran = rt().executions().Execute(*model, in, out, 1);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    StatusOr<runtime::execution::ExecutionRecord> record = rt().executions().Last(*model);
    ASSERT_TRUE(record.ok());
    durations_ps.push_back(record->last.duration_ps);
    ASSERT_EQ(record->last.cores.size(), 1u);  // LNC 1: one physical core
    uint64_t engine_flops = 0;
    for (const auto& engine : record->last.cores[0].engines) engine_flops += engine.flops;
    if (i > 0) {
      EXPECT_EQ(engine_flops, flops);
    }
    flops = engine_flops;
  }
  EXPECT_GT(flops, 0u) << "a matmul does arithmetic";

  v1::StatusResponse status = DaemonStatus();
  const v1::SessionStatus* session = RuntimeSession(status);
  ASSERT_NE(session, nullptr);

  // The model: its id, name, uuid and core.
  ASSERT_EQ(session->models_size(), 1);
  const v1::LoadedModel& loaded = session->models(0);
  EXPECT_EQ(loaded.model_id(), info->model_id);
  EXPECT_EQ(loaded.name(), kModelName);
  EXPECT_TRUE(std::regex_match(loaded.uuid(), std::regex("[0-9a-f]{32}"))) << loaded.uuid();
  EXPECT_EQ(loaded.uuid(), kUuidHex);
  EXPECT_FALSE(loaded.is_running());
  ASSERT_EQ(loaded.physical_core_size(), 1);
  const int core = loaded.physical_core(0);
  EXPECT_EQ(loaded.chip(), 0);
  bool held = false;
  for (const auto& c : status.cores())
    held |= c.physical_core() == core && c.owner_session_id() == session->session_id();
  EXPECT_TRUE(held) << "core " << core << " is not the runtime's";

  // Memory: the model's own, tagged with its id; tensors and the scratchpad with none; the
  // entries add up to everything the session holds (it is the only one holding memory).
  uint64_t model_bytes = 0, total_bytes = 0;
  for (const auto& memory : session->memory()) {
    EXPECT_TRUE(memory.model_id() == 0 || memory.model_id() == info->model_id) << memory.model_id();
    if (memory.model_id() == info->model_id) model_bytes += memory.bytes();
    total_bytes += memory.bytes();
  }
  EXPECT_GE(model_bytes, kScratchBytes);
  EXPECT_GE(total_bytes - model_bytes, 3 * kBytes);  // the three tensors at least
  // Its code (runtime/model/model_code.h), computed from the NEFF: the engine streams plus 16
  // bytes per DMA descriptor, rounded up to the driver's 64-byte granule.
  uint64_t code_bytes = 0;
  for (const neff::EngineProgram& engine : neff.subgraphs.at(0).engines) {
    code_bytes += engine.instructions.size() + 16 * engine.dma.size();
  }
  ASSERT_GT(code_bytes, 0u);
  code_bytes = (code_bytes + 63) / 64 * 64;
  uint64_t model_code_bytes = 0;
  for (const auto& memory : session->memory()) {
    if (memory.category() == v1::MEMORY_CATEGORY_CODE) {
      EXPECT_EQ(memory.model_id(), info->model_id);
      model_code_bytes += memory.bytes();
    }
  }
  EXPECT_EQ(model_code_bytes, code_bytes);
  uint64_t hbm_used = 0;
  for (const auto& hbm : status.hbm()) hbm_used += hbm.used_bytes();
  EXPECT_EQ(total_bytes, hbm_used);

  // Executions: one sample each, with the simulated time the runtime saw.
  EXPECT_EQ(session->executions(), static_cast<uint64_t>(kExecutions));
  ASSERT_EQ(session->recent_executions_size(), kExecutions);
  for (int i = 0; i < kExecutions; ++i) {
    const v1::ExecutionSample& sample = session->recent_executions(i);
    EXPECT_TRUE(sample.ok());
    EXPECT_GT(sample.wall_ns(), 0u);
    EXPECT_EQ(sample.simulated_ps(), durations_ps[i]);
    EXPECT_LE(sample.finished_ms(), status.uptime_ms());
  }

  // The core's counters: exactly the engine FLOPs of both executions; host busy time within
  // the daemon's uptime. Every other core did nothing.
  const uint64_t uptime_ns = status.uptime_ms() * 1'000'000;
  for (const auto& c : status.cores()) {
    if (c.physical_core() == core) {
      EXPECT_EQ(c.flops(), kExecutions * flops);
      EXPECT_EQ(c.executions(), static_cast<uint64_t>(kExecutions));
      EXPECT_GT(c.busy_wall_ns(), 0u);
      EXPECT_LE(c.busy_wall_ns(), uptime_ns);
    } else {
      EXPECT_EQ(c.flops(), 0u) << "core " << c.physical_core();
      EXPECT_EQ(c.busy_wall_ns(), 0u) << "core " << c.physical_core();
    }
  }

  // The same through observe (neuron-top's and neuron-monitor's source).
  StatusOr<observe::InstanceView> view = observe::ObserveInstance(Environment::FromMap(
      {{"TRNSIM_DAEMON", daemon_->address()}, {"NEURON_LOGICAL_NC_CONFIG", "1"}}));
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_GT(view->daemon_uptime_ms, 0u);
  const observe::ProcessView* process = nullptr;
  for (const auto& p : view->processes) {
    if (p.pid == getpid() && !p.is_observer) process = &p;
  }
  ASSERT_NE(process, nullptr);
  ASSERT_EQ(process->models.size(), 1u);
  EXPECT_EQ(process->models[0].model_id, info->model_id);
  EXPECT_EQ(process->models[0].name, kModelName);
  EXPECT_EQ(process->models[0].uuid, kUuidHex);
  EXPECT_EQ(process->models[0].physical_cores, std::vector<int>{core});
  uint64_t view_model_bytes = 0;
  for (const auto& memory : process->memory) {
    if (memory.model_id == info->model_id) view_model_bytes += memory.bytes;
  }
  EXPECT_EQ(view_model_bytes, model_bytes);
  uint64_t view_code_bytes = 0;
  for (const auto& memory : process->memory) {
    if (memory.category == "model_code" && memory.model_id == info->model_id) {
      view_code_bytes += memory.bytes;
    }
  }
  EXPECT_EQ(view_code_bytes, code_bytes);
  ASSERT_EQ(process->recent_executions.size(), static_cast<size_t>(kExecutions));
  EXPECT_EQ(process->recent_executions[1].simulated_ps, durations_ps[1]);
  EXPECT_GT(process->recent_executions[1].wall_ns, 0u);
  ASSERT_GT(view->cores.size(), static_cast<size_t>(core));
  EXPECT_EQ(view->cores[core].physical_core, core);
  EXPECT_EQ(view->cores[core].flops, kExecutions * flops);
  EXPECT_GT(view->cores[core].busy_wall_ns, 0u);

  // Unloaded: the model and its memory go; the tensors stay, attributed to no model.
  ASSERT_TRUE(rt().models().Unload(*model).ok());
  status = DaemonStatus();
  session = RuntimeSession(status);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->models_size(), 0);
  EXPECT_EQ(session->loaded_programs(), 0u);
  ASSERT_GT(session->memory_size(), 0);
  for (const auto& memory : session->memory()) EXPECT_EQ(memory.model_id(), 0u);
  EXPECT_EQ(session->recent_executions_size(), kExecutions);  // history outlives the model
}

}  // namespace
}  // namespace trnsim::neurond
