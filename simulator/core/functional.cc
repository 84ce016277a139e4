#include "simulator/core/functional.h"

#include "simulator/core/fast_dma.h"
#include "simulator/core/fast_pe.h"
#include "simulator/core/fast_vector.h"

namespace trnsim::simulator::core {

Status ApplyEffect(isa::Engine engine, const isa::Instruction& inst, size_t pc,
                   reference::CoreState& state, reference::HbmView& hbm, size_t& next,
                   bool& ended) {
  if (inst.opcode == isa::Opcode::kDmaCopy) {
    StatusOr<bool> fast = TryFastDmaCopy(inst, state, hbm);
    if (!fast.ok()) return fast.status();
    if (*fast) {
      next = pc + 1;
      ended = false;
      return Status::Ok();
    }
  }
  // The fast paths round to nearest even only; stochastic rounding takes the reference path.
  const bool nearest_even = state.rounding == numerics::Rounding::Mode::kNearestEven;
  if (nearest_even && engine == isa::Engine::kPe) {
    StatusOr<bool> fast = TryFastPe(engine, inst, state, hbm);
    if (!fast.ok()) return fast.status();
    if (*fast) {
      next = pc + 1;
      ended = false;
      return Status::Ok();
    }
  }
  if (nearest_even && (engine == isa::Engine::kAct || engine == isa::Engine::kDve ||
                       engine == isa::Engine::kPool)) {
    StatusOr<bool> fast = TryFastVector(engine, inst, state, hbm);
    if (!fast.ok()) return fast.status();
    if (*fast) {
      next = pc + 1;
      ended = false;
      return Status::Ok();
    }
  }
  return reference::ExecuteInstruction(engine, inst, pc, state, hbm, next, ended);
}

}  // namespace trnsim::simulator::core
