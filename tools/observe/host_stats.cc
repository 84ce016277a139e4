#include "tools/observe/host_stats.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace trnsim::observe {
namespace {

using nlohmann::ordered_json;

constexpr const char* kCpuFields[] = {"user",    "nice", "system",  "idle",
                                      "io_wait", "irq",  "soft_irq"};

// /proc/stat's "cpu*" lines (first seven counters) and its context switch count.
bool ReadProcStat(std::map<std::string, std::vector<uint64_t>>* cpus, uint64_t* ctxt) {
  std::ifstream stat("/proc/stat");
  if (!stat) return false;
  std::string line;
  while (std::getline(stat, line)) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    if (name.rfind("cpu", 0) == 0) {
      std::vector<uint64_t> ticks(7, 0);
      for (uint64_t& t : ticks) fields >> t;
      (*cpus)[name] = ticks;
    } else if (name == "ctxt") {
      fields >> *ctxt;
    }
  }
  return !cpus->empty();
}

ordered_json Percentages(const std::vector<uint64_t>& now, const std::vector<uint64_t>& then) {
  uint64_t total = 0;
  std::vector<uint64_t> delta(7, 0);
  for (size_t i = 0; i < 7; ++i) {
    delta[i] = now[i] >= then[i] ? now[i] - then[i] : 0;
    total += delta[i];
  }
  ordered_json out;
  for (size_t i = 0; i < 7; ++i) {
    out[kCpuFields[i]] = total == 0 ? 0.0 : 100.0 * static_cast<double>(delta[i]) / total;
  }
  return out;
}

}  // namespace

HostSampler::HostSampler() { (void)VcpuUsage(); }

uint64_t HostSampler::TotalTicks() {
  std::map<std::string, std::vector<uint64_t>> cpus;
  uint64_t ctxt = 0;
  if (!ReadProcStat(&cpus, &ctxt)) return 0;
  uint64_t total = 0;
  for (uint64_t t : cpus["cpu"]) total += t;
  return total;
}

ordered_json HostSampler::VcpuUsage() {
  std::map<std::string, std::vector<uint64_t>> cpus;
  uint64_t ctxt = 0;
  ordered_json out;
  if (!ReadProcStat(&cpus, &ctxt)) {
    out["error"] = "cannot read /proc/stat";
    return out;
  }
  auto previous = [&](const std::string& name) {
    auto found = last_cpus_.find(name);
    return found == last_cpus_.end() ? std::vector<uint64_t>(7, 0) : found->second.ticks;
  };
  out["average_usage"] = Percentages(cpus["cpu"], previous("cpu"));
  ordered_json per_cpu = ordered_json::object();
  for (const auto& [name, ticks] : cpus) {
    if (name != "cpu") per_cpu[name.substr(3)] = Percentages(ticks, previous(name));
  }
  out["usage_data"] = std::move(per_cpu);
  out["context_switch_count"] = ctxt >= last_context_switches_ ? ctxt - last_context_switches_ : 0;
  out["error"] = "";
  for (const auto& [name, ticks] : cpus) last_cpus_[name] = CpuTimes{ticks};
  last_context_switches_ = ctxt;
  return out;
}

ordered_json HostSampler::MemoryInfo() const {
  std::ifstream meminfo("/proc/meminfo");
  std::map<std::string, uint64_t> kib;
  std::string name;
  uint64_t value = 0;
  std::string unit;
  while (meminfo >> name >> value) {
    std::getline(meminfo, unit);
    kib[name] = value;
  }
  ordered_json out;
  const uint64_t total = kib["MemTotal:"] * 1024, available = kib["MemAvailable:"] * 1024;
  const uint64_t swap = kib["SwapTotal:"] * 1024, swap_free = kib["SwapFree:"] * 1024;
  out["memory_total_bytes"] = total;
  out["memory_used_bytes"] = total >= available ? total - available : 0;
  out["swap_total_bytes"] = swap;
  out["swap_used_bytes"] = swap >= swap_free ? swap - swap_free : 0;
  out["error"] = kib.empty() ? "cannot read /proc/meminfo" : "";
  return out;
}

ordered_json HostSampler::ProcessVcpuUsage(int64_t pid) {
  ordered_json out;
  out["vcpu_usage"] = {{"user", 0.0}, {"system", 0.0}};
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (pid <= 0 || !std::getline(stat, text) || text.rfind(')') == std::string::npos) {
    out["error"] = "process " + std::to_string(pid) + " is not visible on this host";
    return out;
  }
  // Fields after the command's closing parenthesis: state is field 3; utime 14, stime 15.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  const uint64_t total = TotalTicks();
  auto last = last_process_.find(pid);
  if (last != last_process_.end() && total > last_process_total_[pid] &&
      utime >= last->second.first && stime >= last->second.second) {
    // /proc/stat's total counts every CPU; a process on all of them would be 100 % per CPU.
    const double cpus = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
    const double span = static_cast<double>(total - last_process_total_[pid]) / cpus;
    out["vcpu_usage"]["user"] = 100.0 * static_cast<double>(utime - last->second.first) / span;
    out["vcpu_usage"]["system"] = 100.0 * static_cast<double>(stime - last->second.second) / span;
  }
  last_process_[pid] = {utime, stime};
  last_process_total_[pid] = total;
  out["error"] = "";
  return out;
}

}  // namespace trnsim::observe
