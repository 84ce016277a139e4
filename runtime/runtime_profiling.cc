// Runtime: profiling — device profiles (per model, per core session, continuous), inspect
// sessions, nrt_trace_*, and the system trace's one recorder (docs/profiling.md).
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "common/log.h"
#include "runtime/profiling/inspect_output.h"
#include "runtime/profiling/sys_trace_json.h"
#include "runtime/runtime.h"

namespace trnsim::runtime {

// --- The system trace's owner ------------------------------------------------------------------

Runtime::SysTraceOwner Runtime::SysTraceOwnerLocked() const {
  if (inspect_.owns_sys_trace()) return SysTraceOwner::kInspect;
  if (runtime_trace_.running()) return SysTraceOwner::kTrace;
  if (sys_trace_.capturing()) return SysTraceOwner::kApi;
  return SysTraceOwner::kNone;
}

Status Runtime::CheckSysTraceFreeLocked() const {
  switch (SysTraceOwnerLocked()) {
    case SysTraceOwner::kNone:
      return Status::Ok();
    case SysTraceOwner::kApi:
      return InvalidError(
          "the system trace is being captured with nrt_sys_trace_start "
          "(nrt_sys_trace_stop frees it)");
    case SysTraceOwner::kInspect:
      return InvalidError(
          inspect_.from_environment()
              ? "the system trace is being captured for NEURON_RT_INSPECT_ENABLE (ntrace.json); "
                "set NEURON_RT_INSPECT_SYSTEM_PROFILE=0 or call nrt_inspect_stop to free it"
              : "the system trace is being captured for an inspect session (ntrace.json); "
                "nrt_inspect_stop frees it");
    case SysTraceOwner::kTrace:
      return InvalidError(
          "the system trace is being captured for nrt_trace_start "
          "(nrt_trace_stop frees it)");
  }
  return Status::Ok();
}

Status Runtime::StartSysTrace(const profiling::SysTraceConfig& config) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  if (SysTraceOwnerLocked() != SysTraceOwner::kApi)
    TRNSIM_RETURN_IF_ERROR(CheckSysTraceFreeLocked());
  return sys_trace_.Start(config, uint32_t(config_.visible_vnc_count));
}

Status Runtime::StopSysTrace() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  const SysTraceOwner owner = SysTraceOwnerLocked();
  if (owner == SysTraceOwner::kInspect || owner == SysTraceOwner::kTrace) {
    return CheckSysTraceFreeLocked();
  }
  return sys_trace_.Stop();
}

StatusOr<std::string> Runtime::FetchSysTrace(const profiling::SysTraceFetchOptions& options) {
  std::vector<profiling::SysTraceEvent> events;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
    // An inspect session's or nrt_trace's events belong to its file: the application sees no
    // capture.
    if (SysTraceOwnerLocked() == SysTraceOwner::kApi) events = sys_trace_.Drain(options);
  }
  return profiling::SysTraceEventsToJson(events);  // serialising needs no runtime state
}

// --- Per-model device profiles -------------------------------------------------------------------

Status Runtime::StartProfile(const model::Model* handle, const std::string& filename) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, models_->Pin(handle));
  return executor_->StartProfile(*model, filename);
}

Status Runtime::StopProfile(const std::string& filename) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return executor_->StopProfile(filename);
}

// --- Profile sessions ---------------------------------------------------------------------------

Status Runtime::StartProfileSession(int vnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return executor_->core_sessions().Start(vnc);
}

StatusOr<uint64_t> Runtime::StopProfileSession(int vnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return executor_->core_sessions().Stop(vnc);
}

Status Runtime::SerializeProfileSession(uint64_t session_id, const std::string& filename) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return executor_->core_sessions().Serialize(session_id, filename);
}

Status Runtime::DropProfileSession(uint64_t session_id) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return executor_->core_sessions().Drop(session_id);
}

Status Runtime::DropAllProfileSessions(int vnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  const size_t dropped = executor_->core_sessions().DropAll(vnc);
  TRNSIM_LOG(Debug, Nrt) << "dropped " << dropped << " profile session(s) of logical core " << vnc;
  return Status::Ok();
}

// --- Continuous profiling -----------------------------------------------------------------------

Status Runtime::StartContinuousProfiling() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  if (implicit_async_depth_.load() > 0) {
    return FailureError(
        "continuous profiling cannot start while implicit async execution is "
        "on (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS)");
  }
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  if (executor_->inspect_capturing()) {
    return FailureError(
        "continuous profiling cannot start while an inspect session captures "
        "device profiles (nrt_inspect_stop ends it)");
  }
  return executor_->continuous().Start();
}

Status Runtime::SaveContinuousProfile(int vnc, const std::string& output_dir) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(std::string path, executor_->continuous().Save(vnc, output_dir));
  TRNSIM_LOG(Info, Nrt) << "continuous profiling: wrote " << path;
  return Status::Ok();
}

Status Runtime::StopContinuousProfiling() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  return executor_->continuous().Stop();
}

// --- Inspect sessions ---------------------------------------------------------------------------

void Runtime::BeginInspectLocked(profiling::InspectSettings settings, bool from_environment) {
  std::string dir = profiling::InspectSessionDir(settings.output_dir, config_.instance->type_name,
                                                 getpid(), std::time(nullptr));
  // Two sessions begun within one second would share the timestamp: number the later ones.
  if (dir == last_inspect_dir_) {
    const std::string base = dir;
    dir += "_" + std::to_string(++inspect_dir_repeats_ + 1);
    last_inspect_dir_ = base;
  } else {
    last_inspect_dir_ = dir;
    inspect_dir_repeats_ = 0;
  }
  TRNSIM_LOG(Info, Nrt) << "inspect: writing to " << dir;
  execution::InspectDeviceCapture capture;
  if (settings.CapturesDeviceProfiles()) {
    capture.dir = dir;
    capture.mode = settings.device_profile;
    capture.num_warmup = settings.device_profile_num_warmup;
    capture.on_fail = settings.on_fail;
    capture.session_id = settings.session_id;
  }
  executor_->SetInspectCapture(std::move(capture));
  inspect_.Begin(std::move(settings), std::move(dir), from_environment, sys_trace_,
                 uint32_t(config_.visible_vnc_count));
}

