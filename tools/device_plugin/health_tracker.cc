#include "tools/device_plugin/health_tracker.h"

namespace trnsim::device_plugin {
namespace {

uint64_t Uncorrected(const observe::DeviceErrorCounters& counters) {
  return counters.mem_ecc_uncorrected + counters.mem_ecc_repairable_uncorrected +
         counters.sram_ecc_uncorrected;
}

}  // namespace

HealthTracker::HealthTracker(std::string instance_type, int device_count)
    : instance_type_(std::move(instance_type)),
      problem_("the daemon has not been read yet"),
      baseline_(size_t(device_count), 0),
      errors_(size_t(device_count), 0),
      healthy_(size_t(device_count), false) {}

bool HealthTracker::Observe(const StatusOr<observe::DaemonStatus>& status) {
  std::vector<bool> healthy(healthy_.size(), false);
  reachable_ = status.ok();
  if (!status.ok()) {
    problem_ = status.status().message();
  } else if (status->instance == nullptr || status->instance->type_name != instance_type_) {
    problem_ = "the daemon now emulates " +
               (status->instance ? status->instance->type_name : std::string("nothing")) +
               ", not the advertised " + instance_type_;
  } else {
    problem_.clear();
    std::vector<uint64_t> errors(healthy_.size(), 0);
    for (const observe::DeviceErrorCounters& counters : status->device_errors) {
      if (counters.device >= 0 && size_t(counters.device) < errors.size()) {
        errors[size_t(counters.device)] = Uncorrected(counters);
      }
    }
    bool restarted = have_baseline_ && status->uptime_ms < last_uptime_ms_;
    for (size_t d = 0; d < errors.size(); ++d) restarted |= errors[d] < baseline_[d];
    if (!have_baseline_) {
      baseline_ = errors;  // errors counted before the plugin watched are not held against it
      have_baseline_ = true;
    } else if (restarted) {
      baseline_.assign(errors.size(), 0);  // a new daemon: all of its errors are new
    }
    last_uptime_ms_ = status->uptime_ms;
    errors_ = errors;
    for (size_t d = 0; d < errors.size(); ++d) healthy[d] = errors[d] <= baseline_[d];
  }
  const bool changed = healthy != healthy_;
  healthy_ = std::move(healthy);
  return changed;
}

std::string HealthTracker::Describe() const {
  if (!problem_.empty()) return "every device Unhealthy: " + problem_;
  std::string unhealthy;
  for (size_t d = 0; d < healthy_.size(); ++d) {
    if (healthy_[d]) continue;
    unhealthy += (unhealthy.empty() ? "" : ", ") + std::string("neuron") + std::to_string(d) +
                 " (" + std::to_string(errors_[d] - baseline_[d]) + " uncorrected errors)";
  }
  return unhealthy.empty() ? "every device Healthy" : "Unhealthy: " + unhealthy;
}

}  // namespace trnsim::device_plugin
