// System trace: the capture config and fetch options (pure host objects that work at any time,
// over runtime/profiling/sys_trace_config.h), the event-type lists, and capture itself (start,
// stop, fetch) over the runtime's SysTraceRecorder (runtime/profiling/sys_trace_recorder.h;
// docs/profiling.md §6).
//
// Void setters given a NULL object log one line and return.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "api/src/shim.h"
#include "api/src/string_array.h"
#include "nrt/nrt_sys_trace.h"
#include "runtime/profiling/sys_trace_config.h"

using trnsim::api::FreeStringArray;
using trnsim::api::MallocStringArray;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::runtime::profiling::kSysTraceEventTypes;
using trnsim::runtime::profiling::SysTraceConfig;
using trnsim::runtime::profiling::SysTraceFetchOptions;

namespace {

// Handles are the addresses of the runtime objects, created with new.
SysTraceConfig* Unwrap(nrt_sys_trace_config_t* config) {
  return reinterpret_cast<SysTraceConfig*>(config);
}
SysTraceFetchOptions* Unwrap(nrt_sys_trace_fetch_options_t* options) {
  return reinterpret_cast<SysTraceFetchOptions*>(options);
}

template <typename Object, typename Handle>
NRT_STATUS Allocate(const char* function, Handle** out, const char* what) {
  if (out == nullptr) return NullArgument(function, "options");
  auto* made = new (std::nothrow) Object();
  if (made == nullptr) {
    return Report(function, trnsim::ResourceError(std::string("cannot allocate ") + what));
  }
  *out = reinterpret_cast<Handle*>(made);
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

// --- Capture config -----------------------------------------------------------------------

NRT_STATUS nrt_sys_trace_config_allocate(nrt_sys_trace_config_t** options) {
  return Allocate<SysTraceConfig>(__func__, options, "a system-trace config");
}

void nrt_sys_trace_config_set_defaults(nrt_sys_trace_config_t* options) {
  if (options == nullptr) return (void)NullArgument(__func__, "options");
  Unwrap(options)->SetDefaults();
}

void nrt_sys_trace_config_free(nrt_sys_trace_config_t* options) {
  delete Unwrap(options);  // NULL is a no-op
}

void nrt_sys_trace_config_set_max_events_per_nc(nrt_sys_trace_config_t* options,
                                                uint64_t max_events_per_nc) {
  if (options == nullptr) return (void)NullArgument(__func__, "options");
  Unwrap(options)->set_max_events_per_nc(max_events_per_nc);
}

void nrt_sys_trace_config_set_capture_enabled_for_nc(nrt_sys_trace_config_t* options,
                                                     uint32_t nc_idx, bool enabled) {
  if (options == nullptr) return (void)NullArgument(__func__, "options");
  Unwrap(options)->SetCaptureEnabledForNc(nc_idx, enabled);
}

NRT_STATUS nrt_sys_trace_config_set_capture_enabled_for_event_type(nrt_sys_trace_config_t* options,
                                                                   const char* event_type,
                                                                   bool enabled) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (event_type == nullptr) return NullArgument(__func__, "event_type");
  return Report(__func__, Unwrap(options)->SetCaptureEnabledForEventType(event_type, enabled));
}

// --- Event-type lists ---------------------------------------------------------------------

NRT_STATUS nrt_sys_trace_get_event_types(const char*** event_types, size_t* count) {
  if (event_types == nullptr) return NullArgument(__func__, "event_types");
  if (count == nullptr) return NullArgument(__func__, "count");
  std::vector<std::string_view> names(kSysTraceEventTypes.begin(), kSysTraceEventTypes.end());
  return Report(__func__, MallocStringArray(names, event_types, count));
}

void nrt_sys_trace_free_event_types(const char** event_types, size_t count) {
  FreeStringArray(event_types, count);
}

NRT_STATUS nrt_sys_trace_config_get_enabled_event_types(nrt_sys_trace_config_t* options,
                                                        const char*** event_types, size_t* count) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (event_types == nullptr) return NullArgument(__func__, "event_types");
  if (count == nullptr) return NullArgument(__func__, "count");
  return Report(__func__,
                MallocStringArray(Unwrap(options)->EnabledEventTypes(), event_types, count));
}

// --- Capture --------------------------------------------------------------------------------

NRT_STATUS nrt_sys_trace_start(nrt_sys_trace_config_t* options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  return Report(__func__, Rt().profiling().StartSysTrace(*Unwrap(options)));
}

NRT_STATUS nrt_sys_trace_stop(void) { return Report(__func__, Rt().profiling().StopSysTrace()); }

// --- Fetch options and fetch ----------------------------------------------------------------

NRT_STATUS nrt_sys_trace_fetch_options_allocate(nrt_sys_trace_fetch_options_t** options) {
  return Allocate<SysTraceFetchOptions>(__func__, options, "system-trace fetch options");
}

void nrt_sys_trace_fetch_options_set_defaults(nrt_sys_trace_fetch_options_t* options) {
  if (options == nullptr) return (void)NullArgument(__func__, "options");
  Unwrap(options)->SetDefaults();
}

void nrt_sys_trace_fetch_options_free(nrt_sys_trace_fetch_options_t* options) {
  delete Unwrap(options);  // NULL is a no-op
}

void nrt_sys_trace_fetch_options_set_max_events_per_nc(nrt_sys_trace_fetch_options_t* options,
                                                       uint64_t max_events_per_nc) {
  if (options == nullptr) return (void)NullArgument(__func__, "options");
  Unwrap(options)->max_events_per_nc = max_events_per_nc;
}

void nrt_sys_trace_fetch_options_set_nc_idx(nrt_sys_trace_fetch_options_t* options,
                                            uint64_t nc_idx) {
  if (options == nullptr) return (void)NullArgument(__func__, "options");
  Unwrap(options)->nc_idx = nc_idx;
}

NRT_STATUS nrt_sys_trace_fetch_events(char** buffer, size_t* written_size,
                                      const nrt_sys_trace_fetch_options_t* options) {
  if (buffer == nullptr) return NullArgument(__func__, "buffer");
  if (written_size == nullptr) return NullArgument(__func__, "written_size");
  // As AWS's: the caller hands in a NULL pointer, so a filled one is a caller bug (and would
  // leak the buffer it points to).
  if (*buffer != nullptr) {
    return Report(__func__, trnsim::InvalidError("*buffer is not NULL: set it to NULL before the "
                                                 "call and free a previous result with "
                                                 "nrt_sys_trace_buffer_free"));
  }
  const SysTraceFetchOptions all;  // NULL options: all cores, all events
  trnsim::StatusOr<std::string> json = Rt().profiling().FetchSysTrace(
      options != nullptr ? *reinterpret_cast<const SysTraceFetchOptions*>(options) : all);
  if (!json.ok()) return Report(__func__, json.status());
  char* out = static_cast<char*>(std::malloc(json->size() + 1));
  if (out == nullptr) {
    return Report(__func__,
                  trnsim::ResourceError("cannot allocate " + std::to_string(json->size() + 1) +
                                        " bytes for the system-trace JSON"));
  }
  std::memcpy(out, json->data(), json->size());
  out[json->size()] = '\0';
  *buffer = out;
  *written_size = json->size();
  return NRT_SUCCESS;
}

// The fetch hands out malloc'd JSON, so free() releases it.
void nrt_sys_trace_buffer_free(char* buffer) { std::free(buffer); }

}  // extern "C"
