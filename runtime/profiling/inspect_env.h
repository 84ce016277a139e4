// InspectSettings: what the NEURON_RT_INSPECT_* environment variables ask the runtime to capture
// for the process's life (AWS's environment-variable profiling; docs/profiling.md §4). Parsed
// once at nrt_init by ParseInspectSettings; the runtime then starts the system trace and tells
// the executor which executions to profile.
//
// Rules (AWS's where documented, trnsim's choice where not — docs/decisions.md):
//  - NEURON_RT_INSPECT_ENABLE is the master switch; without it nothing is captured.
//  - NEURON_RT_INSPECT_SYSTEM_PROFILE (bool, default true) captures the system trace.
//  - NEURON_RT_INSPECT_DEVICE_PROFILE: 0 (default), 1 or model, session (case-insensitive).
//  - NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: integer >= 0; model mode only.
//  - NEURON_RT_INSPECT_ON_FAIL (bool, default false): also profile every execution that fails.
//  - NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC: integer >= 0, the ring size per core.
//  - NEURON_RT_INSPECT_EVENT_FILTER_NC: comma-separated process-relative logical cores or
//    ranges ("0", "0,2,4", "0-3", "0,2-3"); unset or empty: every core. Indices past the
//    process's cores are accepted and capture nothing.
//  - NEURON_RT_INSPECT_EVENT_FILTER_TYPE: comma-separated items, each an event type of
//    kSysTraceEventTypes or a group ("hardware": kHardwareSysTraceEvents, "software": the
//    rest), optionally prefixed with '^' to exclude. With at least one inclusion only the
//    included types are captured; with exclusions only, every type but those. Exclusions
//    apply after inclusions.
// Every variable is validated whether or not inspect is enabled, so a typo is caught at once;
// a malformed value is NRT_INVALID whose message names the variable and its value.
//
// Thread safety: pure functions. Errors are Status values; nothing throws.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/env.h"
#include "common/status_or.h"
#include "runtime/profiling/inspect_config.h"
#include "runtime/profiling/sys_trace_config.h"

namespace trnsim::runtime::profiling {

// The event types of the "hardware" filter group: those the device (or its model) produces.
// Every other type of kSysTraceEventTypes is "software" (recorded by the runtime on the host).
inline constexpr std::array<std::string_view, 6> kHardwareSysTraceEvents = {
    "nc_exec_running", "cc_running",           "cc_exec_barrier",
    "numerical_err",   "timestamp_sync_point", "hw_notify",
};

struct InspectSettings {
  bool enabled = false;  // NEURON_RT_INSPECT_ENABLE
  std::string output_dir{kDefaultInspectOutputDir};
  bool system_profile = true;  // meaningful only when enabled
  // Ring size, cores and event types of the system trace, for a process of the nc_count
  // logical cores ParseInspectSettings was given.
  SysTraceConfig sys_trace;
  DeviceProfileMode device_profile = DeviceProfileMode::kDisabled;
  uint64_t device_profile_num_warmup = 0;
  bool on_fail =
      false;  // NEURON_RT_INSPECT_ON_FAIL / nrt_inspect_config_set_enable_inspect_on_fail
  // The session id nrt_inspect_config_set_session_id gives (recorded in the session's device
  // profiles); the environment has none and keeps AWS's default.
  int session_id = kDefaultInspectSessionId;

  // True when a system trace is to be captured for the process's life.
  bool CapturesSystemTrace() const { return enabled && system_profile; }
  // True when executions are to be profiled (selected ones, or failing ones).
  bool CapturesDeviceProfiles() const {
    return enabled && (device_profile != DeviceProfileMode::kDisabled || on_fail);
  }
};

// Reads the NEURON_RT_INSPECT_* variables of `env` for a process of `nc_count` logical cores.
// NRT_INVALID (naming the variable and value) for any malformed value.
StatusOr<InspectSettings> ParseInspectSettings(const Environment& env, uint32_t nc_count);

}  // namespace trnsim::runtime::profiling
