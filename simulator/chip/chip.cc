#include "simulator/chip/chip.h"

namespace trnsim::simulator {

StatusOr<std::unique_ptr<Chip>> Chip::Create(const ChipSpec& spec, int index) {
  std::unique_ptr<Chip> chip(new Chip(spec, index));
  for (int s = 0; s < spec.hbm_stacks; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(auto stack, HbmStack::Create(spec.hbm_bytes_per_stack));
    chip->hbm_.push_back(std::move(stack));
  }
  return chip;
}

}  // namespace trnsim::simulator
