// SysTraceConfig and SysTraceFetchOptions: the host objects behind nrt_sys_trace_config_t and
// nrt_sys_trace_fetch_options_t (api/include/nrt/nrt_sys_trace.h). They only hold settings;
// capture itself (ring buffers, fetch) is SysTraceRecorder (sys_trace_recorder.h), which reads
// them.
//
// Event types are named by the strings of kSysTraceEventTypes and held internally as indices
// into that table, so nothing past configuration compares strings.
//
// Ownership: the C API heap-allocates these with new and frees them with delete through the
// matching *_allocate / *_free calls. Thread safety: none; like AWS's, one object is used from
// one thread at a time. Errors are Status values; nothing throws.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trnsim::runtime::profiling {

// The system-trace event types, in the order nrt_sys_trace_get_event_types lists them: the
// names AWS's documentation shows (nrt-api-facts §7.12). "hardware" and "software" are filter
// groups of the NEURON_RT_INSPECT_EVENT_FILTER_TYPE variable, not event types.
inline constexpr std::array<std::string_view, 10> kSysTraceEventTypes = {
    "model_load",      "nrt_execute",   "runtime_execute",  "nc_exec_running",      "cc_running",
    "cc_exec_barrier", "numerical_err", "nrt_model_switch", "timestamp_sync_point", "hw_notify",
};

// Index of `name` in kSysTraceEventTypes (exact, case-sensitive match), or nullopt.
std::optional<size_t> FindSysTraceEventType(std::string_view name);

// Ring size per logical core when nobody sets one (AWS's default for
// NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC).
inline constexpr uint64_t kDefaultSysTraceMaxEventsPerNc = 1'000'000;

// What nrt_sys_trace_start captures. Defaults: every logical core, every event type,
// kDefaultSysTraceMaxEventsPerNc events per core.
class SysTraceConfig {
 public:
  SysTraceConfig() = default;

  // Restores every default.
  void SetDefaults();

  // Capacity in events of each core's ring buffer. Any value is accepted (AWS documents no
  // limit); with 0 no event is kept.
  void set_max_events_per_nc(uint64_t max_events_per_nc) { max_events_per_nc_ = max_events_per_nc; }
  uint64_t max_events_per_nc() const { return max_events_per_nc_; }

  // Enables or disables capture on logical core `nc_idx`. Any index is accepted: a host object
  // cannot know the core count (it may be built before nrt_init); capture ignores indices
  // past the cores the process owns.
  void SetCaptureEnabledForNc(uint32_t nc_idx, bool enabled);
  bool CaptureEnabledForNc(uint32_t nc_idx) const;

  // Enables or disables one event type by name. NRT_INVALID for a name outside
  // kSysTraceEventTypes; the configuration is then unchanged.
  Status SetCaptureEnabledForEventType(std::string_view event_type, bool enabled);
  bool CaptureEnabledForEventType(size_t event_index) const { return enabled_events_[event_index]; }

  // Names of the enabled event types, in kSysTraceEventTypes order. The views point into that
  // static table.
  std::vector<std::string_view> EnabledEventTypes() const;

 private:
  uint64_t max_events_per_nc_ = kDefaultSysTraceMaxEventsPerNc;
  // Disabled rather than enabled cores: "all cores" must hold before the core count is known.
  std::set<uint32_t> disabled_ncs_;
  std::bitset<kSysTraceEventTypes.size()> enabled_events_ = AllEvents();

  static std::bitset<kSysTraceEventTypes.size()> AllEvents() {
    return std::bitset<kSysTraceEventTypes.size()>().set();
  }
};

// What nrt_sys_trace_fetch_events returns. Defaults: all cores, no limit on events.
struct SysTraceFetchOptions {
  std::optional<uint64_t> nc_idx;  // nullopt: every core
  uint64_t max_events_per_nc = 0;  // 0: no limit

  void SetDefaults() { *this = SysTraceFetchOptions(); }
};

}  // namespace trnsim::runtime::profiling
