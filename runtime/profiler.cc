// Profiler: device profiles (per model, per core session, continuous), inspect sessions,
// nrt_trace_* and the system trace's one recorder (profiler.h, docs/profiling.md).
#include "runtime/profiler.h"

#include <unistd.h>

#include <ctime>
#include <fstream>

#include "common/log.h"
#include "runtime/instance_queries.h"
#include "runtime/profiling/inspect_output.h"
#include "runtime/profiling/sys_trace_json.h"

namespace trnsim::runtime {

// --- The system trace's owner ------------------------------------------------------------------

Profiler::SysTraceOwner Profiler::SysTraceOwnerLocked() const {
  if (inspect_.owns_sys_trace()) return SysTraceOwner::kInspect;
  if (runtime_trace_.running()) return SysTraceOwner::kTrace;
  if (sys_trace_.capturing()) return SysTraceOwner::kApi;
  return SysTraceOwner::kNone;
}

Status Profiler::CheckSysTraceFreeLocked() const {
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

Status Profiler::StartSysTrace(const profiling::SysTraceConfig& config) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  if (SysTraceOwnerLocked() != SysTraceOwner::kApi)
    TRNSIM_RETURN_IF_ERROR(CheckSysTraceFreeLocked());
  return sys_trace_.Start(config, uint32_t(session->config.visible_vnc_count));
}

Status Profiler::StopSysTrace() {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  const SysTraceOwner owner = SysTraceOwnerLocked();
  if (owner == SysTraceOwner::kInspect || owner == SysTraceOwner::kTrace) {
    return CheckSysTraceFreeLocked();
  }
  return sys_trace_.Stop();
}

StatusOr<std::string> Profiler::FetchSysTrace(const profiling::SysTraceFetchOptions& options) {
  std::vector<profiling::SysTraceEvent> events;
  {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    std::lock_guard<std::mutex> profiling_lock(mutex_);
    // An inspect session's or nrt_trace's events belong to its file: the application sees no
    // capture.
    if (SysTraceOwnerLocked() == SysTraceOwner::kApi) events = sys_trace_.Drain(options);
  }
  return profiling::SysTraceEventsToJson(events);  // serialising needs no runtime state
}

// --- Per-model device profiles -------------------------------------------------------------------

Status Profiler::StartProfile(const model::Model* handle, const std::string& filename) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, session->models->Pin(handle));
  return session->executor->StartProfile(*model, filename);
}

Status Profiler::StopProfile(const std::string& filename) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->executor->StopProfile(filename);
}

// --- Profile sessions ---------------------------------------------------------------------------

Status Profiler::StartSession(int vnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->executor->core_sessions().Start(vnc);
}

StatusOr<uint64_t> Profiler::StopSession(int vnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->executor->core_sessions().Stop(vnc);
}

Status Profiler::SerializeSession(uint64_t session_id, const std::string& filename) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->executor->core_sessions().Serialize(session_id, filename);
}

Status Profiler::DropSession(uint64_t session_id) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->executor->core_sessions().Drop(session_id);
}

Status Profiler::DropAllSessions(int vnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  const size_t dropped = session->executor->core_sessions().DropAll(vnc);
  TRNSIM_LOG(Debug, Nrt) << "dropped " << dropped << " profile session(s) of logical core " << vnc;
  return Status::Ok();
}

// --- Continuous profiling -----------------------------------------------------------------------

Status Profiler::StartContinuous() {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  if (session->config.implicit_async_depth > 0) {
    return FailureError(
        "continuous profiling cannot start while implicit async execution is "
        "on (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS)");
  }
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  if (session->executor->inspect_capturing()) {
    return FailureError(
        "continuous profiling cannot start while an inspect session captures "
        "device profiles (nrt_inspect_stop ends it)");
  }
  return session->executor->continuous().Start();
}

Status Profiler::SaveContinuous(int vnc, const std::string& output_dir) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(std::string path, session->executor->continuous().Save(vnc, output_dir));
  TRNSIM_LOG(Info, Nrt) << "continuous profiling: wrote " << path;
  return Status::Ok();
}

Status Profiler::StopContinuous() {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  return session->executor->continuous().Stop();
}

// --- Inspect sessions ---------------------------------------------------------------------------

void Profiler::BeginInspectLocked(Session& session, profiling::InspectSettings settings,
                                  bool from_environment) {
  std::string dir = profiling::InspectSessionDir(
      settings.output_dir, session.config.instance->type_name, getpid(), std::time(nullptr));
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
  session.executor->SetInspectCapture(std::move(capture));
  inspect_.Begin(std::move(settings), std::move(dir), from_environment, sys_trace_,
                 uint32_t(session.config.visible_vnc_count));
}

