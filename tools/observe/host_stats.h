// The host's CPU and memory figures the observation tools show (neuron-monitor's vcpu_usage,
// memory_info and neuron_runtime_vcpu_usage; neuron-top's vCPU panel), read from /proc.
// Percentages are of the interval between two samples; the first report's interval starts when
// the sampler was made.
//
// Errors: an unreadable /proc file yields zeros and a non-empty `error` in that group, never a
// failure of the whole report.
//
// Thread safety: a HostSampler is used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace trnsim::observe {

class HostSampler {
 public:
  HostSampler();

  // {"average_usage": {user, nice, system, idle, io_wait, irq, soft_irq}, "usage_data":
  // {"<cpu>": {...}}, "context_switch_count": n, "error": ""} over the interval since the last
  // call.
  nlohmann::ordered_json VcpuUsage();
  // {"memory_total_bytes", "memory_used_bytes", "swap_total_bytes", "swap_used_bytes", "error"}.
  nlohmann::ordered_json MemoryInfo() const;
  // {"vcpu_usage": {"user": %, "system": %}, "error": ""} of process `pid` since the last call
  // for it; an error when the process is not on this host.
  nlohmann::ordered_json ProcessVcpuUsage(int64_t pid);

 private:
  struct CpuTimes {
    std::vector<uint64_t> ticks;  // user nice system idle iowait irq softirq
  };
  std::map<std::string, CpuTimes> last_cpus_;
  uint64_t last_context_switches_ = 0;
  std::map<int64_t, std::pair<uint64_t, uint64_t>> last_process_;  // pid -> (utime, stime)
  std::map<int64_t, uint64_t> last_process_total_;                 // pid -> total cpu ticks
  uint64_t TotalTicks();
};

}  // namespace trnsim::observe
