#include "tools/neuron_monitor/report.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "simulator/spec/instance_spec.h"

namespace trnsim::neuron_monitor {
namespace {

using nlohmann::ordered_json;

constexpr const char* kCategories[] = {"constants", "model_code", "model_shared_scratchpad",
                                       "runtime_memory", "tensors"};

ordered_json HostBreakdown() {
  return {{"application_memory", 0}, {"constants", 0}, {"dma_buffers", 0}, {"tensors", 0}};
}

}  // namespace

double ReportBuilder::PeriodOf(const std::string& key, std::chrono::steady_clock::time_point now) {
  auto last = last_collected_.find(key);
  double seconds = 0;
  if (last != last_collected_.end()) {
    seconds = std::chrono::duration<double>(now - last->second).count();
  }
  last_collected_[key] = now;
  return seconds;
}

ordered_json ReportBuilder::InstanceInfo(const observe::InstanceView& view) {
  return {{"instance_name", ""},
          {"instance_id", view.instance_id},
          {"instance_type", view.instance_type},
          {"instance_availability_zone", ""},
          {"instance_availability_zone_id", ""},
          {"instance_region", ""},
          {"ami_id", ""},
          {"subnet_id", ""},
          {"error", ""}};
}

ordered_json ReportBuilder::HardwareInfo(const observe::InstanceView& view) {
  const simulator::InstanceSpec& spec = **simulator::FindInstanceSpec(view.instance_type);
  std::string type = spec.chip->name;
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return {{"neuron_device_type", type},
          {"neuron_device_version", spec.chip->neuron_device_version},
          {"neuroncore_version", spec.chip->neuroncore_version + (view.lnc == 2 ? "d" : "")},
          {"neuron_device_count", view.devices.size()},
          {"neuron_device_memory_size", spec.chip->HbmBytes()},
          {"neuroncore_per_device_count", spec.chip->physical_cores / view.lnc},
          {"logical_neuroncore_config", view.lnc},
          {"error", ""}};
}

void ReportBuilder::Collect(const observe::InstanceView& view,
                            const std::set<std::string>& due_runtime, const std::string& tag_filter,
                            const std::set<std::string>& due_system,
                            std::chrono::steady_clock::time_point now, ordered_json* report) {
  const simulator::InstanceSpec& spec = **simulator::FindInstanceSpec(view.instance_type);
  const int cores_per_stack = spec.chip->CoresPerHbmStack();
  const std::regex filter(tag_filter);
  ordered_json& runtimes = (*report)["neuron_runtime_data"];
  ordered_json previous = runtimes.is_array() ? runtimes : ordered_json::array();
  runtimes = ordered_json::array();
  for (const observe::ProcessView& process : view.processes) {
    if (!process.IsRuntimeUser()) continue;
    const std::string tag = std::to_string(process.pid);
    if (!std::regex_match(tag, filter)) continue;
    ordered_json entry;
    for (const auto& old : previous) {
      if (old["pid"] == process.pid) entry = old;  // groups not due keep their last values
    }
    entry["pid"] = process.pid;
    entry["address"] = view.daemon_address;
    entry["neuron_runtime_tag"] = tag;
    entry["error"] = "";
    ordered_json& groups = entry["report"];
    const std::string key = "pid " + tag + " ";
    if (due_runtime.count("neuroncore_counters")) {
      const double period = PeriodOf(key + "neuroncore_counters", now);
      ordered_json in_use = ordered_json::object();
      for (int physical : process.physical_cores) {
        uint64_t busy = 0;
        for (const observe::CoreView& core : view.cores) {
          if (core.physical_core == physical) busy = core.busy_ps;
        }
        auto last = last_busy_ps_.find(physical);
        const uint64_t delta =
            last != last_busy_ps_.end() && busy >= last->second ? busy - last->second : 0;
        last_busy_ps_[physical] = busy;
        const double util = period > 0 ? 100.0 * static_cast<double>(delta) * 1e-12 / period : 0;
        ordered_json& nc = in_use[std::to_string(physical / view.lnc)];
        if (nc.is_null()) nc = {{"neuroncore_utilization", 0.0}, {"flops", 0}, {"v3d", {}}};
        nc["v3d"]["nc_v3." + std::to_string(physical)] = {{"neuroncore_utilization", util}};
        nc["neuroncore_utilization"] = nc["neuroncore_utilization"].get<double>() + util / view.lnc;
      }
      groups["neuroncore_counters"] = {
          {"period", period}, {"neuroncores_in_use", std::move(in_use)}, {"error", ""}};
    }
    if (due_runtime.count("execution_stats")) {
      const uint64_t failed = process.failed_executions;
      const uint64_t ok = process.executions >= failed ? process.executions - failed : 0;
      groups["execution_stats"] = {
          {"period", PeriodOf(key + "execution_stats", now)},
          {"error_summary",
           {{"generic", failed},
            {"numerical", 0},
            {"transient", 0},
            {"model", 0},
            {"runtime", 0},
            {"hardware", 0}}},
          {"execution_summary",
           {{"completed", ok},
            {"completed_with_err", failed},
            {"completed_with_num_err", 0},
            {"timed_out", 0},
            {"incorrect_input", 0},
            {"failed_to_queue", 0}}},
          {"latency_stats", {{"total_latency", nullptr}, {"device_latency", nullptr}}},
          {"error", ""}};
    }
    if (due_runtime.count("memory_used")) {
      ordered_json per_core = ordered_json::object();
      uint64_t device_bytes = 0;
      for (const observe::ProcessMemory& memory : process.memory) {
        const int physical =
            memory.device * view.physical_cores_per_device + memory.hbm * cores_per_stack;
        ordered_json& nc = per_core[std::to_string(physical / view.lnc)];
        if (nc.is_null()) {
          for (const char* category : kCategories) nc[category] = 0;
        }
        if (nc.contains(memory.category)) {
          nc[memory.category] = nc[memory.category].get<uint64_t>() + memory.bytes;
        }
        device_bytes += memory.bytes;
      }
      groups["memory_used"] = {
          {"period", PeriodOf(key + "memory_used", now)},
          {"neuron_runtime_used_bytes",
           {{"host", 0},
            {"neuron_device", device_bytes},
            {"usage_breakdown",
             {{"host", HostBreakdown()}, {"neuroncore_memory_usage", std::move(per_core)}}}}},
          {"loaded_models", ordered_json::array()},
          {"error", ""}};
    }
    if (due_runtime.count("neuron_runtime_vcpu_usage")) {
      ordered_json usage = host_.ProcessVcpuUsage(process.pid);
      groups["neuron_runtime_vcpu_usage"] = {
          {"period", PeriodOf(key + "neuron_runtime_vcpu_usage", now)},
          {"vcpu_usage", usage["vcpu_usage"]},
          {"error", usage["error"]}};
    }
    if (groups.is_null()) groups = ordered_json::object();
    runtimes.push_back(std::move(entry));
  }

  ordered_json& system = (*report)["system_data"];
  if (system.is_null()) system = ordered_json::object();
  if (due_system.count("neuron_hw_counters")) {
    ordered_json devices = ordered_json::array();
    for (const observe::DeviceView& device : view.devices) {
      devices.push_back({{"neuron_device_index", device.index},
                         {"mem_ecc_corrected", 0},
                         {"mem_ecc_uncorrected", 0},
                         {"sram_ecc_uncorrected", 0},
                         {"sram_ecc_corrected", 0}});
    }
    system["neuron_hw_counters"] = {{"period", PeriodOf("neuron_hw_counters", now)},
                                    {"neuron_devices", std::move(devices)},
                                    {"error", ""}};
  }
  if (due_system.count("vcpu_usage")) {
    ordered_json usage = host_.VcpuUsage();
    usage["period"] = PeriodOf("vcpu_usage", now);
    system["vcpu_usage"] = std::move(usage);
  }
  if (due_system.count("memory_info")) {
    ordered_json info = host_.MemoryInfo();
    info["period"] = PeriodOf("memory_info", now);
    system["memory_info"] = std::move(info);
  }
  (*report)["instance_info"] = InstanceInfo(view);
  (*report)["neuron_hardware_info"] = HardwareInfo(view);
}

}  // namespace trnsim::neuron_monitor
