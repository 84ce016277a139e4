// The dma_copy fast path: moves the bytes of a same-dtype dma_copy run by run (memcpy of each
// contiguous innermost run) instead of element by element, with the reference interpreter's
// result byte for byte: element k of the source lands on element k of the destination in the
// order of docs/isa.md §4, and the whole source is read before anything is written, so
// overlapping operands behave as the reference's gather-then-scatter.
//
// Returns false, touching nothing, when the copy converts dtypes, uses a register offset or a
// pattern operand, or would fail in any way (bounds, unknown var_id, mismatched counts): the
// caller then runs reference::ExecuteInstruction, which reports the exact error.
#pragma once

#include "common/status_or.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

StatusOr<bool> TryFastDmaCopy(const isa::Instruction& inst, reference::CoreState& state,
                              reference::HbmView& hbm);

}  // namespace trnsim::simulator::core
