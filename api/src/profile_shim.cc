// Profiling: per-model device profiles, profile sessions, continuous profiling, inspect
// sessions and their option objects, and nrt_trace_*.
//
// nrt_profile_start / nrt_profile_stop capture device profiles (docs/profiling.md). The option
// objects (nrt_profile_continuous_options_t, nrt_inspect_config_t) are pure host objects that
// work at any time, over runtime/profiling. The other capture calls (sessions, continuous,
// inspect begin/stop, trace) validate their arguments and the lifecycle, then report
// NotImplemented (docs/api-status.md).
#include <new>
#include <string_view>
#include <vector>

#include "api/src/shim.h"
#include "api/src/string_array.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_profile.h"
#include "runtime/profiling/continuous_options.h"
#include "runtime/profiling/inspect_config.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::FreeStringArray;
using trnsim::api::MallocStringArray;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::runtime::model::Model;
using trnsim::runtime::profiling::ContinuousOptions;
using trnsim::runtime::profiling::InspectConfig;
using trnsim::runtime::profiling::kInspectActivityNames;

namespace {

constexpr char kProfiler[] = "profile capture (arrives with the profiler)";

// Option handles are the addresses of the runtime objects, created with new.
InspectConfig* Unwrap(nrt_inspect_config_t* config) {
  return reinterpret_cast<InspectConfig*>(config);
}
ContinuousOptions* Unwrap(nrt_profile_continuous_options_t* options) {
  return reinterpret_cast<ContinuousOptions*>(options);
}

// Where the capture entry points end for now: the lifecycle (or lifecycle-and-core) verdict
// `ready` if it is an error, else NotImplemented.
NRT_STATUS NotYet(const char* function, const trnsim::Status& ready) {
  if (!ready.ok()) return Report(function, ready);
  return NotImplemented(function, kProfiler);
}
NRT_STATUS NotYet(const char* function) { return NotYet(function, Rt().CheckInitialized()); }

}  // namespace

extern "C" {

// --- Per-model profile and profile sessions ---------------------------------------------------

NRT_STATUS nrt_profile_start(nrt_model_t* model, const char* filename) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return Report(__func__, Rt().StartProfile(reinterpret_cast<const Model*>(model), filename));
}

NRT_STATUS nrt_profile_stop(const char* filename) {
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return Report(__func__, Rt().StopProfile(filename));
}

NRT_STATUS nrt_profile_session_start(int32_t vnc) {
  return NotYet(__func__, CheckInitializedVnc(vnc));
}

NRT_STATUS nrt_profile_session_stop(int32_t vnc, uint64_t* session_id) {
  if (session_id == nullptr) return NullArgument(__func__, "session_id");
  return NotYet(__func__, CheckInitializedVnc(vnc));
}

NRT_STATUS nrt_profile_session_serialize(uint64_t session_id, const char* filename) {
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return NotYet(__func__);
}

NRT_STATUS nrt_profile_session_drop(uint64_t session_id) { return NotYet(__func__); }

NRT_STATUS nrt_profile_session_drop_all(int32_t vnc) {
  return NotYet(__func__, CheckInitializedVnc(vnc));
}

// --- Continuous profiling ---------------------------------------------------------------------

NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t** options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  auto* made = new (std::nothrow) ContinuousOptions();
  if (made == nullptr) {
    return Report(__func__, trnsim::ResourceError("cannot allocate continuous-profiling options"));
  }
  *options = reinterpret_cast<nrt_profile_continuous_options_t*>(made);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t* options) {
  delete Unwrap(options);  // NULL is a no-op
  return NRT_SUCCESS;
}

NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t* options,
                                                         const char* output_dir) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (output_dir == nullptr) return NullArgument(__func__, "output_dir");
  return Report(__func__, Unwrap(options)->SetOutputDir(output_dir));
}

NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t* options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  return NotYet(__func__);
}

NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t* options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  return NotYet(__func__, CheckInitializedVnc(vnc));
}

NRT_STATUS nrt_profile_continuous_stop(void) { return NotYet(__func__); }

// --- Inspect sessions -------------------------------------------------------------------------

NRT_STATUS nrt_inspect_begin(void) { return NotYet(__func__); }

NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t* options) {
  return NotYet(__func__);  // NULL options means defaults: nothing to check
}

NRT_STATUS nrt_inspect_stop(void) { return NotYet(__func__); }

NRT_STATUS nrt_inspect_get_instance_output_dir(const char* output_dir, char* instance_dir_buf,
                                               size_t buf_size) {
  if (output_dir == nullptr) return NullArgument(__func__, "output_dir");
  if (instance_dir_buf == nullptr) return NullArgument(__func__, "instance_dir_buf");
  return NotImplemented(__func__, "the inspect output layout (arrives with the profiler)");
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

// --- Trace (nrt_experimental.h) ---------------------------------------------------------------

NRT_STATUS nrt_trace_start(bool trace_mem) { return NotYet(__func__); }

NRT_STATUS nrt_trace_stop(const char* filename) {
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return NotYet(__func__);
}

}  // extern "C"
