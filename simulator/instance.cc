#include "simulator/instance.h"

namespace trnsim::simulator {

StatusOr<std::unique_ptr<Instance>> Instance::Create(const InstanceSpec& spec) {
  std::unique_ptr<Instance> instance(new Instance(spec));
  for (int c = 0; c < spec.chip_count; ++c) {
    TRNSIM_ASSIGN_OR_RETURN(auto chip, Chip::Create(*spec.chip, c));
    instance->chips_.push_back(std::move(chip));
  }
  return instance;
}

}  // namespace trnsim::simulator
