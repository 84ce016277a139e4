#include "tools/neuron_monitor/monitor_config.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>

namespace trnsim::neuron_monitor {
namespace {

using nlohmann::json;

constexpr std::chrono::milliseconds kDefaultPeriod{5000};
constexpr size_t kMaxConfigBytes = 1 << 20;

bool Known(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Reads an optional "period" of `object` into `period`; `where` names it in errors.
Status ReadPeriod(const json& object, const std::string& where, std::chrono::milliseconds* period) {
  if (!object.contains("period")) return Status::Ok();
  if (!object["period"].is_string()) return InvalidError(where + ": period is not a string");
  StatusOr<std::chrono::milliseconds> parsed = ParsePeriod(object["period"].get<std::string>());
  if (!parsed.ok()) return InvalidError(where + ": " + parsed.status().message());
  *period = *parsed;
  return Status::Ok();
}

StatusOr<std::vector<MetricConfig>> ReadMetrics(const json& list, const std::string& where,
                                                const std::vector<std::string>& known,
                                                std::chrono::milliseconds inherited) {
  if (!list.is_array()) return InvalidError(where + " is not an array");
  std::vector<MetricConfig> metrics;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const json& metric = list[i];
    if (!metric.is_object() || !metric.contains("type") || !metric["type"].is_string()) {
      return InvalidError(at + " is not an object with a string \"type\"");
    }
    MetricConfig config{metric["type"].get<std::string>(), inherited};
    if (!Known(known, config.type)) {
      return InvalidError(at + ": unknown metric type '" + config.type + "'");
    }
    TRNSIM_RETURN_IF_ERROR(ReadPeriod(metric, at, &config.period));
    metrics.push_back(std::move(config));
  }
  return metrics;
}

}  // namespace

const std::vector<std::string>& RuntimeMetricTypes() {
  static const std::vector<std::string> types = {"neuroncore_counters", "execution_stats",
                                                 "memory_used", "neuron_runtime_vcpu_usage"};
  return types;
}

const std::vector<std::string>& SystemMetricTypes() {
  static const std::vector<std::string> types = {"neuron_hw_counters", "vcpu_usage", "memory_info"};
  return types;
}

MonitorConfig DefaultConfig() {
  MonitorConfig config;
  RuntimeFilter all;
  for (const std::string& type : RuntimeMetricTypes())
    all.metrics.push_back({type, kDefaultPeriod});
  config.runtimes.push_back(std::move(all));
  for (const std::string& type : SystemMetricTypes()) {
    config.system_metrics.push_back({type, kDefaultPeriod});
  }
  return config;
}

StatusOr<std::chrono::milliseconds> ParsePeriod(const std::string& text) {
  static const std::regex shape("([0-9]{1,9})(ms|s|m|h)");
  std::smatch match;
  if (!std::regex_match(text, match, shape) || std::stoll(match[1]) == 0) {
    return InvalidError("'" + text + "' is not a period (a positive number and ms, s, m or h)");
  }
  const int64_t n = std::stoll(match[1]);
  const std::string unit = match[2];
  const int64_t ms = unit == "ms"  ? n
                     : unit == "s" ? n * 1000
                     : unit == "m" ? n * 60'000
                                   : n * 3'600'000;
  return std::chrono::milliseconds(ms);
}

StatusOr<MonitorConfig> ParseConfig(const std::string& json_text, const std::string& file_name) {
  const json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return InvalidError(file_name + ": not a JSON object");
  }
  MonitorConfig config;
  TRNSIM_RETURN_IF_ERROR(ReadPeriod(root, file_name, &config.period));
  if (root.contains("neuron_runtimes")) {
    const json& runtimes = root["neuron_runtimes"];
    if (!runtimes.is_array()) return InvalidError(file_name + ": neuron_runtimes is not an array");
    for (size_t i = 0; i < runtimes.size(); ++i) {
      const std::string at = file_name + ": neuron_runtimes[" + std::to_string(i) + "]";
      const json& entry = runtimes[i];
      if (!entry.is_object()) return InvalidError(at + " is not an object");
      RuntimeFilter filter;
      if (entry.contains("tag_filter")) {
        if (!entry["tag_filter"].is_string()) return InvalidError(at + ": tag_filter not a string");
        filter.tag_filter = entry["tag_filter"].get<std::string>();
        try {
          std::regex check(filter.tag_filter);
        } catch (const std::regex_error&) {
          return InvalidError(at + ": tag_filter '" + filter.tag_filter + "' is not a regex");
        }
      }
      std::chrono::milliseconds period = config.period;
      TRNSIM_RETURN_IF_ERROR(ReadPeriod(entry, at, &period));
      if (entry.contains("metrics")) {
        TRNSIM_ASSIGN_OR_RETURN(filter.metrics, ReadMetrics(entry["metrics"], at + ".metrics",
                                                            RuntimeMetricTypes(), period));
      }
      config.runtimes.push_back(std::move(filter));
    }
  }
  if (root.contains("system_metrics")) {
    TRNSIM_ASSIGN_OR_RETURN(config.system_metrics,
                            ReadMetrics(root["system_metrics"], file_name + ": system_metrics",
                                        SystemMetricTypes(), config.period));
  }
  return config;
}

StatusOr<MonitorConfig> ReadConfigFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return InvalidError("cannot read the config file " + path);
  std::string text;
  text.resize(kMaxConfigBytes + 1);
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(file.gcount()));
  if (text.size() > kMaxConfigBytes) return InvalidError(path + ": larger than 1 MiB");
  return ParseConfig(text, path);
}

}  // namespace trnsim::neuron_monitor
