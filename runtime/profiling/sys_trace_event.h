// SysTraceEvent: one record of the system trace (nrt_sys_trace_*), as kept in a logical core's
// ring and handed to the JSON writer (sys_trace_json.h). A span (a model load, an nrt_execute,
// a run on the device) is two records, its start and its stop, sharing a tracking id, as in
// AWS's capture rings; docs/profiling.md §6 lists every field and when each type is produced.
//
// Times are nanoseconds of the host's realtime clock since the Unix epoch. Hardware events
// (nc_exec_running, numerical_err, timestamp_sync_point) also carry their device time
// (nc_timestamp_ns, the core's device clock: driver/sim/device_clock.h); their timestamp_ns is
// that device time moved to the host clock through the run's timestamp_sync_point, as AWS's
// runtime does (device_events.h).
//
// Plain value type; no invariants beyond the field comments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace trnsim::runtime::profiling {

// Indices into kSysTraceEventTypes (sys_trace_config.h) of the types trnsim produces.
enum class SysTraceType : uint8_t {
  kModelLoad = 0,
  kNrtExecute = 1,
  kRuntimeExecute = 2,
  kNcExecRunning = 3,
  kNumericalErr = 6,
  kTimestampSyncPoint = 8,
};

enum class SysTracePhase : uint8_t { kStart, kStop };

// What an event carries beyond the common fields; each is emitted only when set.
struct SysTraceData {
  std::string model_name;                    // the NEFF's name
  std::optional<uint64_t> model_id;          // nc_exec_running start: the process's model id
  std::optional<uint64_t> exec_id;           // the run number (runtime_execute, hardware events)
  std::optional<uint32_t> device_core_idx;   // hardware events: the physical core (chip-local)
  std::optional<int> repeat;                 // nrt_execute start: runs asked for
  std::optional<uint64_t> duration_ps;       // nc_exec_running stop: the core's simulated time
  std::optional<uint64_t> nc_timestamp_ns;   // hardware events: device time
  std::optional<uint64_t> cpu_timestamp_ns;  // timestamp_sync_point: host time of the sync
  std::string tensor_name;                   // numerical_err: the output holding NaN/Inf
  std::optional<uint64_t> nan_count;         // numerical_err: its NaN elements
  std::optional<uint64_t> inf_count;         // numerical_err: its ±Inf elements
  std::string status;                        // stop of a span that can fail: "NRT_SUCCESS", ...
  // Not in `data`: the event's worker_gid, the collective rank of the model it belongs to
  // (nrt_load_collectives); -1 for events of no rank.
  int64_t worker_gid = -1;
};

struct SysTraceEvent {
  SysTraceType type = SysTraceType::kModelLoad;
  SysTracePhase phase = SysTracePhase::kStart;
  uint64_t id = 0;            // unique per record in the process, increasing in record order
  uint32_t nc_idx = 0;        // process-relative logical core
  uint64_t nc_local_id = 0;   // this core's record count when it was recorded (from 1)
  uint64_t tracking_id = 0;   // shared by a span's start and stop
  uint64_t thread_id = 0;     // the recording thread's kernel thread id
  uint64_t timestamp_ns = 0;  // host realtime ns since the epoch
  SysTraceData data;
};

}  // namespace trnsim::runtime::profiling
