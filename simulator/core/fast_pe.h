// The PE fast path: load_stationary, multiply_moving (plain, accumulate, double_row, transpose)
// and nc_transpose executed on whole rows with a register-blocked kernel instead of the reference
// interpreter's element-by-element loops (simulator/reference/pe.cc), for the operand layouts
// compilers emit. The chip model calls it first and falls back to reference::ExecuteDatapath
// when it declines.
//
// Contract: when TryFastPe returns true, the instruction's effect has been applied and every
// byte of CoreState (SBUF, PSUM, the stationary buffer) is exactly what
// reference::ExecuteDatapath would have produced from the same state: the same fp32 products,
// summed sequentially over k (and the double_row pair) from +0.0f with separate multiply and add,
// then `dst = accumulate ? dst + sum : sum`, converted with the dst dtype's RNE conversion of
// numerics/float_formats.h. Operands are read completely before anything is written, as the
// reference does, so overlapping operands give the reference's answer too.
//
// It returns false, having touched nothing, for anything it does not handle: other engines or
// opcodes, HBM or pattern operands, register offsets, an innermost free stride other than 1,
// integer dtypes, and every case the reference reports as an error (no stationary loaded, shape or
// dtype-class mismatches, out-of-bounds accesses) — the caller's fallback then produces the
// reference's exact error message. It never returns a non-OK Status today; the StatusOr leaves
// room for errors only the fast path could detect.
//
// Thread safety: reentrant; scratch buffers are thread-local. The caller serialises calls that
// share a CoreState.
#pragma once

#include "common/status_or.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

StatusOr<bool> TryFastPe(isa::Engine engine, const isa::Instruction& inst, reference::CoreState& s,
                         reference::HbmView& hbm);

}  // namespace trnsim::simulator::core