void Profiler::EndInspectLocked(Session& session) {
  if (!inspect_.running()) return;
  if (session.executor != nullptr) session.executor->SetInspectCapture({});
  inspect_.End(sys_trace_);
}

Status Profiler::BeginInspectChecked(Session& session, profiling::InspectSettings settings) {
  if (inspect_.running()) {
    return InvalidError(std::string("an inspect session is already running (started by ") +
                        (inspect_.from_environment() ? "NEURON_RT_INSPECT_ENABLE at nrt_init"
                                                     : "nrt_inspect_begin") +
                        "); nrt_inspect_stop ends it");
  }
  if (settings.CapturesSystemTrace()) TRNSIM_RETURN_IF_ERROR(CheckSysTraceFreeLocked());
  if (settings.CapturesDeviceProfiles() && session.executor->continuous().running()) {
    return FailureError(
        "an inspect session cannot capture device profiles while continuous "
        "profiling runs (nrt_profile_continuous_stop ends it)");
  }
  if (!settings.CapturesSystemTrace() && !settings.CapturesDeviceProfiles()) {
    TRNSIM_LOG(Info, Nrt) << "inspect: the session captures nothing (inspect and "
                             "inspect-on-failure are both off, or no activity is enabled)";
  }
  BeginInspectLocked(session, std::move(settings), /*from_environment=*/false);
  return Status::Ok();
}

Status Profiler::BeginInspect() {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  Environment env = Environment::FromProcess();
  TRNSIM_ASSIGN_OR_RETURN(
      profiling::InspectSettings settings,
      profiling::ParseInspectSettings(env, uint32_t(session->config.visible_vnc_count)));
  settings.enabled = true;  // the call is the switch NEURON_RT_INSPECT_ENABLE is at nrt_init
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  if (inspect_.running() && inspect_.from_environment()) {
    TRNSIM_LOG(Info, Nrt) << "nrt_inspect_begin: the session NEURON_RT_INSPECT_ENABLE started at "
                             "nrt_init is already capturing; it continues";
    return Status::Ok();
  }
  return BeginInspectChecked(*session, std::move(settings));
}

Status Profiler::BeginInspect(const profiling::InspectConfig* config) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  const profiling::InspectConfig defaults;
  profiling::InspectSettings settings =
      profiling::InspectSettingsFromConfig(config != nullptr ? *config : defaults);
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  return BeginInspectChecked(*session, std::move(settings));
}

Status Profiler::StopInspect() {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  if (!inspect_.running()) {
    return InvalidError("no inspect session is running (nrt_inspect_begin starts one)");
  }
  EndInspectLocked(*session);
  return Status::Ok();
}

StatusOr<std::string> Profiler::InspectInstanceDir(const std::string& output_dir) const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  return profiling::InspectInstanceDir(output_dir, config.instance->type_name, getpid());
}

// --- nrt_trace_* --------------------------------------------------------------------------------

Status Profiler::StartTrace(bool trace_mem) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::lock_guard<std::mutex> profiling_lock(mutex_);
  if (runtime_trace_.running()) {
    return InvalidError("a trace is already running (nrt_trace_stop ends it)");
  }
  TRNSIM_RETURN_IF_ERROR(CheckSysTraceFreeLocked());
  TRNSIM_RETURN_IF_ERROR(
      sys_trace_.Start(profiling::SysTraceConfig(), uint32_t(session->config.visible_vnc_count)));
  runtime_trace_.Begin(trace_mem);
  return Status::Ok();
}

Status Profiler::StopTrace(const std::string& filename) {
  std::vector<profiling::SysTraceEvent> events;
  std::vector<profiling::MemoryEvent> memory;
  bool trace_mem = false;
  {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    std::lock_guard<std::mutex> profiling_lock(mutex_);
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

// --- The runtime's lifecycle --------------------------------------------------------------------

void Profiler::Started(Session& session) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (sys_trace_.capturing()) (void)sys_trace_.Stop();  // not expected: Closing stops it
  // NEURON_RT_INSPECT_ENABLE: the session runs from here to nrt_inspect_stop or nrt_close.
  if (session.config.inspect.CapturesSystemTrace() ||
      session.config.inspect.CapturesDeviceProfiles()) {
    BeginInspectLocked(session, session.config.inspect, /*from_environment=*/true);
  }
}

void Profiler::Closing(Session& session) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EndInspectLocked(session);  // writes its ntrace.json
    if (runtime_trace_.running()) {
      (void)runtime_trace_.End();  // nrt_trace_start without nrt_trace_stop: discarded
      TRNSIM_LOG(Warn, Nrt) << "nrt_close: the trace nrt_trace_start began was not stopped; "
                               "it is discarded";
    }
  }
  if (sys_trace_.capturing()) (void)sys_trace_.Stop();  // its rings go with the runtime
}

}  // namespace trnsim::runtime
