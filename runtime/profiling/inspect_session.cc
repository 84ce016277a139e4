#include "runtime/profiling/inspect_session.h"

#include <utility>

#include "common/log.h"
#include "runtime/profiling/inspect_output.h"
#include "runtime/profiling/sys_trace_json.h"

namespace trnsim::runtime::profiling {

void InspectSession::Begin(InspectSettings settings, std::string dir, bool from_environment,
                           SysTraceRecorder& recorder, uint32_t nc_count) {
  settings_ = std::move(settings);
  dir_ = std::move(dir);
  from_environment_ = from_environment;
  owns_sys_trace_ = false;
  if (settings_.CapturesSystemTrace()) {
    // Start fails only while the recorder captures, which the caller ruled out.
    owns_sys_trace_ = recorder.Start(settings_.sys_trace, nc_count).ok();
  }
  running_ = true;
}

void InspectSession::End(SysTraceRecorder& recorder) {
  if (!running_) return;
  if (owns_sys_trace_) {
    // Every event the session captured, as nrt_sys_trace_fetch_events would return them.
    const std::string json = SysTraceEventsToJson(recorder.Drain({}));
    Status written = WriteInspectFile(dir_, kInspectSysTraceFile, json);
    if (!written.ok()) {
      TRNSIM_LOG(Warn, Nrt) << "inspect: " << written.message();
    }
    (void)recorder.Stop();  // it captures for this session: cannot fail
  }
  running_ = false;
  owns_sys_trace_ = false;
  from_environment_ = false;
}

InspectSettings InspectSettingsFromConfig(const InspectConfig& config) {
  InspectSettings settings;
  const bool normal = config.enable_inspect();
  settings.enabled = normal || config.enable_inspect_on_fail();
  settings.output_dir = config.output_dir();
  settings.system_profile = normal && config.ActivityEnabled(InspectActivity::kSystemProfile);
  settings.sys_trace = config.sys_trace();
  settings.device_profile = normal && config.ActivityEnabled(InspectActivity::kDeviceProfile)
                                ? config.device_profile_mode()
                                : DeviceProfileMode::kDisabled;
  settings.on_fail = config.enable_inspect_on_fail();
  settings.session_id = config.session_id();
  return settings;
}

}  // namespace trnsim::runtime::profiling
