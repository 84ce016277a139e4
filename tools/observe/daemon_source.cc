#include "tools/observe/daemon_source.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>

#include "driver/remote/connection.h"
#include "proto/neurond.grpc.pb.h"

namespace trnsim::observe {
namespace {

namespace v1 = trnsim::neurond::v1;

static_assert(kRecentExecutions == v1::RECENT_EXECUTIONS,
              "instance_view.h and proto/neurond.proto disagree on the recent executions kept");

constexpr char kSessionKeyMetadata[] = "trnsim-session-key";

std::string CategoryName(int category) {
  switch (category) {
    case v1::MEMORY_CATEGORY_TENSOR:
      return "tensors";
    case v1::MEMORY_CATEGORY_CONSTANT:
      return "constants";
    case v1::MEMORY_CATEGORY_SCRATCHPAD:
      return "model_shared_scratchpad";
    case v1::MEMORY_CATEGORY_CODE:
      return "model_code";
    case v1::MEMORY_CATEGORY_MISC:
      return "runtime_memory";
    default:
      return "uncategorized";
  }
}

// One line for a failed call: what the daemon or the transport said, and a hint for the
// common cases.
Status CallError(const std::string& address, const char* rpc, const grpc::Status& status) {
  const std::string prefix = "neurond at " + address + ": " + rpc + " failed: ";
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return FailureError("neurond at " + address + " is unreachable (" + status.error_message() +
                          "); is the daemon running, with TLS "
                          "(TRNSIM_TLS_CA) if it was started with --tls-cert?");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status(StatusCode::kTimeout, prefix + "no answer before the deadline");
    case grpc::StatusCode::UNAUTHENTICATED:
      return InvalidError(prefix + "refused (" + status.error_message() + "); check TRNSIM_TOKEN");
    default:
      return FailureError(prefix + status.error_message());
  }
}

std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds deadline,
                                             const std::string& key) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline);
  if (!key.empty()) context->AddMetadata(kSessionKeyMetadata, key);
  return context;
}

}  // namespace

