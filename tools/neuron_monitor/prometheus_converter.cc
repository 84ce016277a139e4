#include "tools/neuron_monitor/prometheus_converter.h"

#include <algorithm>
#include <stdexcept>

namespace trnsim::neuron_monitor {
namespace {

using nlohmann::ordered_json;

constexpr const char* kRuntimeGroups[] = {"neuroncore_counters", "neuron_runtime_vcpu_usage",
                                          "memory_used", "execution_stats"};
constexpr const char* kSystemGroups[] = {"neuron_hw_counters", "vcpu_usage", "memory_info"};
constexpr const char* kCategories[] = {"constants", "model_code", "model_shared_scratchpad",
                                       "runtime_memory", "tensors"};
constexpr const char* kEccEvents[] = {"mem_ecc_corrected", "mem_ecc_uncorrected",
                                      "sram_ecc_corrected", "sram_ecc_uncorrected"};

template <size_t N>
bool OneOf(const std::string& name, const char* const (&names)[N]) {
  return std::any_of(std::begin(names), std::end(names),
                     [&](const char* known) { return name == known; });
}

double Number(const ordered_json& value) {
  if (!value.is_number()) throw std::invalid_argument("not a number: " + value.dump());
  return value.get<double>();
}

double Count(const ordered_json& value) {
  const double count = Number(value);
  if (count < 0) throw std::invalid_argument("negative count " + value.dump());
  return count;
}

// Python's str(int(key)) of an index key such as "3".
std::string IndexLabel(const std::string& key) {
  size_t used = 0;
  const long long index = std::stoll(key, &used);
  if (used != key.size()) throw std::invalid_argument("not an index: " + key);
  return std::to_string(index);
}

std::string IndexLabel(const ordered_json& value) {
  if (!value.is_number_integer()) throw std::invalid_argument("not an index: " + value.dump());
  return std::to_string(value.get<long long>());
}

PrometheusLabels With(PrometheusLabels labels, const std::string& name, const std::string& value) {
  labels.emplace_back(name, value);
  return labels;
}

std::string TagOf(const PrometheusLabels& labels) {
  for (const auto& [name, value] : labels) {
    if (name == "runtime_tag") return value;
  }
  return "";
}

}  // namespace

ordered_json CollectedGroups(const ordered_json& report,
                             const std::set<std::string>& runtime_groups,
                             const std::set<std::string>& system_groups) {
  ordered_json collected = report;
  const auto keep_only = [](ordered_json* groups, const std::set<std::string>& names) {
    if (!groups->is_object()) return;
    for (auto it = groups->begin(); it != groups->end();) {
      it = names.count(it.key()) ? std::next(it) : groups->erase(it);
    }
  };
  if (collected.is_object() && collected.contains("neuron_runtime_data") &&
      collected["neuron_runtime_data"].is_array()) {
    for (ordered_json& runtime : collected["neuron_runtime_data"]) {
      if (runtime.is_object() && runtime.contains("report")) {
        keep_only(&runtime["report"], runtime_groups);
      }
    }
  }
  if (collected.is_object() && collected.contains("system_data")) {
    keep_only(&collected["system_data"], system_groups);
  }
  return collected;
}

// The reference stays valid until the next call (families_ may grow).
PrometheusFamily& PrometheusConverter::Family(const std::string& name, const std::string& help,
                                              PrometheusType type, bool runtime) {
  for (PrometheusFamily& family : families_) {
    if (family.name == name) return family;
  }
  if (runtime) runtime_families_.insert(name);
  families_.push_back({name, help, type, {}});
  return families_.back();
}

void PrometheusConverter::NeuroncoreCounters(const ordered_json& data,
                                             const PrometheusLabels& labels) {
  PrometheusFamily& f = Family("neuroncore_utilization_ratio", "NeuronCore utilization ratio",
                               PrometheusType::kGauge, true);
  for (const auto& [index, core] : data.at("neuroncores_in_use").items()) {
    f.Child(With(labels, "neuroncore", IndexLabel(index)), 0).value =
        Number(core.at("neuroncore_utilization")) / 100.0;
  }
}

void PrometheusConverter::RuntimeVcpu(const ordered_json& data, const PrometheusLabels& labels) {
  PrometheusFamily& f = Family("neuron_runtime_vcpu_usage_ratio", "Runtime vCPU utilization ratio",
                               PrometheusType::kGauge, true);
  for (const char* field : {"user", "system"}) {
    f.Child(With(labels, "usage_type", field), 0).value =
        Number(data.at("vcpu_usage").at(field)) / 100.0;
  }
}

void PrometheusConverter::MemoryUsed(const ordered_json& data, const PrometheusLabels& labels) {
  const ordered_json& used = data.at("neuron_runtime_used_bytes");
  PrometheusFamily& total = Family("neuron_runtime_memory_used_bytes", "Runtime memory used bytes",
                                   PrometheusType::kGauge, true);
  for (const char* location : {"host", "neuron_device"}) {
    total.Child(With(labels, "memory_location", location), 0).value = Number(used.at(location));
  }
  const ordered_json& per_core = used.at("usage_breakdown").at("neuroncore_memory_usage");
  for (const char* category : kCategories) {
    PrometheusFamily& f = Family(std::string("neuroncore_memory_usage_") + category,
                                 std::string("NeuronCore memory utilization for ") + category,
                                 PrometheusType::kGauge, true);
    for (const auto& [index, core] : per_core.items()) {
      const PrometheusLabels core_labels =
          With(With(labels, "memory_location", "None"), "neuroncore", IndexLabel(index));
      f.Child(core_labels, 0).value = Number(core.at(category));
    }
  }
}

void PrometheusConverter::ExecutionStats(const ordered_json& data, const PrometheusLabels& labels,
                                         double now) {
  PrometheusFamily& errors =
      Family("execution_errors", "Execution errors total", PrometheusType::kCounter, true);
  for (const auto& [type, count] : data.at("error_summary").items()) {
    errors.Child(With(labels, "error_type", type), now).value += Count(count);
  }
  PrometheusFamily& status =
      Family("execution_status", "Execution status total", PrometheusType::kCounter, true);
  for (const auto& [type, count] : data.at("execution_summary").items()) {
    status.Child(With(labels, "status_type", type), now).value += Count(count);
  }
  PrometheusFamily& latency = Family("execution_latency_seconds", "Execution latency in seconds",
                                     PrometheusType::kGauge, true);
  const ordered_json& total = data.at("latency_stats").at("total_latency");
  if (total.is_null()) return;
  for (const auto& [percentile, seconds] : total.items()) {
    latency.Child(With(labels, "percentile", percentile), 0).value = Number(seconds);
  }
}

void PrometheusConverter::HwCounters(const ordered_json& data, const PrometheusLabels& labels,
                                     double now) {
  PrometheusFamily& f =
      Family("hardware_ecc_events", "Hardware ecc events total", PrometheusType::kCounter, false);
  for (const ordered_json& device : data.at("neuron_devices")) {
    const std::string index = IndexLabel(device.at("neuron_device_index"));
    for (const char* event : kEccEvents) {
      f.Child(With(With(labels, "event_type", event), "neuron_device_index", index), now).value +=
          Count(device.at(event));
    }
  }
}

void PrometheusConverter::VcpuUsage(const ordered_json& data, const PrometheusLabels& labels) {
  Family("system_vcpu_count", "System vCPU count", PrometheusType::kGauge, false)
      .Child(labels, 0)
      .value = static_cast<double>(data.at("usage_data").size());
  PrometheusFamily& f = Family("system_vcpu_usage_ratio", "System CPU utilization ratio",
                               PrometheusType::kGauge, false);
  const ordered_json& average = data.at("average_usage");
  const double user = Number(average.at("user")) + Number(average.at("nice"));
  const double system = Number(average.at("system")) + Number(average.at("io_wait")) +
                        Number(average.at("irq")) + Number(average.at("soft_irq"));
  f.Child(With(labels, "usage_type", "user"), 0).value = std::min(user, 100.0) / 100.0;
  f.Child(With(labels, "usage_type", "system"), 0).value = std::min(system, 100.0) / 100.0;
}

void PrometheusConverter::MemoryInfo(const ordered_json& data, const PrometheusLabels& labels) {
  for (const char* kind : {"memory", "swap"}) {
    for (const char* stat : {"total_bytes", "used_bytes"}) {
      const std::string suffix = std::string(kind) + "_" + stat;
      Family("system_" + suffix, std::string("System ") + kind + " " + stat + " bytes",
             PrometheusType::kGauge, false)
          .Child(labels, 0)
          .value = Number(data.at(suffix));
    }
  }
}

bool PrometheusConverter::Group(const std::string& name, const ordered_json& data,
                                const PrometheusLabels& labels, double now, std::string* error) {
  try {
    const ordered_json& group_error = data.at("error");
    if (!group_error.is_string()) throw std::invalid_argument("error is not a string");
    if (!group_error.get<std::string>().empty()) {
      *error = group_error.get<std::string>();
      return false;
    }
    if (name == "neuroncore_counters") NeuroncoreCounters(data, labels);
    if (name == "neuron_runtime_vcpu_usage") RuntimeVcpu(data, labels);
    if (name == "memory_used") MemoryUsed(data, labels);
    if (name == "execution_stats") ExecutionStats(data, labels, now);
    if (name == "neuron_hw_counters") HwCounters(data, labels, now);
    if (name == "vcpu_usage") VcpuUsage(data, labels);
    if (name == "memory_info") MemoryInfo(data, labels);
    return true;
  } catch (const std::exception& e) {
    *error = std::string("malformed: ") + e.what();
    return false;
  }
}

void PrometheusConverter::DropRuntimes(const std::set<std::string>& keep_tags) {
  for (PrometheusFamily& family : families_) {
    if (!runtime_families_.count(family.name)) continue;
    std::erase_if(family.samples, [&](const PrometheusSample& sample) {
      return !keep_tags.count(TagOf(sample.labels));
    });
  }
}

std::vector<std::string> PrometheusConverter::Apply(const ordered_json& report, double now_unix_s) {
  std::vector<std::string> messages;
  if (!report.is_object()) return {"report is not a JSON object"};
  const auto string_at = [](const ordered_json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto object_at = [&](const char* key) -> const ordered_json* {
    const auto it = report.find(key);
    return it != report.end() && it->is_object() ? &*it : nullptr;
  };
  const ordered_json* instance = object_at("instance_info");
  if (!have_instance_labels_) {
    if (instance == nullptr) return {"report without instance_info"};
    instance_labels_ = {{"instance_name", string_at(*instance, "instance_name")},
                        {"instance_id", string_at(*instance, "instance_id")},
                        {"instance_type", string_at(*instance, "instance_type")},
                        {"availability_zone", string_at(*instance, "instance_availability_zone")},
                        {"region", string_at(*instance, "instance_region")},
                        {"subnet_id", string_at(*instance, "subnet_id")}};
    have_instance_labels_ = true;
  }

  std::set<std::string> tags;
  const auto runtimes = report.find("neuron_runtime_data");
  if (runtimes != report.end() && runtimes->is_array()) {
    for (const ordered_json& runtime : *runtimes) {
      if (!runtime.is_object()) continue;
      const std::string tag = string_at(runtime, "neuron_runtime_tag");
      tags.insert(tag);
      const std::string runtime_error = string_at(runtime, "error");
      if (!runtime_error.empty()) {
        messages.push_back("runtime " + tag + " error: " + runtime_error);
        continue;
      }
      const auto groups = runtime.find("report");
      if (groups == runtime.end() || !groups->is_object()) continue;
      const PrometheusLabels labels = With(instance_labels_, "runtime_tag", tag);
      for (const auto& [name, data] : groups->items()) {
        std::string error;
        if (OneOf(name, kRuntimeGroups) && !Group(name, data, labels, now_unix_s, &error)) {
          messages.push_back("error getting " + name + " for runtime tag " + tag + ": " + error);
        }
      }
    }
  }
  DropRuntimes(tags);  // no runtime at all: every runtime sample goes

  if (const ordered_json* system = object_at("system_data")) {
    for (const auto& [name, data] : system->items()) {
      std::string error;
      if (OneOf(name, kSystemGroups) && !Group(name, data, instance_labels_, now_unix_s, &error)) {
        messages.push_back("error getting " + name + ": " + error);
      }
    }
  }
  if (!instance_info_set_) {
    Family("instance", "EC2 instance information", PrometheusType::kInfo, false)
        .Child(instance_labels_, now_unix_s);
    instance_info_set_ = true;
  }
  const ordered_json* hardware = object_at("neuron_hardware_info");
  if (!hardware_info_set_ && hardware != nullptr) {
    const auto count = [&](const char* key) {
      const auto it = hardware->find(key);
      return it != hardware->end() && it->is_number_integer() ? std::to_string(it->get<long long>())
                                                              : std::string("None");
    };
    PrometheusLabels labels = {
        {"neuron_device_count", count("neuron_device_count")},
        {"neuroncore_per_device_count", count("neuroncore_per_device_count")}};
    labels.insert(labels.end(), instance_labels_.begin(), instance_labels_.end());
    Family("neuron_hardware", "Neuron Hardware Information", PrometheusType::kInfo, false)
        .Child(labels, now_unix_s);
    hardware_info_set_ = true;
  }
  return messages;
}

}  // namespace trnsim::neuron_monitor
