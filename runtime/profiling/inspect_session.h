// InspectSession: a runtime's one inspect capture session (docs/profiling.md §4) — started by
// NEURON_RT_INSPECT_ENABLE at nrt_init, by nrt_inspect_begin (the NEURON_RT_INSPECT_*
// variables, read at the call) or by nrt_inspect_begin_with_options (an nrt_inspect_config_t),
// and ended by nrt_inspect_stop or nrt_close, which write its system trace.
//
// Begin records the settings and the session directory and, when the settings capture the
// system trace, starts `recorder` with their config (the caller has checked that nobody else
// captures with it). The device-profile part (which executions, and failing ones) is the
// executor's (execution/executor.h, SetInspectCapture); the runtime hands it over. End writes
// everything the recorder still holds as <dir>/ntrace.json (a file that cannot be written is
// one WARN line, never an error) and stops the recorder.
//
// Thread safety: none; the runtime calls it under its profiling lock.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/profiling/inspect_config.h"
#include "runtime/profiling/inspect_env.h"
#include "runtime/profiling/sys_trace_recorder.h"

namespace trnsim::runtime::profiling {

class InspectSession {
 public:
  bool running() const { return running_; }
  // Started by NEURON_RT_INSPECT_ENABLE at nrt_init (rather than by a begin call).
  bool from_environment() const { return from_environment_; }
  // The session holds the runtime's system-trace recorder.
  bool owns_sys_trace() const { return owns_sys_trace_; }
  const std::string& dir() const { return dir_; }
  const InspectSettings& settings() const { return settings_; }

  void Begin(InspectSettings settings, std::string dir, bool from_environment,
             SysTraceRecorder& recorder, uint32_t nc_count);
  // No-op when not running.
  void End(SysTraceRecorder& recorder);

 private:
  bool running_ = false;
  bool from_environment_ = false;
  bool owns_sys_trace_ = false;
  std::string dir_;
  InspectSettings settings_;
};

// What nrt_inspect_begin_with_options captures for `config` (AWS's meaning of its fields):
// enable_inspect switches on the system trace and device profiles, as far as the activities
// "system_profile" and "device_profile" allow (device profiles in the config's mode);
// enable_inspect_on_fail switches on the profiles of failing executions; with both off the
// session captures nothing. host_memory and cpu_util are accepted and not captured.
InspectSettings InspectSettingsFromConfig(const InspectConfig& config);

}  // namespace trnsim::runtime::profiling
