// The functional effect of one instruction in the chip model: the fast paths of core/ where
// they apply (fast_pe.h), else the reference interpreter's element-by-element execution. Both
// give byte-identical results (tests/simulator/core/golden_model_test.cc checks it on random
// programs), so the fast paths change speed, never answers. With stochastic rounding
// (CoreState::rounding) only the dma_copy fast path, which never rounds, is used.
#pragma once

#include <cstddef>

#include "common/status.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

// As reference::ExecuteInstruction (every opcode but dma_trigger).
Status ApplyEffect(isa::Engine engine, const isa::Instruction& inst, size_t pc,
                   reference::CoreState& state, reference::HbmView& hbm, size_t& next, bool& ended);

}  // namespace trnsim::simulator::core
