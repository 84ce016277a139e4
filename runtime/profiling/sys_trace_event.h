// SysTraceEvent: one record of the system trace (nrt_sys_trace_*), as kept in a logical core's
// ring and handed to the JSON writer (sys_trace_json.h). A span (a model load, an nrt_execute,
// a run on the device) is two records, its start and its stop, sharing a tracking id, as in
// AWS's capture rings; docs/profiling.md §6 lists every field and when each type is produced.
//
// Times are nanoseconds of the host's realtime clock since the Unix epoch. Device spans
// (nc_exec_running) are the simulated run anchored at the host time the device began it:
// stop = start + the chip model's simulated duration (rounded up to whole ns; the exact value
// is in duration_ps).
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
};

enum class SysTracePhase : uint8_t { kStart, kStop };

// What an event carries beyond the common fields; each is emitted only when set.
struct SysTraceData {
  std::string model_name;                   // the NEFF's name
  std::optional<uint64_t> exec_id;          // runtime_execute / nc_exec_running: run number
  std::optional<uint32_t> device_core_idx;  // nc_exec_running: first physical core (chip-local)
  std::optional<int> repeat;                // nrt_execute start: runs asked for
  std::optional<uint64_t> duration_ps;      // nc_exec_running stop: simulated duration
  std::string status;                       // stop of a span that can fail: "NRT_SUCCESS", ...
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
