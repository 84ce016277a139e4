// Profiler: everything that records what the runtime does (docs/profiling.md) — per-model
// device profiles (nrt_profile_start/stop), per-core profile sessions, continuous profiling,
// inspect sessions (nrt_inspect_*, NEURON_RT_INSPECT_*), nrt_trace_* and the system trace
// (nrt_sys_trace_*). It owns the runtime's one system-trace recorder, which the executor,
// model loads and executions record into, and the nrt_trace memory log the tensor table
// writes; at most one of nrt_sys_trace_start, nrt_trace_start and an inspect session captures
// with the recorder at a time.
//
// A `vnc` argument is checked by the caller (a visible core). Calls return the lifecycle's
// statuses unless initialised (InspectInstanceDir works before nrt_init).
//
// Thread safety: every method. Its own lock guards the inspect session, the session
// directory names and which API owns the recorder; the recorder and the trace log have their
// own. Lock order: the lifecycle's, then this.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "common/status.h"
#include "runtime/lifecycle.h"
#include "runtime/model/model.h"
#include "runtime/profiling/inspect_config.h"
#include "runtime/profiling/inspect_env.h"
#include "runtime/profiling/inspect_session.h"
#include "runtime/profiling/runtime_trace.h"
#include "runtime/profiling/sys_trace_config.h"
#include "runtime/profiling/sys_trace_recorder.h"

namespace trnsim::runtime {

class Profiler {
 public:
  explicit Profiler(const Lifecycle& lifecycle) : lifecycle_(lifecycle) {}
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  profiling::SysTraceRecorder& sys_trace() { return sys_trace_; }
  profiling::RuntimeTrace& runtime_trace() { return runtime_trace_; }

  // --- Device profiles --------------------------------------------------------------------
  // nrt_profile_start: capture every execution of `model` into `filename` (truncated now) until
  // StopProfile(filename) writes it. NRT_INVALID_HANDLE for an unknown model, NRT_INVALID for
  // a model or file already being profiled or a file that cannot be created. Through neurond
  // the daemon records each execution's trace and returns it with the result.
  Status StartProfile(const model::Model* model, const std::string& filename);
  // nrt_profile_stop: NRT_INVALID when no profile was started into `filename` or it cannot be
  // written.
  Status StopProfile(const std::string& filename);

  // --- Profile sessions (nrt_profile_session_*, profiling/core_profile_sessions.h) ---------
  // Errors: the sessions' (NRT_INVALID).
  Status StartSession(int vnc);
  StatusOr<uint64_t> StopSession(int vnc);
  Status SerializeSession(uint64_t session_id, const std::string& filename);
  Status DropSession(uint64_t session_id);
  Status DropAllSessions(int vnc);

  // --- Continuous profiling (nrt_profile_continuous_*, profiling/continuous_profiler.h) -----
  // NRT_FAILURE while an inspect session captures device profiles or implicit async execution
  // is on (AWS's documented refusal); NRT_INVALID when already running.
  Status StartContinuous();
  // Writes the latest execution of `vnc` into `output_dir`.
  Status SaveContinuous(int vnc, const std::string& output_dir);
  Status StopContinuous();

  // --- Inspect sessions (nrt_inspect_*, profiling/inspect_session.h) -----------------------
  // One session at a time. BeginInspect() reads the NEURON_RT_INSPECT_* variables now (the
  // call itself enables capture: NEURON_RT_INSPECT_ENABLE need not be set); while the session
  // NEURON_RT_INSPECT_ENABLE started at Init runs it is a no-op (NRT_SUCCESS): that session is
  // already the one the variables describe. BeginInspect(config) ignores the variables (null:
  // nrt_inspect_config_set_defaults). Errors: NRT_INVALID for a malformed variable, a session
  // already running (any other case), or a session that wants the system trace while
  // nrt_sys_trace_start or nrt_trace_start captures it; NRT_FAILURE for device profiles while
  // continuous profiling runs. StopInspect writes the session (ntrace.json) and ends it;
  // NRT_INVALID when none runs. nrt_close ends a running session the same way.
  Status BeginInspect();
  Status BeginInspect(const profiling::InspectConfig* config);
  Status StopInspect();
  // <output_dir>/<instance id>_pid_<pid>: where this process's inspect sessions go (works
  // before Init, from a fresh read of the environment).
  StatusOr<std::string> InspectInstanceDir(const std::string& output_dir) const;

  // --- nrt_trace_* (profiling/runtime_trace.h) ---------------------------------------------
  // Captures the system trace of every visible core and event type, and with `trace_mem` the
  // tensor allocations and frees, until StopTrace writes it to `filename` (created or
  // truncated). NRT_INVALID when a trace already runs, or the system trace is captured by
  // nrt_sys_trace_start or an inspect session; StopTrace: NRT_INVALID when none runs or the
  // name is empty, NRT_FAILURE when the file cannot be written (the trace has ended either
  // way). nrt_close discards a running trace.
  Status StartTrace(bool trace_mem);
  Status StopTrace(const std::string& filename);

  // --- System trace (nrt_sys_trace_*, profiling/sys_trace_recorder.h) ----------------------
  // Rings for the config's enabled cores among this process's visible ones. NRT_INVALID when a
  // capture is already running. nrt_close stops a running capture (its events are lost).
  // While an inspect session or nrt_trace_start captures with the recorder, Start and Stop are
  // NRT_INVALID saying so, and Fetch returns no events.
  Status StartSysTrace(const profiling::SysTraceConfig& config);
  // NRT_INVALID when no capture is running.
  Status StopSysTrace();
  // Removes the selected events from the rings and returns them as JSON (sys_trace_json.h);
  // no capture running: a document with no events.
  StatusOr<std::string> FetchSysTrace(const profiling::SysTraceFetchOptions& options);

  // --- The runtime's lifecycle (Lifecycle::Init and Close call these, its lock held) -------
  // Begins the session NEURON_RT_INSPECT_ENABLE asks for, if any.
  void Started(Session& session);
  // Writes and ends a running inspect session, discards a running nrt_trace, stops the
  // recorder.
  void Closing(Session& session);

 private:
  // Who captures with sys_trace_ (at most one at a time).
  enum class SysTraceOwner { kNone, kApi, kInspect, kTrace };
  SysTraceOwner SysTraceOwnerLocked() const;  // mutex_ held
  // NRT_INVALID naming the owner unless sys_trace_ is free; mutex_ held.
  Status CheckSysTraceFreeLocked() const;
  // Starts `settings`'s session (a fresh session directory; the executor's device capture);
  // mutex_ held.
  void BeginInspectLocked(Session& session, profiling::InspectSettings settings,
                          bool from_environment);
  // Writes and ends the running inspect session, if any; mutex_ held.
  void EndInspectLocked(Session& session);
  // BeginInspect's checks and start; mutex_ held.
  Status BeginInspectChecked(Session& session, profiling::InspectSettings settings);

  const Lifecycle& lifecycle_;
  profiling::SysTraceRecorder sys_trace_;  // its own lock: recorded into during runs
  profiling::RuntimeTrace runtime_trace_;  // likewise
  mutable std::mutex mutex_;
  profiling::InspectSession inspect_;
  std::string last_inspect_dir_;  // the last session's directory without a suffix
  int inspect_dir_repeats_ = 0;   // sessions that began in that same second
};

}  // namespace trnsim::runtime
