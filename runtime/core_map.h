// CoreMap: where a process-relative logical core (vnc) lives on the instance.
// vnc k of the process is instance-wide logical core first_visible_vnc + k, made of physical
// cores [a*lnc, a*lnc + lnc) for that absolute index a; those sit on chip
// (a*lnc) / cores_per_chip and use that chip's HBM stack (local core) / cores_per_hbm.
#pragma once

#include "runtime/config.h"

namespace trnsim::runtime {

struct CoreLocation {
  int absolute_vnc = 0;     // instance-wide logical core index
  int first_physical = 0;   // instance-wide physical core index
  int physical_count = 0;   // == lnc
  int chip = 0;
  int hbm = 0;
};

class CoreMap {
 public:
  explicit CoreMap(const RuntimeConfig& config) : config_(config) {}

  int visible_count() const { return config_.visible_vnc_count; }
  bool IsVisible(int vnc) const { return vnc >= 0 && vnc < config_.visible_vnc_count; }
  // `vnc` must be visible.
  CoreLocation Locate(int vnc) const;

 private:
  RuntimeConfig config_;
};

}  // namespace trnsim::runtime
