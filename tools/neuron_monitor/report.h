// One neuron-monitor report (tools-driver-facts.md §3.3–3.5) from an observe::InstanceView:
//   { "neuron_runtime_data": [ { "pid", "address", "neuron_runtime_tag", "error",
//                                "report": { <due per-process groups> } } ],
//     "system_data": { <due system groups> },
//     "instance_info": {...}, "neuron_hardware_info": {...} }
// Processes are the view's runtime users (daemon sessions with a runtime version); the tag is
// the pid (NEURON_PROCESS_TAG is not visible to trnsim), "address" the daemon's address.
// Per-process groups, from the daemon's counters (tools/observe/instance_view.h):
//  - neuroncore_counters: the logical cores it holds, "<nc>" -> {neuroncore_utilization,
//    flops, v3d: {"nc_v3.<physical>": {neuroncore_utilization}}}. A physical core's
//    utilisation is the increase of CoreView::busy_wall_ns (host time an execution was in
//    flight on it) over the wall-clock period, in % (capped at 100); a logical core's is the
//    mean of its physical cores'. flops is the increase of CoreView::flops over the increase of
//    busy_ps in simulated seconds — the rate the emulated chip achieves while busy, 0 when it
//    was idle — summed over the logical core's physical cores (they run side by side);
//  - execution_stats: the executions completed in the period (a process's first report: since
//    it attached), from the increase of ProcessView::execution_statuses, sorted into
//    error_summary and execution_summary by status (execution_outcomes.h); latency_stats from the
//    period's executions — the newest ProcessView::recent_executions, as many as completed in
//    the period (at most kRecentExecutions) — total_latency from wall_ns, device_latency from
//    simulated_ps (failed executions have none), each {p0, p1, p25, p50, p75, p99, p100} in
//    seconds by nearest rank, null when there is no sample;
//  - memory_used: device bytes by category per logical core (the HBM stack's first logical
//    core), host 0; loaded_models: one entry per ProcessView::models, {name, uuid, model_id,
//    is_running, subgraphs: {"sg_00": {memory_used_bytes: {host 0, neuron_device,
//    usage_breakdown: {host (0s), neuron_device: {constants, model_code, runtime_memory,
//    tensors}}}, neuroncore_index (instance-wide logical index of its first core),
//    neuron_device_index}}}, the bytes from the process's memory entries with its model_id (the
//    shared scratchpad belongs to no model, as in AWS's reports; trnsim has one subgraph per
//    model);
//  - neuron_runtime_vcpu_usage: from /proc/<pid> when the process is on this host.
// System groups: neuron_hw_counters per device, mem_ecc_uncorrected (hbm_ue and
// repairable_hbm_ue faults: AWS's report has no repairable key) and sram_ecc_uncorrected (nc_ue)
// from InstanceView::device_errors — their increase over the period (the first report: since
// the daemon started) — and the corrected counters 0 (trnsim injects no correctable errors).
// Every group carries "period" (seconds measured since it was last collected) and "error".
//
// Thread safety: a ReportBuilder is used by one thread.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tools/observe/host_stats.h"
#include "tools/observe/instance_view.h"

namespace trnsim::neuron_monitor {

// {"p0": s, "p1": s, "p25", "p50", "p75", "p99", "p100"} of `seconds` by nearest rank (the
// smallest value with at least p% of the values at or below it); null when empty.
nlohmann::ordered_json LatencyPercentiles(std::vector<double> seconds);

class ReportBuilder {
 public:
  // Updates `report` with the groups in `due` (names from monitor_config.h) for the processes
  // whose tag matches `tag_filter` (runtime groups) and the system groups; `now` is the time of
  // this collection.
  void Collect(const observe::InstanceView& view, const std::set<std::string>& due_runtime,
               const std::string& tag_filter, const std::set<std::string>& due_system,
               std::chrono::steady_clock::time_point now, nlohmann::ordered_json* report);

  // The always-present parts.
  static nlohmann::ordered_json InstanceInfo(const observe::InstanceView& view);
  static nlohmann::ordered_json HardwareInfo(const observe::InstanceView& view);

 private:
  struct CoreSample {  // a physical core's counters at its last collection
    bool seen = false;
    uint64_t busy_wall_ns = 0;
    uint64_t busy_ps = 0;
    uint64_t flops = 0;
  };
  struct Counts {  // a session's execution counts at its last execution_stats
    uint64_t executions = 0;
    std::map<uint32_t, uint64_t> statuses;  // ProcessView::execution_statuses
  };

  double PeriodOf(const std::string& key, std::chrono::steady_clock::time_point now);
  nlohmann::ordered_json NeuroncoreCounters(const observe::InstanceView& view,
                                            const observe::ProcessView& process, double period);
  nlohmann::ordered_json ExecutionStats(const observe::ProcessView& process, double period);
  nlohmann::ordered_json MemoryUsed(const observe::InstanceView& view,
                                    const observe::ProcessView& process, double period);

  observe::HostSampler host_;
  std::map<std::string, std::chrono::steady_clock::time_point> last_collected_;
  std::map<int, CoreSample> last_cores_;    // by physical core
  std::map<uint64_t, Counts> last_counts_;  // by session id
  std::map<int, observe::DeviceErrorCounters> last_device_errors_;  // by device index
};

}  // namespace trnsim::neuron_monitor
