#include "simulator/sched/scheduler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace trnsim::simulator {
namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "trnsim: Scheduler: %s\n", what);
  std::abort();
}

}  // namespace

EventId Scheduler::Schedule(TimePs at_ps, Callback callback, EventPriority priority) {
  if (at_ps < now_ps_) Fail("event scheduled in the simulated past");
  if (!callback) Fail("empty callback");
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    if (slots_.size() >= UINT32_MAX) Fail("too many pending events");
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  const uint64_t seq = next_seq_++;
  slots_[slot].callback = std::move(callback);
  slots_[slot].seq = seq;
  heap_.push_back(Key{at_ps, seq, priority, slot});
  std::push_heap(heap_.begin(), heap_.end(), RunsAfter);
  ++pending_;
  return EventId{seq, slot};
}

EventId Scheduler::ScheduleAfter(DurationPs delay_ps, Callback callback, EventPriority priority) {
  if (delay_ps > kTimeNeverPs - now_ps_) Fail("event time overflows 64-bit picoseconds");
  return Schedule(now_ps_ + delay_ps, std::move(callback), priority);
}

bool Scheduler::Cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size() || slots_[id.slot].seq != id.seq) return false;
  FreeSlot(id.slot);
  --pending_;
  CompactIfStale();
  return true;
}

void Scheduler::FreeSlot(uint32_t slot) {
  slots_[slot].callback.Reset();
  slots_[slot].seq = 0;
  free_slots_.push_back(slot);
}

void Scheduler::DropStaleTop() {
  while (!heap_.empty() && !IsLive(heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), RunsAfter);
    heap_.pop_back();
  }
}

void Scheduler::CompactIfStale() {
  // Stale keys are dropped when they surface; this only bounds memory when many far-future
  // events are cancelled. Amortised O(1) per Cancel: a rebuild removes at least half the keys.
  const uint64_t stale = heap_.size() - pending_;
  if (heap_.size() < 64 || stale <= pending_) return;
  std::erase_if(heap_, [this](const Key& k) { return !IsLive(k); });
  std::make_heap(heap_.begin(), heap_.end(), RunsAfter);
}

bool Scheduler::RunNext(TimePs limit_ps) {
  DropStaleTop();
  if (heap_.empty() || heap_.front().time_ps > limit_ps) return false;
  const Key key = heap_.front();
  std::pop_heap(heap_.begin(), heap_.end(), RunsAfter);
  heap_.pop_back();
  // Move the callback out and free its slot before running it: the callback may schedule
  // (growing slots_) and must not be able to cancel itself.
  Callback callback = std::move(slots_[key.slot].callback);
  FreeSlot(key.slot);
  --pending_;
  now_ps_ = key.time_ps;
  ++events_run_;
  callback();
  return true;
}

bool Scheduler::Step() { return RunNext(kTimeNeverPs); }

RunResult Scheduler::RunUntil(TimePs end_ps) {
  if (end_ps < now_ps_) Fail("RunUntil horizon is in the simulated past");
  RunResult result;
  stop_requested_ = false;
  while (RunNext(end_ps)) {
    ++result.events_run;
    if (stop_requested_) {
      stop_requested_ = false;
      result.stop = RunStop::kStopped;
      return result;
    }
  }
  now_ps_ = end_ps;
  result.stop = idle() ? RunStop::kIdle : RunStop::kTimeLimit;
  return result;
}

RunResult Scheduler::RunUntilIdle(uint64_t max_events) {
  RunResult result;
  stop_requested_ = false;
  while (result.events_run < max_events && RunNext(kTimeNeverPs)) {
    ++result.events_run;
    if (stop_requested_) {
      stop_requested_ = false;
      result.stop = RunStop::kStopped;
      return result;
    }
  }
  result.stop = idle() ? RunStop::kIdle : RunStop::kEventLimit;
  return result;
}

TimePs Scheduler::NextEventPs() {
  DropStaleTop();
  return heap_.empty() ? kTimeNeverPs : heap_.front().time_ps;
}

void Scheduler::Clear() {
  heap_.clear();
  slots_.clear();
  free_slots_.clear();
  now_ps_ = 0;  // next_seq_ keeps counting, so EventIds from before never match again
  pending_ = 0;
  events_run_ = 0;
  stop_requested_ = false;
}

}  // namespace trnsim::simulator
