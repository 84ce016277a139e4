// DeviceEvents: the hardware events one run leaves in the system trace (docs/profiling.md §6),
// in device time and on the host clock.
//
// A run on a logical core of n physical cores gives, for each physical core, in this order:
//   nc_exec_running       a span from the core's device start to its device end (its own
//                         simulated duration, rounded up to whole ns), start data: model_name,
//                         model_id, exec_id, device_core_idx, nc_timestamp_ns; stop data:
//                         exec_id, device_core_idx, duration_ps (exact), nc_timestamp_ns;
// then, when an output held NaN/Inf, one numerical_err (a zero-length span at the run's device
// end, on the first physical core: exec_id, model_name, tensor_name, nan_count, inf_count,
// device_core_idx, nc_timestamp_ns), then for each physical core one timestamp_sync_point (a
// zero-length span: exec_id, device_core_idx, nc_timestamp_ns = the core's device clock after
// the run, cpu_timestamp_ns = the host time the runtime learned the run had ended).
//
// Every one of these events has timestamp_ns = sync_cpu + (event_device - sync_device), using
// the sync point of its own core and run — AWS's documented adjustment of hardware timestamps
// (archive/profiler/neuron-profiler-2-0-beta-user-guide.rst, "Adjusting Hardware Timestamps").
// The device clock only advances while the device runs (driver/sim/device_clock.h), so the
// sync point pairs the run's device end with the host time the result came back.
//
// Thread safety: RecordDeviceEvents is reentrant (the recorder synchronises itself).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/profiling/sys_trace_recorder.h"

namespace trnsim::runtime::profiling {

// One physical core's part of a run, as the device reported it.
struct DeviceRunCore {
  uint32_t device_core_idx = 0;  // chip-local physical core
  uint64_t start_ps = 0;         // its device clock at the start (a multiple of 1,000)
  uint64_t duration_ps = 0;      // its simulated duration
};

// NaN/Inf found in an output of the run (runtime/execution/numerical_check.h).
struct DeviceNumericalError {
  std::string tensor_name;
  uint64_t nan_count = 0;
  uint64_t inf_count = 0;
};

struct DeviceRun {
  uint32_t nc_idx = 0;  // process-relative logical core
  uint64_t exec_id = 0;
  std::string model_name;
  uint64_t model_id = 0;
  int64_t worker_gid = -1;           // the model's collective rank, -1 for none
  std::vector<DeviceRunCore> cores;  // in physical-core order
  uint64_t duration_ps = 0;          // the run's (its longest core)
  uint64_t sync_cpu_ns = 0;          // host realtime when the runtime learned the run had ended
  std::optional<DeviceNumericalError> numerical_error;
};

// Device ns of an instant `ps` of device time that is a whole number of ns.
inline uint64_t DeviceNs(uint64_t ps) { return ps / 1000; }
// The host-clock timestamp of an event at device time `event_device_ns`, through a sync point
// (AWS's formula).
inline uint64_t DeviceToHostNs(uint64_t event_device_ns, uint64_t sync_device_ns,
                               uint64_t sync_cpu_ns) {
  return sync_cpu_ns + event_device_ns - sync_device_ns;
}

// Records the run's hardware events that `recorder` wants (by type and core).
void RecordDeviceEvents(SysTraceRecorder& recorder, const DeviceRun& run);

}  // namespace trnsim::runtime::profiling
