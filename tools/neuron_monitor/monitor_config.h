// neuron-monitor's configuration file (tools-driver-facts.md §3.2), AWS's JSON format:
//   { "period": "1s",
//     "neuron_runtimes": [ { "tag_filter": ".*", "period": "2s",
//                            "metrics": [ {"type": "neuroncore_counters"}, ... ] } ],
//     "system_metrics": [ {"type": "vcpu_usage", "period": "5s"}, ... ] }
// A period is a number and a unit ("500ms", "1s", "2m", "1h"); the most specific one wins
// (metric, then runtimes entry, then root), default 5 s. tag_filter is an ECMAScript regex
// matched against the whole tag (a process's NEURON_PROCESS_TAG is not visible to trnsim, so the
// tag is its pid). Without a file every group is collected for every process every 5 s.
//
// Errors: a malformed file (not JSON, a wrong type, an unknown metric type, a bad period or
// regex) is NRT_INVALID naming the file and the problem, one line.
//
// Thread safety: values; parsing is reentrant.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/status_or.h"

namespace trnsim::neuron_monitor {

struct MetricConfig {
  std::string type;                  // e.g. "neuroncore_counters"
  std::chrono::milliseconds period;  // resolved (metric, entry, root, default)
};

struct RuntimeFilter {
  std::string tag_filter = ".*";
  std::vector<MetricConfig> metrics;
};

struct MonitorConfig {
  std::chrono::milliseconds period{5000};  // the root period
  std::vector<RuntimeFilter> runtimes;
  std::vector<MetricConfig> system_metrics;
};

// The per-process and system metric group names neuron-monitor knows.
const std::vector<std::string>& RuntimeMetricTypes();
const std::vector<std::string>& SystemMetricTypes();

// Every group for every process, every 5 s: the configuration without a file.
MonitorConfig DefaultConfig();

StatusOr<MonitorConfig> ParseConfig(const std::string& json_text, const std::string& file_name);
StatusOr<MonitorConfig> ReadConfigFile(const std::string& path);

// "1s" -> 1000 ms; NRT_INVALID for anything but a positive number and ms, s, m or h.
StatusOr<std::chrono::milliseconds> ParsePeriod(const std::string& text);

}  // namespace trnsim::neuron_monitor
