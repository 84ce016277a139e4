#include "tools/neuron_monitor/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "simulator/spec/instance_spec.h"
#include "tools/neuron_monitor/execution_outcomes.h"

namespace trnsim::neuron_monitor {
namespace {

using nlohmann::ordered_json;

constexpr const char* kCategories[] = {"constants", "model_code", "model_shared_scratchpad",
                                       "runtime_memory", "tensors"};

// A model's own memory: the shared scratchpad belongs to no model (as in AWS's reports).
constexpr const char* kModelCategories[] = {"constants", "model_code", "runtime_memory", "tensors"};

ordered_json HostBreakdown() {
  return {{"application_memory", 0}, {"constants", 0}, {"dma_buffers", 0}, {"tensors", 0}};
}

}  // namespace

ordered_json LatencyPercentiles(std::vector<double> seconds) {
  if (seconds.empty()) return nullptr;
  std::sort(seconds.begin(), seconds.end());
  ordered_json out = ordered_json::object();
  for (int p : {0, 1, 25, 50, 75, 99, 100}) {
    // Nearest rank: the smallest value with at least p% of the values at or below it.
    const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * seconds.size()));
    out["p" + std::to_string(p)] = seconds[rank > 0 ? rank - 1 : 0];
  }
  return out;
}

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

ordered_json ReportBuilder::NeuroncoreCounters(const observe::InstanceView& view,
                                               const observe::ProcessView& process, double period) {
  ordered_json in_use = ordered_json::object();
  for (int physical : process.physical_cores) {
    observe::CoreView core;
    for (const observe::CoreView& c : view.cores) {
      if (c.physical_core == physical) core = c;
    }
    CoreSample& last = last_cores_[physical];
    const bool known = last.seen && core.busy_wall_ns >= last.busy_wall_ns &&
                       core.busy_ps >= last.busy_ps && core.flops >= last.flops;
    const uint64_t wall_ns = known ? core.busy_wall_ns - last.busy_wall_ns : 0;
    const uint64_t busy_ps = known ? core.busy_ps - last.busy_ps : 0;
    const uint64_t flops = known ? core.flops - last.flops : 0;
    last = {true, core.busy_wall_ns, core.busy_ps, core.flops};
    // Share of the wall-clock period an execution was in flight (capped: the daemon's and this
    // process's clocks sample the period at slightly different moments).
    const double util =
        period > 0 ? std::min(100.0, 100.0 * static_cast<double>(wall_ns) * 1e-9 / period) : 0;
    // FLOPs per simulated second while the core was busy.
    const double rate =
        busy_ps > 0 ? static_cast<double>(flops) / (static_cast<double>(busy_ps) * 1e-12) : 0;
    ordered_json& nc = in_use[std::to_string(physical / view.lnc)];
    if (nc.is_null()) nc = {{"neuroncore_utilization", 0.0}, {"flops", 0.0}, {"v3d", {}}};
    nc["v3d"]["nc_v3." + std::to_string(physical)] = {{"neuroncore_utilization", util}};
    nc["neuroncore_utilization"] = nc["neuroncore_utilization"].get<double>() + util / view.lnc;
    nc["flops"] = nc["flops"].get<double>() + rate;
  }
  return {{"period", period}, {"neuroncores_in_use", std::move(in_use)}, {"error", ""}};
}

ordered_json ReportBuilder::ExecutionStats(const observe::ProcessView& process, double period) {
  Counts& last = last_counts_[process.session_id];
  // A process's first report counts everything since it attached; later ones the period's.
  const uint64_t executions = process.executions >= last.executions
                                  ? process.executions - last.executions
                                  : process.executions;
  std::map<uint32_t, uint64_t> period_statuses;
  for (const auto& [code, count] : process.execution_statuses) {
    const uint64_t before = last.statuses.count(code) ? last.statuses.at(code) : 0;
    const uint64_t increase = count >= before ? count - before : count;
    if (increase > 0) period_statuses[code] = increase;
  }
  last = {process.executions, process.execution_statuses};
  ExecutionOutcomes outcomes = SummarizeOutcomes(period_statuses);
  // The period's executions are the newest `executions` samples (oldest first).
  const size_t fresh = std::min<uint64_t>(executions, process.recent_executions.size());
  std::vector<double> total_s, device_s;
  for (size_t i = process.recent_executions.size() - fresh; i < process.recent_executions.size();
       ++i) {
    const observe::ExecutionSample& sample = process.recent_executions[i];
    if (sample.wall_ns > 0) total_s.push_back(static_cast<double>(sample.wall_ns) * 1e-9);
    if (sample.simulated_ps > 0) {
      device_s.push_back(static_cast<double>(sample.simulated_ps) * 1e-12);
    }
  }
  return {{"period", period},
          {"error_summary", std::move(outcomes.error_summary)},
          {"execution_summary", std::move(outcomes.execution_summary)},
          {"latency_stats",
           {{"total_latency", LatencyPercentiles(std::move(total_s))},
            {"device_latency", LatencyPercentiles(std::move(device_s))}}},
          {"error", ""}};
}

