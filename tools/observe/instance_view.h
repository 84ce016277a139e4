// InstanceView: a snapshot of one emulated instance as the observation tools (neuron-ls, later
// neuron-top and neuron-monitor) show it — the instance, its devices with their logical cores,
// memory, links and host placement, and the processes using it. Plain values: a view is taken
// once (observe.h) and never changes; tools format it.
//
// Thread safety: a view is immutable data; share it freely.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "simulator/spec/instance_spec.h"

namespace trnsim::observe {

struct DeviceView {
  int index = 0;
  std::vector<int> logical_core_ids;  // instance-wide, the values NEURON_RT_VISIBLE_CORES takes
  uint64_t memory_bytes = 0;          // the device's HBM
  std::vector<int> connected;         // linked devices, neuron-ls order (instance_spec.h)
  std::string pci_bdf;                // short form "cc:00.0"
  std::string cpu_affinity;           // "48-95,144-191"
  int numa_node = -1;
};

// Device memory one process holds in one category on one HBM stack for one model (or none).
// `category` uses the driver's sysfs names: "tensors", "constants", "model_shared_scratchpad",
// "model_code", "runtime_memory". Summing every entry of a process gives its device memory.
struct ProcessMemory {
  int device = 0;
  int hbm = 0;
  std::string category;
  uint64_t bytes = 0;
  uint64_t model_id = 0;  // the runtime's model id the memory was allocated for; 0: no model
};

// One model a process has loaded (its programs on the daemon, grouped by the runtime's model
// id).
struct ModelView {
  uint64_t model_id = 0;            // the runtime's id (nrt_get_model_info order), never 0
  std::string name;                 // the NEFF's name as the runtime knows it
  std::string uuid;                 // 32 lowercase hex digits, from the NEFF header
  int device = 0;                   // the device its cores are on
  std::vector<int> physical_cores;  // instance-wide, ascending
  bool is_running = false;          // an execution of it is in flight
};

// One completed execution, as the daemon measured it. The daemon keeps each session's most
// recent ones (kRecentExecutions).
struct ExecutionSample {
  uint64_t finished_ms = 0;   // daemon uptime when it completed
  uint64_t wall_ns = 0;       // host time from the Execute call to its reply (total latency)
  uint64_t simulated_ps = 0;  // the chip model's time for it (device latency); 0 if it failed
  bool ok = true;             // completed with NRT_SUCCESS
};
inline constexpr int kRecentExecutions = 1024;

// One process attached to the instance (a daemon session).
struct ProcessView {
  uint64_t session_id = 0;
  int64_t pid = 0;
  std::string command;              // its command line, as it sent it
  std::string runtime_version;      // empty: not a runtime user (e.g. a tool such as neuron-ls)
  bool is_observer = false;         // the session the snapshot itself opened
  std::vector<int> physical_cores;  // instance-wide physical cores it holds, ascending
  std::vector<ProcessMemory> memory;
  uint32_t loaded_programs = 0;
  uint64_t executions = 0;         // completed, any status
  uint64_t failed_executions = 0;  // of which failed
  // Completed executions by the NRT status the daemon's Device returned (0 too); the counts add
  // up to `executions`.
  std::map<uint32_t, uint64_t> execution_statuses;
  uint32_t executions_running = 0;
  std::vector<ModelView> models;                     // ascending model id
  std::vector<ExecutionSample> recent_executions;    // oldest first, at most kRecentExecutions

  bool IsRuntimeUser() const { return !runtime_version.empty(); }
};

// One physical core's counters (daemon only).
struct CoreView {
  int physical_core = 0;          // instance-wide
  uint64_t owner_session_id = 0;  // 0: free
  uint64_t executions = 0;        // since the daemon started
  uint64_t busy_ps = 0;           // simulated time spent executing since the daemon started
  uint64_t busy_wall_ns = 0;      // host time an execution was in flight on it (utilisation)
  uint64_t flops = 0;             // floating-point operations of its completed executions
};

// One device's memory-error counters since the daemon started: the faults injected into its
// sessions' executions (docs/faults.md), named as the driver's sysfs counters.
struct DeviceErrorCounters {
  int device = 0;
  uint64_t mem_ecc_uncorrected = 0;             // hbm_ue
  uint64_t mem_ecc_repairable_uncorrected = 0;  // repairable_hbm_ue
  uint64_t sram_ecc_uncorrected = 0;            // nc_ue
};

struct InstanceView {
  std::string instance_type;  // "trn2.48xlarge"
  std::string instance_id;    // emulated (instance_id.h)
  int lnc = 2;                // physical cores per logical core
  int physical_cores_per_device = 0;
  std::string daemon_address;  // where the view came from; empty: the configured instance
  uint64_t daemon_uptime_ms = 0;  // the daemon's uptime when the view was taken; 0 without one
  std::vector<DeviceView> devices;
  std::vector<ProcessView> processes;  // ascending session id; empty without a daemon
  std::vector<CoreView> cores;         // every physical core, ascending; empty without a daemon
  // Per device, ascending; empty without a daemon (nothing injects faults then).
  std::vector<DeviceErrorCounters> device_errors;

  // The devices `process` uses: those holding one of its cores or some of its memory,
  // ascending.
  std::vector<int> DevicesOf(const ProcessView& process) const;
  // True when some device has a link to another one.
  bool HasLinks() const;
};

// The view of `spec` at `lnc` (1 or 2) with no processes: devices, cores, memory, links and
// placement from the spec tables.
InstanceView DescribeInstance(const simulator::InstanceSpec& spec, int lnc);

}  // namespace trnsim::observe
