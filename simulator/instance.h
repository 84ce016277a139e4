// Instance: one emulated EC2 instance — its chips, built from an InstanceSpec. One simulated
// clock per instance will live here with the event scheduler (issue: the chip model).
//
// Thread safety: the chip list is immutable after Create(); see Chip and HbmStack.
#pragma once

#include <memory>
#include <vector>

#include "simulator/chip/chip.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator {

class Instance {
 public:
  static StatusOr<std::unique_ptr<Instance>> Create(const InstanceSpec& spec);

  const InstanceSpec& spec() const { return spec_; }
  int chip_count() const { return static_cast<int>(chips_.size()); }
  Chip& chip(int index) { return *chips_[index]; }

 private:
  explicit Instance(const InstanceSpec& spec) : spec_(spec) {}

  const InstanceSpec& spec_;
  std::vector<std::unique_ptr<Chip>> chips_;
};

}  // namespace trnsim::simulator
