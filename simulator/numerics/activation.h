// The activation functions of `activation` (docs/isa.md §6.4, docs/numerics.md §6). trnsim
// evaluates the exact function in double precision from the fp32 input and rounds the result to
// fp32 once; the hardware uses piecewise-polynomial tables whose error against this is
// unpublished. Pure functions, thread-safe.
#pragma once

#include "simulator/isa/ops.h"

namespace trnsim::numerics {

// f(x) for `func`. `param` is the prelu slope α (the instruction's `alpha` immediate) and is
// ignored by every other function. Outside a function's valid input range (ActivationInRange)
// the hardware output is invalid; trnsim still returns the exact value (e.g. sin(9) = 0.412...,
// log(-1) = NaN). NaN inputs give NaN.
float ApplyActivation(isa::ActFunc func, float x, float param = 0.0f);

// Whether x lies in the documented valid input range of `func` (facts §4.1): all inputs except
// log [2^-64, 2^64], sin [-π, π], arctan [-π/2, π/2], sqrt [2^-116, 2^118],
// rsqrt [2^-87, 2^97], reciprocal ±[2^-42, 2^42]. NaN is never in range.
bool ActivationInRange(isa::ActFunc func, float x);

}  // namespace trnsim::numerics
