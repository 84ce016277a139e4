// A system trace as neuron-profile reads it: the JSON document nrt_sys_trace_fetch_events
// returns (docs/profiling.md §6), which `neuron-profile capture -t systrace` writes. Its
// start/stop event pairs (same tracking_id) become spans; the views summarise them per event
// type and logical core, or lay them out for the Perfetto UI. A span whose start and stop both
// carry data.nc_timestamp_ns (a hardware event: nc_exec_running, ...) lasts its device time
// (stop - start on the device clock) rather than the difference of its host timestamps.
//
// Errors: NRT_INVALID naming the file and the offending event for anything that is not such a
// document (a missing or mistyped field, a stop without its start, a stop before its start).
// A start whose stop never came (a capture cut short) is kept as an open span and counted, not
// refused. Never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status_or.h"

namespace trnsim::neuron_profile {

struct SystemSpan {
  std::string event_type;  // "nrt_execute", "nc_exec_running", ...
  int64_t nc_idx = 0;
  uint64_t thread_id = 0;
  uint64_t start_ns = 0;         // host realtime, ns since the epoch
  uint64_t duration_ns = 0;      // 0 for an open span; device time for a device span
  bool open = false;             // no stop event was captured
  bool device = false;           // duration_ns is device time (both events had nc_timestamp_ns)
  uint64_t device_start_ns = 0;  // data.nc_timestamp_ns of the start (device spans)
  int64_t device_core_idx = -1;  // data.device_core_idx, when there
  int64_t exec_id = -1;          // data.exec_id, when there
  std::string model_name;        // from the start's or stop's data, when there
  std::string status;            // the stop's data.status, when there
};

struct SystemTrace {
  std::vector<SystemSpan> spans;  // ascending start, then event type
};

// True when `text` is a JSON object with "events" and "data_version" (a system trace rather
// than a device profile). Cheap enough to call on any file neuron-profile is given.
bool IsSystemTrace(const std::string& text);

StatusOr<SystemTrace> ParseSystemTrace(const std::string& where, const std::string& text);

// Per event type and logical core: count, open spans, total / min / max duration (device
// time for device spans: "clock" says which), and the trace's first start and last end — as
// text or as JSON ({"spans": n, "window_ns": ..., "event_types": [{event_type, nc_idx, clock,
// count, open, total_ns, min_ns, max_ns}]}).
std::string SystemTraceSummaryText(const SystemTrace& trace);
std::string SystemTraceSummaryJson(const SystemTrace& trace);

// Chrome JSON trace for the Perfetto UI: one process per logical core ("NC <n>"), one thread
// per event type (per event type and physical core for device spans, so an LNC=2 run's two
// spans do not overlap on one row), an X slice per span at its host start lasting its
// duration (µs; args: model_name, status, thread_id, and for device spans exec_id,
// device_core_idx, nc_timestamp_ns).
std::string SystemTracePerfetto(const SystemTrace& trace);

}  // namespace trnsim::neuron_profile
