// Executor: what runs leave to the profiling captures and to the system trace (executor.h,
// "Captures").
#include <filesystem>
#include <span>
#include <system_error>

#include "common/log.h"
#include "runtime/execution/executor.h"

namespace trnsim::runtime::execution {

profiling::ProfileHeader Executor::HeaderFor(const model::Model& model) const {
  profiling::ProfileHeader header;
  header.model_name = model.name();
  header.vnc = model.vnc();
  header.chip = chip_.name;
  header.instance = options_.instance_name;
  return header;
}

Status Executor::StartProfile(const model::Model& model, const std::string& filename) {
  return profiles_.Start(&model, filename, HeaderFor(model));
}

Status Executor::StopProfile(const std::string& filename) { return profiles_.Stop(filename); }

void Executor::SetInspectCapture(InspectDeviceCapture capture) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  inspect_ = std::move(capture);
  inspect_selector_ = profiling::InspectDeviceSelector(
      inspect_.dir.empty() ? profiling::DeviceProfileMode::kDisabled : inspect_.mode,
      inspect_.num_warmup);
}

bool Executor::inspect_capturing() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return !inspect_.dir.empty() && inspect_.any();
}

Executor::CaptureWants Executor::WantsCapture(const model::Model& model) {
  CaptureWants wants;
  wants.model_profile = profiles_.Wants(&model);
  wants.core_session = core_sessions_.Wants(model.vnc());
  wants.continuous = continuous_.running();
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (!inspect_.dir.empty()) {
    wants.inspected = inspect_selector_.NextExecution(model.id());
    wants.inspect_on_fail = inspect_.on_fail;
    if (wants.inspected || wants.inspect_on_fail) {
      wants.inspect_dir = inspect_.dir;
      wants.inspect_session_id = inspect_.session_id;
    }
  }
  return wants;
}

void Executor::Capture(const model::Model& model, const CaptureWants& wants,
                       profiling::ProfiledExecution execution) {
  if (wants.inspected || (wants.inspect_on_fail && !execution.status.ok())) {
    // Inspect capture never fails the execution: a profile that cannot be written is logged.
    std::error_code error;
    std::filesystem::create_directories(wants.inspect_dir, error);
    uint64_t session = 0;
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      session = ++inspect_sessions_;
    }
    const std::string path = wants.inspect_dir + "/profile_nc_" + std::to_string(model.vnc()) +
                             "_session_" + std::to_string(session) + ".ntff";
    profiling::ProfileHeader header = HeaderFor(model);
    header.session_id = wants.inspect_session_id;
    Status written = profiling::WriteProfile(path, header, std::span(&execution, 1));
    if (!written.ok()) {
      LogLine(LogLevel::kWarn, LogComponent::kNrt, "inspect", written.ToString());
    }
  }
  // The last taker gets the execution itself; the others a copy.
  const int takers = int(wants.model_profile) + int(wants.core_session) + int(wants.continuous);
  int taken = 0;
  auto hand = [&](auto&& take) {
    if (++taken == takers) {
      take(std::move(execution));
    } else {
      take(profiling::ProfiledExecution(execution));
    }
  };
  if (wants.model_profile) {
    hand([&](profiling::ProfiledExecution x) { profiles_.Add(&model, std::move(x)); });
  }
  if (wants.core_session) {
    hand([&](profiling::ProfiledExecution x) { core_sessions_.Add(model.vnc(), std::move(x)); });
  }
  if (wants.continuous) {
    hand([&](profiling::ProfiledExecution x) {
      continuous_.Keep(model.vnc(), HeaderFor(model), std::move(x));
    });
  }
}

void Executor::TraceRun(const model::Model& model, std::span<const driver::CoreExecution> cores,
                        const StatusOr<driver::ExecutionResult>& result,
                        const RunOutcome& outcome) {
  profiling::SysTraceRecorder* trace = options_.sys_trace;
  if (trace == nullptr || !trace->capturing()) return;
  const uint32_t nc = uint32_t(model.vnc());
  const int64_t worker_gid =
      model.collective_rank() ? int64_t(model.collective_rank()->rank) : int64_t{-1};
  if (result.ok() && result->cores.size() == cores.size()) {
    profiling::DeviceRun run;
    run.nc_idx = nc;
    run.exec_id = outcome.exec_id;
    run.model_name = model.name();
    run.model_id = model.id();
    run.worker_gid = worker_gid;
    for (size_t i = 0; i < cores.size(); ++i) {
      run.cores.push_back({uint32_t(cores[i].physical_core), result->cores[i].device_start_ps,
                           result->cores[i].duration_ps});
    }
    run.duration_ps = result->duration_ps;
    run.sync_cpu_ns = outcome.sync_cpu_ns;
    run.numerical_error = outcome.numerical_error;
    profiling::RecordDeviceEvents(*trace, run);
  }
  if (trace->Wants(profiling::SysTraceType::kRuntimeExecute, nc)) {
    profiling::SysTraceData start;
    start.model_name = model.name();
    start.exec_id = outcome.exec_id;
    start.worker_gid = worker_gid;
    profiling::SysTraceData stop;
    stop.exec_id = outcome.exec_id;
    stop.status = StatusCodeName(outcome.status.code());
    stop.worker_gid = worker_gid;
    trace->RecordSpan(profiling::SysTraceType::kRuntimeExecute, nc, outcome.run_started_ns,
                      profiling::SysTraceRecorder::NowNs(), std::move(start), std::move(stop));
  }
}

}  // namespace trnsim::runtime::execution
