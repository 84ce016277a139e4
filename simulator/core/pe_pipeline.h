// PePipeline: the timing of TensorE's two units — the systolic array (multiply_moving,
// nc_transpose) and the weight-load unit (load_stationary) — for one core
// (docs/chip-model.md §2, "PE pipeline" and "PE dynamics").
//
// Rules:
//   * Background weight load: a load_stationary issues when the weight-load unit is free; a
//     matmul or transpose issues when the array is free and the last weight load has landed.
//     The PE sequencer is free again `control_cycles` after handing either over.
//   * Passes: an fp32 matmul or weight load (not fp32r, and neither `transpose` nor `onezero`)
//     issues on the hardware as `pe_fp32_passes` (2) instructions, each taking an equal share
//     of the instruction's cycles; the second pass follows the first back to back. Every
//     other instruction is one pass. Passes are what the device profile shows (one entry
//     each); the execution statistics count the instruction once, and its effect is applied
//     once (at issue).
//   * Fill: a pass that starts on an idle array — the array finished streaming before this
//     instruction could issue, or nothing streamed yet — waits `pe_fill_cycles` before its
//     data streams. A pass that issues while the previous one still streams starts streaming
//     the instant that one ends and pays no fill.
//   * Drain: a pass's results reach PSUM `pe_drain_cycles` after its stream ends (that replaces
//     the generic SBUF/PSUM access latency for array instructions). The array can take the
//     next pass as soon as the stream ends, so drains overlap later passes.
//   * dI/dt: each pass streams under the limit of PeThrottle (pe_throttle.h).
//   * A pass is busy from its issue to its drain's end: the engine's busy time (the profile's
//     "active time") is the union of those intervals and the weight loads'.
//
// Thread safety: none; owned by one CoreModel.
#pragma once

#include <array>
#include <cstdint>

#include "simulator/core/pe_throttle.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/instruction.h"
#include "simulator/sched/sim_time.h"
#include "simulator/spec/cost_spec.h"

namespace trnsim::simulator::core {

inline constexpr int kMaxPePasses = 4;

struct PePass {
  TimePs start_ps = 0;
  DurationPs duration_ps = 0;  // to the end of its stream, plus the drain for array passes
};

struct PeIssue {
  DurationPs sequencer_ps = 0;  // the PE sequencer is free this long after the issue
  TimePs end_ps = 0;            // the last pass's busy interval ends
  TimePs complete_ps = 0;       // the results are visible (@complete updates)
  int passes = 1;
  std::array<PePass, kMaxPePasses> pass{};
};

class PePipeline {
 public:
  explicit PePipeline(const CostSpec& spec);

  // Execution start: both units idle, the dI/dt limiter engaged.
  void Reset();

  // True for the instructions the units execute: load_stationary, multiply_moving,
  // nc_transpose. Everything else on PE is timed like any engine instruction.
  static bool Handles(const isa::Instruction& inst);

  // The passes `inst` issues as on the hardware (1 .. kMaxPePasses).
  int Passes(const isa::Instruction& inst) const;

  // The earliest instant `inst` (Handles) may issue.
  TimePs ReadyAt(const isa::Instruction& inst) const;

  // `inst` (Handles) issues at `now_ps` (>= ReadyAt) with the cost model's `cost`; returns its
  // passes and times, and books the units.
  PeIssue Issue(const isa::Instruction& inst, TimePs now_ps, const cost::InstructionCost& cost);

  const PeThrottle& throttle() const { return throttle_; }

 private:
  int fp32_passes_ = 1;
  int fill_cycles_ = 0;
  int drain_cycles_ = 0;
  int control_cycles_ = 1;
  PeThrottle throttle_;
  bool streamed_ = false;           // some array pass has streamed this execution
  TimePs array_free_ps_ = 0;        // the array's last stream ends
  TimePs weights_ready_ps_ = 0;     // the last weight load has landed
  TimePs weight_unit_free_ps_ = 0;  // the weight-load unit can start another load
};

}  // namespace trnsim::simulator::core
