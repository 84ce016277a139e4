// Chip: one emulated Trainium chip — its spec and its HBM stacks. Engines, DMA and links join
// it as the chip model grows (issue: the chip model).
#pragma once

#include <memory>
#include <vector>

#include "simulator/memory/hbm_stack.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator {

class Chip {
 public:
  static StatusOr<std::unique_ptr<Chip>> Create(const ChipSpec& spec, int index);

  const ChipSpec& spec() const { return spec_; }
  int index() const { return index_; }
  HbmStack& hbm(int stack) { return *hbm_[stack]; }
  const HbmStack& hbm(int stack) const { return *hbm_[stack]; }

 private:
  Chip(const ChipSpec& spec, int index) : spec_(spec), index_(index) {}

  const ChipSpec& spec_;
  int index_;
  std::vector<std::unique_ptr<HbmStack>> hbm_;
};

}  // namespace trnsim::simulator
