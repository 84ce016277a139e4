#include "simulator/core/pe_throttle.h"

#include <algorithm>

namespace trnsim::simulator::core {

PeThrottle::PeThrottle(const CostSpec& spec)
    : start_permille_(uint32_t(std::clamp(spec.pe_didt_start_limit_permille, 1, 1000))),
      engage_permille_(uint32_t(std::clamp(spec.pe_didt_engage_permille, 0, 1000))),
      ramp_ps_(spec.pe_didt_ramp_ps),
      window_ps_(spec.pe_didt_window_ps),
      steps_(uint32_t(std::max(spec.pe_didt_ramp_steps, 1))) {}

void PeThrottle::Reset() {
  engaged_ = true;
  ramp_start_ps_ = 0;
  throttled_ps_ = 0;
  history_.clear();
}

uint32_t PeThrottle::LimitPermilleAt(TimePs t_ps) const {
  if (!Enabled() || engaged_ || t_ps < ramp_start_ps_) return Enabled() ? start_permille_ : 1000;
  const uint64_t step = (t_ps - ramp_start_ps_) * steps_ / ramp_ps_;
  if (step >= steps_) return 1000;
  return start_permille_ + uint32_t((1000 - start_permille_) * step / steps_);
}

uint64_t PeThrottle::WorkInWindow(TimePs t_ps) {
  const TimePs from = t_ps > window_ps_ ? t_ps - window_ps_ : 0;
  while (!history_.empty() && history_.front().end_ps <= from) history_.pop_front();
  uint64_t work = 0;
  for (const Segment& s : history_) {
    const TimePs a = std::max(s.start_ps, from), b = std::min(s.end_ps, t_ps);
    if (b <= a) continue;
    // The part of the segment inside the window, pro rata (exact when it lies wholly inside).
    work += b - a == s.end_ps - s.start_ps
                ? s.work_ps
                : uint64_t((unsigned __int128)s.work_ps * (b - a) / (s.end_ps - s.start_ps));
  }
  return work;
}

TimePs PeThrottle::Stream(TimePs start_ps, DurationPs work_ps) {
  if (!Enabled()) return start_ps + work_ps;
  // Re-engage when a whole window since the ramp began was under-utilised.
  if (!engaged_ && start_ps >= ramp_start_ps_ + window_ps_ &&
      uint64_t((unsigned __int128)WorkInWindow(start_ps) * 1000 /
               std::max<DurationPs>(window_ps_, 1)) < engage_permille_)
    engaged_ = true;
  if (engaged_) {
    engaged_ = false;
    ramp_start_ps_ = start_ps;
  }
  // Walk the steps of the ramp from start_ps until the work is done.
  TimePs t = start_ps;
  DurationPs left = work_ps;
  while (left > 0) {
    const uint64_t step = (t - ramp_start_ps_) * steps_ / ramp_ps_;
    if (step >= steps_) {
      t += left;
      break;
    }
    const uint64_t limit = start_permille_ + (1000 - start_permille_) * step / steps_;
    // The first instant of the next step: the smallest t' with (t' - ramp) * steps >= (step+1) *
    // ramp.
    const TimePs step_end = ramp_start_ps_ + ((step + 1) * ramp_ps_ + steps_ - 1) / steps_;
    const uint64_t capacity = (step_end - t) * limit / 1000;
    if (left <= capacity) {
      t += (left * 1000 + limit - 1) / limit;
      break;
    }
    left -= capacity;
    t = step_end;
  }
  throttled_ps_ += (t - start_ps) - work_ps;
  history_.push_back({start_ps, t, work_ps});
  return t;
}

}  // namespace trnsim::simulator::core
