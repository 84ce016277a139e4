// InspectConfig: the host object behind nrt_inspect_config_t (api/include/nrt/nrt_profile.h),
// the settings of one inspect capture session started by nrt_inspect_begin_with_options. It
// only holds settings; the session itself arrives with the profiler and reads them.
//
// Defaults (AWS's nrt_inspect_config_set_defaults, which ignores the NEURON_RT_INSPECT_*
// environment): session id 1, output directory "./output", every activity type, every core
// and every event type captured with a ring of kDefaultSysTraceMaxEventsPerNc events per core,
// inspect off, inspect-on-failure off, device profiles per model execution.
//
// Ownership: the C API heap-allocates it with new and frees it with delete through
// nrt_inspect_config_allocate / _free. Thread safety: none; one object is used from one thread
// at a time. Errors are Status values; nothing throws.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "runtime/profiling/sys_trace_config.h"

namespace trnsim::runtime::profiling {

// The kinds of data an inspect session can capture, in the order
// nrt_inspect_config_get_all_activity_types lists them. Indices of kInspectActivityNames.
enum class InspectActivity : size_t {
  kSystemProfile = 0,  // the system trace (runtime events)
  kDeviceProfile = 1,  // per-engine device timelines
  kHostMemory = 2,     // host memory usage samples
  kCpuUtil = 3,        // host CPU utilisation samples
};
inline constexpr std::array<std::string_view, 4> kInspectActivityNames = {
    "system_profile", "device_profile", "host_memory", "cpu_util"};
// Accepted by SetActivity to switch every activity at once; not itself an activity.
inline constexpr std::string_view kAllActivities = "all";

// How device profiles are captured. Values are nrt_inspect_device_profile_mode_t's.
enum class DeviceProfileMode : int { kDisabled = 0, kModel = 1, kSession = 2 };

inline constexpr std::string_view kDefaultInspectOutputDir = "./output";
inline constexpr int kDefaultInspectSessionId = 1;

class InspectConfig {
 public:
  InspectConfig() = default;

  // Restores every default listed at the top of this file.
  void SetDefaults();

  void set_session_id(int session_id) { session_id_ = session_id; }
  int session_id() const { return session_id_; }

  // Copies `dir`. NRT_INVALID for "" (the C API rejects NULL before calling), NRT_RESOURCE if
  // the copy cannot be allocated; the old directory is kept on error.
  Status SetOutputDir(std::string_view dir);
  const std::string& output_dir() const { return output_dir_; }

  // The system-trace part of the session: ring size, captured cores and event types.
  SysTraceConfig& sys_trace() { return sys_trace_; }
  const SysTraceConfig& sys_trace() const { return sys_trace_; }

  // Capture a profile of every execution. With this and inspect-on-failure both off the
  // session captures nothing.
  void set_enable_inspect(bool enable) { enable_inspect_ = enable; }
  bool enable_inspect() const { return enable_inspect_; }
  // Dump device profiles of executions that fail.
  void set_enable_inspect_on_fail(bool enable) { enable_inspect_on_fail_ = enable; }
  bool enable_inspect_on_fail() const { return enable_inspect_on_fail_; }

  // `mode` is the raw C enum value; NRT_INVALID unless it is a DeviceProfileMode enumerator.
  Status SetDeviceProfileMode(int mode);
  DeviceProfileMode device_profile_mode() const { return device_profile_mode_; }

  // Enables or disables the activity named `name` (kInspectActivityNames), or all of them for
  // kAllActivities. NRT_INVALID for any other name; the configuration is then unchanged.
  Status SetActivity(std::string_view name, bool enabled);
  bool ActivityEnabled(InspectActivity activity) const {
    return activities_[static_cast<size_t>(activity)];
  }
  // Names of the enabled activities in kInspectActivityNames order (views into that table).
  std::vector<std::string_view> EnabledActivities() const;

 private:
  using ActivitySet = std::bitset<kInspectActivityNames.size()>;

  int session_id_ = kDefaultInspectSessionId;
  std::string output_dir_{kDefaultInspectOutputDir};
  SysTraceConfig sys_trace_;
  bool enable_inspect_ = false;
  bool enable_inspect_on_fail_ = false;
  // AWS's default for NEURON_RT_INSPECT_DEVICE_PROFILE when inspect is on is 1, per model.
  DeviceProfileMode device_profile_mode_ = DeviceProfileMode::kModel;
  ActivitySet activities_ = ActivitySet().set();
};

}  // namespace trnsim::runtime::profiling