void Runtime::EndInspectLocked() {
  if (!inspect_.running()) return;
  if (executor_ != nullptr) executor_->SetInspectCapture({});
  inspect_.End(sys_trace_);
}

Status Runtime::BeginInspectChecked(profiling::InspectSettings settings) {
  if (inspect_.running()) {
    return InvalidError(std::string("an inspect session is already running (started by ") +
                        (inspect_.from_environment() ? "NEURON_RT_INSPECT_ENABLE at nrt_init"
                                                     : "nrt_inspect_begin") +
                        "); nrt_inspect_stop ends it");
  }
  if (settings.CapturesSystemTrace()) TRNSIM_RETURN_IF_ERROR(CheckSysTraceFreeLocked());
  if (settings.CapturesDeviceProfiles() && executor_->continuous().running()) {
    return FailureError(
        "an inspect session cannot capture device profiles while continuous "
        "profiling runs (nrt_profile_continuous_stop ends it)");
  }
  if (!settings.CapturesSystemTrace() && !settings.CapturesDeviceProfiles()) {
    TRNSIM_LOG(Info, Nrt) << "inspect: the session captures nothing (inspect and "
                             "inspect-on-failure are both off, or no activity is enabled)";
  }
  BeginInspectLocked(std::move(settings), /*from_environment=*/false);
  return Status::Ok();
}

Status Runtime::BeginInspect() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  Environment env = Environment::FromProcess();
  TRNSIM_ASSIGN_OR_RETURN(
      profiling::InspectSettings settings,
      profiling::ParseInspectSettings(env, uint32_t(config_.visible_vnc_count)));
  settings.enabled = true;  // the call is the switch NEURON_RT_INSPECT_ENABLE is at nrt_init
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  if (inspect_.running() && inspect_.from_environment()) {
    TRNSIM_LOG(Info, Nrt) << "nrt_inspect_begin: the session NEURON_RT_INSPECT_ENABLE started at "
                             "nrt_init is already capturing; it continues";
    return Status::Ok();
  }
  return BeginInspectChecked(std::move(settings));
}

Status Runtime::BeginInspect(const profiling::InspectConfig* config) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  const profiling::InspectConfig defaults;
  profiling::InspectSettings settings =
      profiling::InspectSettingsFromConfig(config != nullptr ? *config : defaults);
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  return BeginInspectChecked(std::move(settings));
}

Status Runtime::StopInspect() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  if (!inspect_.running()) {
    return InvalidError("no inspect session is running (nrt_inspect_begin starts one)");
  }
  EndInspectLocked();
  return Status::Ok();
}

StatusOr<std::string> Runtime::InspectInstanceDir(const std::string& output_dir) const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  return profiling::InspectInstanceDir(output_dir, config.instance->type_name, getpid());
}

// --- nrt_trace_* --------------------------------------------------------------------------------

Status Runtime::StartTrace(bool trace_mem) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
  if (runtime_trace_.running()) {
    return InvalidError("a trace is already running (nrt_trace_stop ends it)");
  }
  TRNSIM_RETURN_IF_ERROR(CheckSysTraceFreeLocked());
  TRNSIM_RETURN_IF_ERROR(
      sys_trace_.Start(profiling::SysTraceConfig(), uint32_t(config_.visible_vnc_count)));
  runtime_trace_.Begin(trace_mem);
  return Status::Ok();
}

Status Runtime::StopTrace(const std::string& filename) {
  std::vector<profiling::SysTraceEvent> events;
  std::vector<profiling::MemoryEvent> memory;
  bool trace_mem = false;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
    if (!runtime_trace_.running()) {
      return InvalidError("no trace is running (nrt_trace_start starts one)");
    }
    trace_mem = runtime_trace_.traces_memory();
    events = sys_trace_.Drain({});
    memory = runtime_trace_.End();
    (void)sys_trace_.Stop();  // it captured for this trace: cannot fail
  }
  if (filename.empty()) return InvalidError("the trace file name is empty");
  const std::string text = profiling::FormatRuntimeTrace(events, trace_mem, memory);
  std::ofstream out(filename, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), std::streamsize(text.size()));
  if (out) out.close();
  // nrt_experimental.h's contract: NRT_FAILURE for a file that cannot be written.
  if (!out) return FailureError("cannot write the trace '" + filename + "'");
  return Status::Ok();
}

void Runtime::TraceTensor(bool allocate, const Tensor& tensor) {
  if (!runtime_trace_.traces_memory()) return;
  const DeviceStorage* device = tensor.device_storage();
  const Placement placement = tensor.placement();
  const char* where = placement == Placement::kDevice ? "device"
                      : placement == Placement::kHost ? "host"
                                                      : "virtual";
  const int64_t nc = device != nullptr ? int64_t(device->vnc()) : int64_t{-1};
  if (allocate) {
    runtime_trace_.RecordAllocation(&tensor, tensor.name(), where, nc, tensor.size());
  } else {
    runtime_trace_.RecordFree(&tensor, tensor.name(), where, nc, tensor.size());
  }
}

}  // namespace trnsim::runtime