StatusOr<DaemonStatus> ReadDaemonStatus(const driver::DeviceOptions& connection,
                                        std::chrono::milliseconds deadline) {
  const std::string& address = connection.address;
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel,
                          driver::remote::OpenDaemonChannel(connection));
  auto stub = v1::Neurond::NewStub(channel);

  v1::HelloRequest hello;
  hello.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  hello.set_client_pid(static_cast<int64_t>(getpid()));
  hello.set_client_command(driver::remote::ClientCommandLine());
  hello.set_token(connection.token);
  v1::HelloResponse welcome;
  grpc::Status rpc = stub->Hello(Context(deadline, "").get(), hello, &welcome);
  if (!rpc.ok()) return CallError(address, "Hello", rpc);
  if (welcome.status().code() != 0) {
    return Status(static_cast<StatusCode>(welcome.status().code()),
                  "neurond at " + address + ": " + welcome.status().message());
  }

  v1::StatusResponse status;
  rpc = stub->Status(Context(deadline, welcome.session_key()).get(), v1::StatusRequest(), &status);
  // Goodbye whatever Status said: the session must not outlive this call.
  v1::GoodbyeResponse bye;
  (void)stub->Goodbye(Context(deadline, welcome.session_key()).get(), v1::GoodbyeRequest(), &bye);
  if (!rpc.ok()) return CallError(address, "Status", rpc);
  if (status.status().code() != 0) {
    return Status(static_cast<StatusCode>(status.status().code()),
                  "neurond at " + address + ": Status: " + status.status().message());
  }

  DaemonStatus result;
  StatusOr<const simulator::InstanceSpec*> spec =
      simulator::FindInstanceSpec(status.instance_type());
  if (!spec.ok()) {
    return InvalidError("neurond at " + address + " emulates " + spec.status().message());
  }
  result.instance = *spec;
  const int cores = (*spec)->PhysicalCores();
  const int hbm_stacks = (*spec)->chip->hbm_stacks;
  std::map<uint64_t, std::vector<int>> cores_of;
  for (const v1::CoreStatus& core : status.cores()) {
    if (core.owner_session_id() != 0 && core.physical_core() >= 0 && core.physical_core() < cores) {
      cores_of[core.owner_session_id()].push_back(core.physical_core());
    }
    if (core.physical_core() >= 0 && core.physical_core() < cores) {
      CoreView view;
      view.physical_core = core.physical_core();
      view.owner_session_id = core.owner_session_id();
      view.executions = core.executions();
      view.busy_ps = core.busy_ps();
      view.busy_wall_ns = core.busy_wall_ns();
      view.flops = core.flops();
      result.cores.push_back(view);
    }
  }
  std::sort(result.cores.begin(), result.cores.end(),
            [](const CoreView& a, const CoreView& b) { return a.physical_core < b.physical_core; });
  for (const v1::SessionStatus& session : status.sessions()) {
    ProcessView process;
    process.session_id = session.session_id();
    process.pid = session.client_pid();
    process.command = session.client_command();
    process.runtime_version = session.runtime_version();
    process.is_observer = session.session_id() == welcome.session_id();
    process.physical_cores = cores_of[session.session_id()];
    std::sort(process.physical_cores.begin(), process.physical_cores.end());
    for (const v1::MemoryUsage& usage : session.memory()) {
      // A daemon of this instance type never reports another chip; skip what cannot be shown.
      if (usage.chip() < 0 || usage.chip() >= (*spec)->chip_count || usage.hbm() < 0 ||
          usage.hbm() >= hbm_stacks) {
        continue;
      }
      process.memory.push_back({usage.chip(), usage.hbm(), CategoryName(usage.category()),
                                usage.bytes(), usage.model_id()});
    }
    for (const v1::LoadedModel& loaded : session.models()) {
      if (loaded.model_id() == 0) continue;  // a daemon never reports one; nothing to name it by
      ModelView model;
      model.model_id = loaded.model_id();
      model.name = loaded.name();
      model.uuid = loaded.uuid();
      model.device = loaded.chip();
      for (int core : loaded.physical_core()) {
        if (core >= 0 && core < cores) model.physical_cores.push_back(core);
      }
      std::sort(model.physical_cores.begin(), model.physical_cores.end());
      model.is_running = loaded.is_running();
      process.models.push_back(std::move(model));
    }
    std::sort(process.models.begin(), process.models.end(),
              [](const ModelView& a, const ModelView& b) { return a.model_id < b.model_id; });
    const int samples = session.recent_executions_size();
    for (int i = std::max(0, samples - kRecentExecutions); i < samples; ++i) {
      const v1::ExecutionSample& sample = session.recent_executions(i);
      process.recent_executions.push_back(
          {sample.finished_ms(), sample.wall_ns(), sample.simulated_ps(), sample.ok()});
    }
    process.loaded_programs = session.loaded_programs();
    process.executions = session.executions();
    process.failed_executions = session.failed_executions();
    for (const v1::StatusCount& entry : session.execution_statuses()) {
      process.execution_statuses[entry.code()] += entry.count();
    }
    process.executions_running = session.executions_running();
    result.processes.push_back(std::move(process));
  }
  std::sort(result.processes.begin(), result.processes.end(),
            [](const ProcessView& a, const ProcessView& b) { return a.session_id < b.session_id; });
  result.uptime_ms = status.uptime_ms();
  for (const v1::ChipErrorCounters& chip : status.chip_errors()) {
    if (chip.chip() < 0 || chip.chip() >= (*spec)->chip_count) continue;
    result.device_errors.push_back({chip.chip(), chip.mem_ecc_uncorrected(),
                                    chip.mem_ecc_repairable_uncorrected(),
                                    chip.sram_ecc_uncorrected()});
  }
  std::sort(result.device_errors.begin(), result.device_errors.end(),
            [](const DeviceErrorCounters& a, const DeviceErrorCounters& b) {
              return a.device < b.device;
            });
  return result;
}

}  // namespace trnsim::observe
