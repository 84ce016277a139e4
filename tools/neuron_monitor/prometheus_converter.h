// neuron-monitor's JSON reports turned into the Prometheus metrics AWS's
// neuron-monitor-prometheus.py exports (tools-driver-facts.md §3.7): same names, types, help
// texts and labels, so dashboards and alerts written for AWS's exporter work unchanged.
//
// Every metric carries the instance labels instance_name, instance_id, instance_type,
// availability_zone, region and subnet_id (taken from the first report's instance_info, as
// AWS's exporter does); runtime metrics add runtime_tag. Per report:
//  - runtime groups (of each runtime entry without an error):
//      neuroncore_counters      -> neuroncore_utilization_ratio{neuroncore} = utilization/100
//      neuron_runtime_vcpu_usage-> neuron_runtime_vcpu_usage_ratio{usage_type=user|system}
//      memory_used              -> neuron_runtime_memory_used_bytes{memory_location=host|
//                                  neuron_device}, neuroncore_memory_usage_<category>{neuroncore,
//                                  memory_location="None"} (AWS's exporter sets that label to
//                                  Python's None)
//      execution_stats          -> counters execution_errors_total{error_type},
//                                  execution_status_total{status_type} incremented by the
//                                  report's counts; execution_latency_seconds{percentile} from
//                                  total_latency when it is not null
//  - system groups: hardware_ecc_events_total{event_type, neuron_device_index} (counter),
//    system_vcpu_count, system_vcpu_usage_ratio{usage_type} (user = user+nice, system =
//    system+io_wait+irq+soft_irq, capped at 100%, /100), system_{memory,swap}_{total,used}_bytes;
//  - info metrics, set once: instance_info, neuron_hardware_info (adds neuron_device_count and
//    neuroncore_per_device_count).
// A report without runtime entries clears every runtime metric's samples (their families stay,
// as AWS's exporter leaves them); a runtime no longer reported loses its samples (AWS's
// exporter drops defunct processes since Neuron 2.25). System metrics are not cleared: AWS's
// exporter clears them too but refills them at once from the same report, which here may not
// hold every system group (see Apply).
// Families appear in the order they were first created, as prometheus_client's registry lists
// them.
//
// Errors: a group or runtime entry with a non-empty "error", or whose data is malformed (a
// missing key, a value of the wrong type, a negative count), is skipped with one message;
// nothing here throws or aborts on a bad report.
//
// Thread safety: a PrometheusConverter is used by one thread.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tools/neuron_monitor/prometheus_text.h"

namespace trnsim::neuron_monitor {

// `report` with only the groups named in `runtime_groups` (in each runtime entry's "report")
// and `system_groups` (in "system_data"): what to pass to Apply when groups are collected at
// different periods and the report keeps the last values of those not collected this time.
nlohmann::ordered_json CollectedGroups(const nlohmann::ordered_json& report,
                                       const std::set<std::string>& runtime_groups,
                                       const std::set<std::string>& system_groups);

class PrometheusConverter {
 public:
  // Folds one report into the metrics at wall-clock time `now_unix_s` (counters' _created).
  // `report` should hold only the groups collected in this period, so that each counter is
  // incremented by each period's counts exactly once. Returns one message per skipped part.
  std::vector<std::string> Apply(const nlohmann::ordered_json& report, double now_unix_s);

  const std::vector<PrometheusFamily>& families() const { return families_; }

 private:
  PrometheusFamily& Family(const std::string& name, const std::string& help, PrometheusType type,
                           bool runtime);
  // Applies one group; false (with `error` set) when it is skipped.
  bool Group(const std::string& name, const nlohmann::ordered_json& data,
             const PrometheusLabels& labels, double now, std::string* error);
  void NeuroncoreCounters(const nlohmann::ordered_json& data, const PrometheusLabels& labels);
  void RuntimeVcpu(const nlohmann::ordered_json& data, const PrometheusLabels& labels);
  void MemoryUsed(const nlohmann::ordered_json& data, const PrometheusLabels& labels);
  void ExecutionStats(const nlohmann::ordered_json& data, const PrometheusLabels& labels,
                      double now);
  void HwCounters(const nlohmann::ordered_json& data, const PrometheusLabels& labels, double now);
  void VcpuUsage(const nlohmann::ordered_json& data, const PrometheusLabels& labels);
  void MemoryInfo(const nlohmann::ordered_json& data, const PrometheusLabels& labels);
  void DropRuntimes(const std::set<std::string>& keep_tags);

  std::vector<PrometheusFamily> families_;  // in creation order
  std::set<std::string> runtime_families_;  // names of families runtime groups created
  bool have_instance_labels_ = false;
  PrometheusLabels instance_labels_;
  bool instance_info_set_ = false;
  bool hardware_info_set_ = false;
};

}  // namespace trnsim::neuron_monitor
