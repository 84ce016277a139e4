// EffectWorker: one physical core's host thread for the data effects of its datapath
// instructions, when the cores of one execution simulate in parallel on the host
// (ExecuteOptions::host_threads; docs/decisions.md "Parallel simulation on the host").
//
// The timing model stays on the scheduler thread: it decides every issue time from waits,
// occupancy and hazards, none of which read SBUF or PSUM. For an instruction the EffectRouter
// (effect_router.h) has proven cannot fail, the scheduler posts the effect here instead of
// applying it; the worker applies the posted effects one at a time in posting order — the core's
// issue order — with the rounding stream the scheduler assigned at issue, so every byte it writes
// is what the serial run writes. Before the scheduler thread itself reads or writes this core's
// SBUF, PSUM, stationary buffer or accumulators, it calls Drain.
//
// What the worker touches: the CoreState's sbuf, psum, stationary, acc and rounding_stream, and
// nothing else (never registers, semaphores, events, `issued`, or HBM). Between a Post and the
// Drain that follows it, the scheduler thread must not touch those fields; Drain's return
// happens-after every posted effect (mutex hand-off), so afterwards it may.
//
// Errors: a posted effect must succeed — the router only posts what it has proven will. If one
// fails anyway (a broken invariant), the process aborts with the status, naming the instruction.
//
// Thread safety: Post and Drain are called from one thread (the execution's scheduler thread).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

class EffectWorker {
 public:
  // One instruction's effect, as the scheduler issued it. The instruction is a copy: a loaded
  // program is held packed (isa::PackedProgram) and the scheduler's unpacked instruction at an
  // engine's pc is replaced as soon as the engine moves on.
  struct Effect {
    isa::Engine engine = isa::Engine::kPe;
    isa::Instruction inst;
    size_t pc = 0;                 // for the abort message
    uint64_t rounding_stream = 0;  // BeginInstruction's stream for this instruction
  };

  // Starts the thread. `state` and `hbm` must outlive the worker.
  EffectWorker(reference::CoreState& state, reference::HbmView& hbm);
  // Applies whatever is still posted, then joins the thread.
  ~EffectWorker();
  EffectWorker(const EffectWorker&) = delete;
  EffectWorker& operator=(const EffectWorker&) = delete;

  // Queues `effect` after every effect posted before it.
  void Post(const Effect& effect);
  // Returns once every posted effect has been applied.
  void Drain();

 private:
  void Loop();
  void Apply(const Effect& effect);

  reference::CoreState& state_;
  reference::HbmView& hbm_;
  std::mutex mu_;
  std::condition_variable work_ready_;  // posted effects or stop_
  std::condition_variable idle_;        // the queue is empty and nothing is being applied
  std::vector<Effect> posted_;          // guarded by mu_
  bool applying_ = false;               // guarded by mu_: the worker holds a batch
  bool stop_ = false;                   // guarded by mu_
  std::thread thread_;                  // last: started once the fields above exist
};

}  // namespace trnsim::simulator::core
