// BusyStats: how one component spent simulated time — busy, idle, and how many operations.
//
// An engine records each operation it executes as a busy interval [start_ps, end_ps). Gaps
// between recorded intervals count as idle; CloseAt(now) adds the idle tail up to the end of a
// run. Intervals are expected in start order; a part that overlaps time already recorded is
// not counted twice (so the busy time of overlapping work sorted by start is its union).
// busy_ps + idle_ps == the time accounted so far (from 0, or from the last Reset, to the end of
// the last interval or CloseAt).
//
// Everything is exact integer picoseconds, so reports are deterministic. Thread safety: none.
#pragma once

#include <cstdint>

#include "simulator/sched/sim_time.h"

namespace trnsim::simulator {

class BusyStats {
 public:
  // Records one operation busy from `start_ps` to `end_ps` (end >= start).
  void RecordBusy(TimePs start_ps, TimePs end_ps) {
    ++events_;
    if (end_ps <= accounted_to_ps_) return;  // entirely inside time already accounted
    if (start_ps > accounted_to_ps_) {
      idle_ps_ += start_ps - accounted_to_ps_;
    } else {
      start_ps = accounted_to_ps_;
    }
    busy_ps_ += end_ps - start_ps;
    accounted_to_ps_ = end_ps;
  }

  // Counts an event that takes no time (a semaphore update, a doorbell).
  void RecordInstant() { ++events_; }

  // Accounts time up to `now_ps` as idle if nothing was recorded there.
  void CloseAt(TimePs now_ps) {
    if (now_ps > accounted_to_ps_) {
      idle_ps_ += now_ps - accounted_to_ps_;
      accounted_to_ps_ = now_ps;
    }
  }

  void Reset() { *this = BusyStats(); }

  DurationPs busy_ps() const { return busy_ps_; }
  DurationPs idle_ps() const { return idle_ps_; }
  uint64_t events() const { return events_; }
  TimePs accounted_to_ps() const { return accounted_to_ps_; }

 private:
  DurationPs busy_ps_ = 0;
  DurationPs idle_ps_ = 0;
  uint64_t events_ = 0;
  TimePs accounted_to_ps_ = 0;
};

}  // namespace trnsim::simulator