ordered_json ReportBuilder::MemoryUsed(const observe::InstanceView& view,
                                       const observe::ProcessView& process, double period) {
  const simulator::InstanceSpec& spec = **simulator::FindInstanceSpec(view.instance_type);
  const int cores_per_stack = spec.chip->CoresPerHbmStack();
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
  ordered_json models = ordered_json::array();
  for (const observe::ModelView& model : process.models) {
    ordered_json breakdown = ordered_json::object();
    for (const char* category : kModelCategories) breakdown[category] = 0;
    uint64_t model_bytes = 0;
    for (const observe::ProcessMemory& memory : process.memory) {
      if (memory.model_id != model.model_id || !breakdown.contains(memory.category)) continue;
      breakdown[memory.category] = breakdown[memory.category].get<uint64_t>() + memory.bytes;
      model_bytes += memory.bytes;
    }
    const int first_core = model.physical_cores.empty() ? 0 : model.physical_cores.front();
    ordered_json subgraph = {
        {"memory_used_bytes",
         {{"host", 0},
          {"neuron_device", model_bytes},
          {"usage_breakdown",
           {{"host", HostBreakdown()}, {"neuron_device", std::move(breakdown)}}}}},
        {"neuroncore_index", first_core / view.lnc},
        {"neuron_device_index", model.device}};
    models.push_back({{"name", model.name},
                      {"uuid", model.uuid},
                      {"model_id", model.model_id},
                      {"is_running", model.is_running},
                      {"subgraphs", {{"sg_00", std::move(subgraph)}}}});
  }
  return {{"period", period},
          {"neuron_runtime_used_bytes",
           {{"host", 0},
            {"neuron_device", device_bytes},
            {"usage_breakdown",
             {{"host", HostBreakdown()}, {"neuroncore_memory_usage", std::move(per_core)}}}}},
          {"loaded_models", std::move(models)},
          {"error", ""}};
}

void ReportBuilder::Collect(const observe::InstanceView& view,
                            const std::set<std::string>& due_runtime, const std::string& tag_filter,
                            const std::set<std::string>& due_system,
                            std::chrono::steady_clock::time_point now, ordered_json* report) {
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
      groups["neuroncore_counters"] =
          NeuroncoreCounters(view, process, PeriodOf(key + "neuroncore_counters", now));
    }
    if (due_runtime.count("execution_stats")) {
      groups["execution_stats"] = ExecutionStats(process, PeriodOf(key + "execution_stats", now));
    }
    if (due_runtime.count("memory_used")) {
      groups["memory_used"] = MemoryUsed(view, process, PeriodOf(key + "memory_used", now));
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

  for (auto it = last_counts_.begin(); it != last_counts_.end();) {  // forget ended sessions
    const bool alive = std::any_of(view.processes.begin(), view.processes.end(),
                                   [&](const auto& p) { return p.session_id == it->first; });
    it = alive ? std::next(it) : last_counts_.erase(it);
  }

  ordered_json& system = (*report)["system_data"];
  if (system.is_null()) system = ordered_json::object();
  if (due_system.count("neuron_hw_counters")) {
    ordered_json devices = ordered_json::array();
    for (const observe::DeviceView& device : view.devices) {
      observe::DeviceErrorCounters now_errors;
      for (const observe::DeviceErrorCounters& e : view.device_errors) {
        if (e.device == device.index) now_errors = e;
      }
      // The period's increase (the first report: since the daemon started); a daemon that
      // restarted counts from zero again.
      observe::DeviceErrorCounters& last = last_device_errors_[device.index];
      auto increase = [](uint64_t now_value, uint64_t last_value) {
        return now_value >= last_value ? now_value - last_value : now_value;
      };
      const uint64_t mem = increase(
          now_errors.mem_ecc_uncorrected + now_errors.mem_ecc_repairable_uncorrected,
          last.mem_ecc_uncorrected + last.mem_ecc_repairable_uncorrected);
      const uint64_t sram = increase(now_errors.sram_ecc_uncorrected, last.sram_ecc_uncorrected);
      last = now_errors;
      devices.push_back({{"neuron_device_index", device.index},
                         {"mem_ecc_corrected", 0},
                         {"mem_ecc_uncorrected", mem},
                         {"sram_ecc_uncorrected", sram},
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
