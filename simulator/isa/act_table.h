// Activation-function table sets of ScalarE: which piece-wise-polynomial (PWP) table set an
// activation function needs loaded before ScalarE can evaluate it.
//
// AWS's NEFFs list the sets a kernel uses in Activation.json `activation_function_sets` (names
// such as `natural_log_exp_and_others`, `gelu_and_others`, `reciprocal_sqrt_and_small`,
// `reciprocal_and_small`; neuron-runtime/explore/work-with-neff-files.rst), and the runtime
// DMA-loads the tables (neuron-runtime/explore/device-memory.rst). Which function sits in which
// set is not published; the mapping below is trnsim's decision from the set names
// (docs/decisions.md, "ScalarE activation tables"). The chip model charges a table load when an
// activation needs a set other than the one loaded (docs/chip-model.md §2).
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "simulator/isa/ops.h"

namespace trnsim::isa {

enum class ActTableSet : uint8_t {
  kNone = 0,            // evaluated without a table (identity, square, relu, ...): never loads
  kNaturalLogExp = 1,   // natural_log_exp_and_others
  kGelu = 2,            // gelu_and_others
  kReciprocalSqrt = 3,  // reciprocal_sqrt_and_small
  kReciprocal = 4,      // reciprocal_and_small
};
inline constexpr int kActTableSetCount = 5;

// The set `func` needs; kNone for the functions every set carries.
ActTableSet TableSetOf(ActFunc func);
// AWS's set name ("natural_log_exp_and_others", ...); "" for kNone.
std::string_view ActTableSetName(ActTableSet set);
// The inverse of ActTableSetName; empty for an unknown name or "".
std::optional<ActTableSet> ActTableSetFromName(std::string_view name);

}  // namespace trnsim::isa
