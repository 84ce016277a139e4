// Numerical-error reporting (NEURON_RT_NUMERICAL_ERRORS_VERBOSITY=critical or
// NEURON_FAIL_ON_NAN=1): after an execution that completed, every floating-point output the
// NEFF declares is scanned for NaN and ±Inf; the first output holding any makes the execution
// NRT_EXEC_COMPLETED_WITH_NUM_ERR (1003) — the outputs are written, as on hardware — with a
// message naming the output, the counts and the first element. AWS turned this reporting off
// by default in runtime 2.25; so does trnsim.
//
// Integer outputs are never scanned. Thread safety: a pure function of its arguments.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"
#include "simulator/isa/dtype.h"

namespace trnsim::runtime::execution {

struct NonFiniteCount {
  uint64_t nan = 0;
  uint64_t inf = 0;
  uint64_t first = 0;  // element index of the first non-finite value (valid when any)
  bool any() const { return nan + inf > 0; }
};

// Counts the NaN and ±Inf elements of `bytes` read as `dtype` (all zero for integer dtypes).
NonFiniteCount CountNonFinite(isa::Dtype dtype, std::span<const uint8_t> bytes);

// OK, or NRT_EXEC_COMPLETED_WITH_NUM_ERR naming output `name` when `count` has any.
Status NumericalErrorStatus(const std::string& name, isa::Dtype dtype, const NonFiniteCount& count);

}  // namespace trnsim::runtime::execution
