// HealthTracker: the health rules, over a sequence of the daemon's Status answers (or failures
// to get one). Pure bookkeeping — HealthMonitor (health_monitor.h) does the polling.
//
// Rules (tools/device_plugin/README.md "Health"):
//  - A device is Unhealthy once the sum of its chip's uncorrected memory-error counters
//    (StatusResponse.chip_errors: mem_ecc_uncorrected, mem_ecc_repairable_uncorrected,
//    sram_ecc_uncorrected — faults injected by TRNSIM_FAULTS, docs/faults.md) is above what it
//    was when the tracker first reached the daemon. The counters are per chip, so every
//    logical core of that device is Unhealthy with it. Correctable errors are not counted: they
//    do not take a device out of service (assumption, as AWS's node problem detector treats
//    only uncorrectable errors as fatal).
//  - Every device is Unhealthy while the daemon is unreachable (any failed Status read), or when
//    it reports an instance type other than the one advertised (a daemon restarted as another
//    instance: the advertised IDs no longer mean anything).
//  - A daemon that restarted (its uptime went down, or a counter went below its baseline) is a
//    clean instance: the baseline becomes zero, so the devices are Healthy again unless errors
//    are counted on the new daemon.
//
// Thread safety: none; HealthMonitor owns one under its lock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "tools/observe/daemon_source.h"

namespace trnsim::device_plugin {

class HealthTracker {
 public:
  HealthTracker(std::string instance_type, int device_count);

  // Takes one poll's outcome. True when some device's health changed (then `Describe()` says
  // why in one line).
  bool Observe(const StatusOr<observe::DaemonStatus>& status);

  bool reachable() const { return reachable_; }
  // Per device, in device order. All false before the first Observe.
  const std::vector<bool>& healthy() const { return healthy_; }
  // One line for the log: the daemon's state and the Unhealthy devices.
  std::string Describe() const;

 private:
  std::string instance_type_;
  bool reachable_ = false;
  std::string problem_;  // why every device is Unhealthy; empty when the daemon answers well
  bool have_baseline_ = false;
  uint64_t last_uptime_ms_ = 0;
  std::vector<uint64_t> baseline_;  // per device, the uncorrected errors at the baseline
  std::vector<uint64_t> errors_;    // per device, the last read
  std::vector<bool> healthy_;
};

}  // namespace trnsim::device_plugin
