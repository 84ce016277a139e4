// One neuron-monitor report (tools-driver-facts.md §3.3–3.5) from an observe::InstanceView:
//   { "neuron_runtime_data": [ { "pid", "address", "neuron_runtime_tag", "error",
//                                "report": { <due per-process groups> } } ],
//     "system_data": { <due system groups> },
//     "instance_info": {...}, "neuron_hardware_info": {...} }
// Processes are the view's runtime users (daemon sessions with a runtime version); the tag is
// the pid (NEURON_PROCESS_TAG is not visible to trnsim), "address" the daemon's address.
// Per-process groups:
//  - neuroncore_counters: the logical cores it holds, "<nc>" -> {neuroncore_utilization: % of
//    the wall-clock period the core spent executing in simulated time, flops: 0 (not counted
//    by trnsim), v3d: {"nc_v3.<physical>": {neuroncore_utilization}}};
//  - execution_stats: since the process attached: completed (without error),
//    completed_with_err (failed), the other summary and error keys 0 (generic = failed),
//    latency_stats null (not measured);
//  - memory_used: device bytes by category per logical core (the HBM stack's first logical
//    core), host 0, loaded_models [] (the daemon reports program counts, not models);
//  - neuron_runtime_vcpu_usage: from /proc/<pid> when the process is on this host.
// Every group carries "period" (seconds measured since it was last collected) and "error".
//
// Thread safety: a ReportBuilder is used by one thread.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tools/observe/host_stats.h"
#include "tools/observe/instance_view.h"

namespace trnsim::neuron_monitor {

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
  double PeriodOf(const std::string& key, std::chrono::steady_clock::time_point now);

  observe::HostSampler host_;
  std::map<std::string, std::chrono::steady_clock::time_point> last_collected_;
  std::map<int, uint64_t> last_busy_ps_;  // physical core -> busy_ps at the last collection
};

}  // namespace trnsim::neuron_monitor
