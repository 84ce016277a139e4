// EffectRouter: decides, when the cores of an execution simulate in parallel on the host
// (effect_worker.h), where one issuing instruction's data effect is applied — and so which of
// the scheduler thread's own accesses to a core's data must first wait for that core's worker.
//
//   kDefer        posted to the core's EffectWorker. Only TensorE's load_stationary,
//                 multiply_moving and nc_transpose whose operands are all in SBUF/PSUM without
//                 a register offset, and only when the router has proven the effect succeeds:
//                 the operands bind (reference::Operand::Bind, the interpreter's own bounds
//                 checks, run against a scratch state) and the shapes, dtype classes and
//                 double_row flag agree with a shadow of the stationary buffer, in the order
//                 reference/pe.cc checks them. So a deferred effect never raises an error, and
//                 every error surfaces inline, at issue, exactly as in the serial run.
//   kNoData       applied inline; touches only registers, semaphores, events or the program
//                 counter (nop, waits, barrier, sem/event updates, notify_end, reg_set,
//                 reg_add, branch, core_barrier), which the worker never touches: no drain.
//   kDrainCore    applied inline after the core's worker has drained: everything else (DMA,
//                 register loads and stores, debug_print, collectives, ACT/DVE/POOL datapath,
//                 a PE instruction with an HBM or register-offset operand or one that may fail).
//   kDrainPair    as kDrainCore, and the peer core's worker too (sendrecv writes its SBUF).
//
// The stationary shadow follows every PE instruction that changes the stationary buffer, deferred
// or not: the caller reports each successfully issued instruction with Issued.
//
// Thread safety: none; used by one core's scheduler thread.
#pragma once

#include <cstdint>

#include "simulator/isa/dtype.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

enum class EffectRoute { kDefer, kNoData, kDrainCore, kDrainPair };

class EffectRouter {
 public:
  explicit EffectRouter(const isa::IsaLimits& limits);

  // Program start: the stationary buffer is empty (CoreModel::Start resets it).
  void Reset();
  // Where `inst`, issuing now on `engine`, has its effect applied. `hbm` is the core's view
  // (consulted only for an HBM operand, which is never deferred).
  EffectRoute Route(isa::Engine engine, const isa::Instruction& inst, reference::HbmView& hbm);
  // `inst` has issued and its effect succeeded (or was deferred): follow the stationary buffer.
  void Issued(const isa::Instruction& inst);

 private:
  // What reference/pe.cc's checks read of the stationary buffer (its values stay with the worker).
  struct StationaryShape {
    bool loaded = false;
    isa::Dtype dtype = isa::Dtype::kUnknown;
    uint64_t k = 0;
    uint64_t m = 0;
    bool double_row = false;
  };

  // True when `inst`'s effect is sure to succeed against the shadow.
  bool ProvenToSucceed(isa::Engine engine, const isa::Instruction& inst, reference::HbmView& hbm);

  // Binds against this state only to run Operand::Bind's checks; its bytes are never read or
  // written (the lazy buffers reserve address space, they commit nothing).
  reference::CoreState scratch_;
  StationaryShape shadow_;
};

}  // namespace trnsim::simulator::core
