// PeThrottle: the TensorE dI/dt current limiter of Trainium2/3 (docs/chip-model.md §2, "PE
// dynamics"; measurement C-8). Ramping the systolic array from idle to full rate at once would
// swing its supply current too fast, so the hardware caps the array's utilisation: when work
// begins after a quiet period the limit starts at `pe_didt_start_limit_permille` (50%) and
// rises to full over `pe_didt_ramp_ps` (3 µs); whenever the array's utilisation over a trailing
// `pe_didt_window_ps` (3 µs) window falls below `pe_didt_engage_permille` (50%) the limit
// engages again, and the next burst starts from the start limit.
//
// Model (all integer, deterministic):
//   * The limit is a step function of the time since the ramp began: `pe_didt_ramp_steps` equal
//     steps from the start limit to 1000‰ (the hardware reports its limit as a ratio K/N).
//   * A pass that needs `work_ps` of streaming at full rate streams at the limit in force:
//     within a step at limit L‰ it does (step time × L / 1000) of work.
//   * Utilisation over a window = the full-rate work the array did in it / the window. It is
//     the array's streaming, whatever the dtype or how many rows/columns a matmul uses
//     (assumption: docs/decisions.md, "PE dynamics").
//   * The limiter is engaged at the start of every execution (the array was idle before). It is
//     re-checked at the start of every pass: once a whole window has passed since the ramp
//     began, a window utilisation below the threshold engages it. An engaged limiter starts a
//     new ramp at the next pass's stream start.
//   * `pe_didt_start_limit_permille` >= 1000 or `pe_didt_ramp_ps` == 0 disables the limiter.
//
// Passes must be streamed in time order (the array is one server). Thread safety: none.
#pragma once

#include <cstdint>
#include <deque>

#include "simulator/sched/sim_time.h"
#include "simulator/spec/cost_spec.h"

namespace trnsim::simulator::core {

class PeThrottle {
 public:
  explicit PeThrottle(const CostSpec& spec);

  // Execution start: no history, the limiter engaged.
  void Reset();

  // The array streams `work_ps` of full-rate work from `start_ps` (>= the end of the previous
  // stream); returns when the stream ends under the limit. Records the stream for later windows.
  TimePs Stream(TimePs start_ps, DurationPs work_ps);

  // Stream time lost to the limit so far (stream time minus full-rate work).
  DurationPs throttled_ps() const { return throttled_ps_; }

  // The limit in force at `t_ps`, in permille (1000 = full rate). For tests and the trace.
  uint32_t LimitPermilleAt(TimePs t_ps) const;

 private:
  struct Segment {
    TimePs start_ps = 0;
    TimePs end_ps = 0;
    DurationPs work_ps = 0;
  };

  bool Enabled() const { return start_permille_ < 1000 && ramp_ps_ > 0; }
  // Full-rate work done in [t_ps - window, t_ps); drops history older than that.
  uint64_t WorkInWindow(TimePs t_ps);

  uint32_t start_permille_ = 1000;
  uint32_t engage_permille_ = 0;
  DurationPs ramp_ps_ = 0;
  DurationPs window_ps_ = 0;
  uint32_t steps_ = 1;

  bool engaged_ = true;
  TimePs ramp_start_ps_ = 0;
  DurationPs throttled_ps_ = 0;
  std::deque<Segment> history_;
};

}  // namespace trnsim::simulator::core
