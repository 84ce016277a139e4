#include "runtime/profiling/device_events.h"

namespace trnsim::runtime::profiling {
namespace {

uint64_t CeilNs(uint64_t ps) { return (ps + 999) / 1000; }

SysTraceData Base(const DeviceRun& run, const DeviceRunCore& core, uint64_t device_ns) {
  SysTraceData data;
  data.exec_id = run.exec_id;
  data.device_core_idx = core.device_core_idx;
  data.nc_timestamp_ns = device_ns;
  data.worker_gid = run.worker_gid;
  return data;
}

}  // namespace

void RecordDeviceEvents(SysTraceRecorder& recorder, const DeviceRun& run) {
  if (run.cores.empty()) return;
  // Every core of a run starts at the same device time, and its clock stands at the run's end
  // afterwards (driver/sim/device_clock.h): the sync point's device time.
  const uint64_t sync_device_ns = DeviceNs(run.cores.front().start_ps) + CeilNs(run.duration_ps);
  auto host = [&](uint64_t device_ns) {
    return DeviceToHostNs(device_ns, sync_device_ns, run.sync_cpu_ns);
  };

  if (recorder.Wants(SysTraceType::kNcExecRunning, run.nc_idx)) {
    for (const DeviceRunCore& core : run.cores) {
      const uint64_t start_ns = DeviceNs(core.start_ps);
      const uint64_t stop_ns = start_ns + CeilNs(core.duration_ps);
      SysTraceData start = Base(run, core, start_ns);
      start.model_name = run.model_name;
      start.model_id = run.model_id;
      SysTraceData stop = Base(run, core, stop_ns);
      stop.duration_ps = core.duration_ps;
      recorder.RecordSpan(SysTraceType::kNcExecRunning, run.nc_idx, host(start_ns), host(stop_ns),
                          std::move(start), std::move(stop));
    }
  }
  if (run.numerical_error && recorder.Wants(SysTraceType::kNumericalErr, run.nc_idx)) {
    SysTraceData data = Base(run, run.cores.front(), sync_device_ns);
    data.model_name = run.model_name;
    data.tensor_name = run.numerical_error->tensor_name;
    data.nan_count = run.numerical_error->nan_count;
    data.inf_count = run.numerical_error->inf_count;
    recorder.RecordSpan(SysTraceType::kNumericalErr, run.nc_idx, host(sync_device_ns),
                        host(sync_device_ns), data, data);
  }
  if (recorder.Wants(SysTraceType::kTimestampSyncPoint, run.nc_idx)) {
    for (const DeviceRunCore& core : run.cores) {
      SysTraceData data = Base(run, core, sync_device_ns);
      data.cpu_timestamp_ns = run.sync_cpu_ns;
      recorder.RecordSpan(SysTraceType::kTimestampSyncPoint, run.nc_idx, run.sync_cpu_ns,
                          run.sync_cpu_ns, data, data);
    }
  }
}

}  // namespace trnsim::runtime::profiling
