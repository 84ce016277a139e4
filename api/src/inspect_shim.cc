// Inspect: capture sessions (nrt_inspect_begin / _begin_with_options / _stop, docs/profiling.md
// §4), the instance output directory, and the session options object nrt_inspect_config_t (a
// pure host object that works at any time, over runtime/profiling/inspect_config.h).
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "api/src/shim.h"
#include "api/src/string_array.h"
#include "nrt/nrt_profile.h"
#include "runtime/profiling/inspect_config.h"

using trnsim::api::FreeStringArray;
using trnsim::api::MallocStringArray;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::runtime::profiling::InspectConfig;
using trnsim::runtime::profiling::kInspectActivityNames;

namespace {

// Config handles are the addresses of the runtime objects, created with new.
InspectConfig* Unwrap(nrt_inspect_config_t* config) {
  return reinterpret_cast<InspectConfig*>(config);
}

}  // namespace

extern "C" {

// --- Inspect sessions -------------------------------------------------------------------------

NRT_STATUS nrt_inspect_begin(void) { return Report(__func__, Rt().profiling().BeginInspect()); }

NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t* options) {
  // NULL options means the defaults of nrt_inspect_config_set_defaults.
  return Report(__func__, Rt().profiling().BeginInspect(Unwrap(options)));
}

NRT_STATUS nrt_inspect_stop(void) { return Report(__func__, Rt().profiling().StopInspect()); }

NRT_STATUS nrt_inspect_get_instance_output_dir(const char* output_dir, char* instance_dir_buf,
                                               size_t buf_size) {
  if (output_dir == nullptr) return NullArgument(__func__, "output_dir");
  if (instance_dir_buf == nullptr) return NullArgument(__func__, "instance_dir_buf");
  if (*output_dir == '\0') {
    return Report(__func__, trnsim::InvalidError("output_dir is empty"));
  }
  trnsim::StatusOr<std::string> dir = Rt().profiling().InspectInstanceDir(output_dir);
  if (!dir.ok()) return Report(__func__, dir.status());
  if (dir->size() + 1 > buf_size) {
    return Report(__func__,
                  trnsim::ResourceError("the instance directory '" + *dir + "' needs " +
                                        std::to_string(dir->size() + 1) + " bytes; buf_size is " +
                                        std::to_string(buf_size)));
  }
  std::memcpy(instance_dir_buf, dir->c_str(), dir->size() + 1);
  return NRT_SUCCESS;
}

// --- Inspect config: a pure host object, callable at any time ---------------------------------

NRT_STATUS nrt_inspect_config_allocate(nrt_inspect_config_t** options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  auto* made = new (std::nothrow) InspectConfig();
  if (made == nullptr) {
    return Report(__func__, trnsim::ResourceError("cannot allocate an inspect config"));
  }
  *options = reinterpret_cast<nrt_inspect_config_t*>(made);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_defaults(nrt_inspect_config_t* options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  Unwrap(options)->SetDefaults();
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_free(nrt_inspect_config_t* options) {
  delete Unwrap(options);  // NULL is a no-op
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_session_id(nrt_inspect_config_t* options, int session_id) {
  if (options == nullptr) return NullArgument(__func__, "options");
  Unwrap(options)->set_session_id(session_id);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_output_dir(nrt_inspect_config_t* options,
                                             const char* output_dir) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (output_dir == nullptr) return NullArgument(__func__, "output_dir");
  return Report(__func__, Unwrap(options)->SetOutputDir(output_dir));
}

NRT_STATUS nrt_inspect_config_set_sys_trace_max_events_per_nc(
    nrt_inspect_config_t* options, uint64_t sys_trace_max_events_per_nc) {
  if (options == nullptr) return NullArgument(__func__, "options");
  Unwrap(options)->sys_trace().set_max_events_per_nc(sys_trace_max_events_per_nc);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_capture_enabled_for_nc(nrt_inspect_config_t* options,
                                                         uint32_t nc_idx, bool enabled) {
  if (options == nullptr) return NullArgument(__func__, "options");
  Unwrap(options)->sys_trace().SetCaptureEnabledForNc(nc_idx, enabled);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_capture_enabled_for_event_type_string(
    nrt_inspect_config_t* options, const char* event_type, bool enabled) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (event_type == nullptr) return NullArgument(__func__, "event_type");
  return Report(__func__,
                Unwrap(options)->sys_trace().SetCaptureEnabledForEventType(event_type, enabled));
}

NRT_STATUS nrt_inspect_config_set_enable_inspect(nrt_inspect_config_t* options,
                                                 bool enable_inspect) {
  if (options == nullptr) return NullArgument(__func__, "options");
  Unwrap(options)->set_enable_inspect(enable_inspect);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_enable_inspect_on_fail(nrt_inspect_config_t* options,
                                                         bool enable_inspect_on_fail) {
  if (options == nullptr) return NullArgument(__func__, "options");
  Unwrap(options)->set_enable_inspect_on_fail(enable_inspect_on_fail);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_inspect_config_set_inspect_device_profile_mode(
    nrt_inspect_config_t* options, nrt_inspect_device_profile_mode_t device_profile_mode) {
  if (options == nullptr) return NullArgument(__func__, "options");
  return Report(__func__,
                Unwrap(options)->SetDeviceProfileMode(static_cast<int>(device_profile_mode)));
}

NRT_STATUS nrt_inspect_config_get_all_activity_types(const char*** activity_types, size_t* count) {
  if (activity_types == nullptr) return NullArgument(__func__, "activity_types");
  if (count == nullptr) return NullArgument(__func__, "count");
  std::vector<std::string_view> names(kInspectActivityNames.begin(), kInspectActivityNames.end());
  return Report(__func__, MallocStringArray(names, activity_types, count));
}

NRT_STATUS nrt_inspect_config_get_enabled_activity_types(nrt_inspect_config_t* options,
                                                         const char*** activity_types,
                                                         size_t* count) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (activity_types == nullptr) return NullArgument(__func__, "activity_types");
  if (count == nullptr) return NullArgument(__func__, "count");
  return Report(__func__,
                MallocStringArray(Unwrap(options)->EnabledActivities(), activity_types, count));
}

void nrt_inspect_config_free_activity_types(const char** activity_types, size_t count) {
  FreeStringArray(activity_types, count);
}

NRT_STATUS nrt_inspect_config_set_activity(nrt_inspect_config_t* options, const char* activity_type,
                                           bool enabled) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (activity_type == nullptr) return NullArgument(__func__, "activity_type");
  return Report(__func__, Unwrap(options)->SetActivity(activity_type, enabled));
}

}  // extern "C"
