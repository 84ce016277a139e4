// Scheduler: the deterministic discrete-event kernel of one emulated instance.
//
// Components (engines, DMA queues, HBM, links) post callbacks at simulated instants; the
// scheduler runs them in one total order and advances `Now()` from event to event. Simulated
// time is passed in, never read from a host clock (DESIGN.md decision 4).
//
// Order. Events run by (time, priority, sequence), all ascending:
//   time      the simulated instant (`TimePs`) the event was scheduled for;
//   priority  a number given at scheduling — by convention a fixed number the builder of the
//             run gives each component (core/core_model.h, core/dma_fabric.h), so simultaneous
//             events of different components run in component order regardless of who
//             scheduled first;
//   sequence  a counter of Schedule calls: equal (time, priority) events run FIFO.
// The key is integers only, so the same inputs give the same order on every host and build.
//
// Callbacks may schedule (including at the current time: such an event runs later in the
// same instant, after events already due whose key is smaller) and cancel events. Scheduling
// before `Now()` is a bug and aborts.
//
// Cost. Schedule and each event run are O(log n) on a binary heap of 32-byte keys; the
// callbacks sit in a pooled slot array, so after warm-up neither allocates, except a callable
// larger than Callback::kInlineBytes (one heap allocation). Cancel is O(1): the slot is freed at
// once and its heap key is dropped lazily when it reaches the top (the heap is compacted when
// stale keys outnumber live ones, keeping memory O(pending events)).
//
// Thread safety: none. One scheduler is driven by one thread; callbacks run on it.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/sched/callback.h"
#include "simulator/sched/sim_time.h"

namespace trnsim::simulator {

using EventPriority = uint32_t;  // tie-break for events at the same instant; lower runs first
inline constexpr EventPriority kDefaultPriority = 0;

// Names one scheduled event, for Cancel. A default EventId names no event.
struct EventId {
  uint64_t seq = 0;   // the event's sequence number; 0 = none
  uint32_t slot = 0;  // where its callback is pooled
  bool valid() const { return seq != 0; }
  friend bool operator==(const EventId&, const EventId&) = default;
};

// Why a Run* call returned.
enum class RunStop {
  kIdle,        // no events left
  kTimeLimit,   // the next event is after the RunUntil horizon
  kEventLimit,  // the max_events budget ran out with events still pending
  kStopped,     // a callback called RequestStop()
};

struct RunResult {
  uint64_t events_run = 0;
  RunStop stop = RunStop::kIdle;
};

class Scheduler {
 public:
  Scheduler() = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // The current simulated time: the time of the running (or last run) event, or the horizon
  // of the last RunUntil. Starts at 0.
  TimePs Now() const { return now_ps_; }

  // Posts `callback` to run at `at_ps` (>= Now(); aborts otherwise). Never fails.
  EventId Schedule(TimePs at_ps, Callback callback, EventPriority priority = kDefaultPriority);
  // Posts `callback` to run `delay_ps` after Now(). Aborts if the time overflows.
  EventId ScheduleAfter(DurationPs delay_ps, Callback callback,
                        EventPriority priority = kDefaultPriority);

  // Cancels a pending event: its callback is destroyed without running. Returns false if the
  // event already ran, is running, was cancelled, or `id` names nothing.
  bool Cancel(EventId id);

  // Runs the next event, if any: advances Now() to its time and calls it. False if idle.
  bool Step();

  // Runs every event due at or before `end_ps` (inclusive; events the callbacks schedule
  // within the horizon run too), then sets Now() to `end_ps`. Returns kTimeLimit or kIdle, or
  // kStopped (Now() stays at the stopping event). Aborts if `end_ps` < Now().
  RunResult RunUntil(TimePs end_ps);

  // Runs events until none are left or `max_events` have run: kIdle, kEventLimit (a stuck or
  // endless simulation — the runtime reports NRT_TIMEOUT) or kStopped. Now() stays at the last
  // event run.
  RunResult RunUntilIdle(uint64_t max_events);

  // From inside a callback: makes the current Run* call return kStopped after it.
  void RequestStop() { stop_requested_ = true; }

  // Events pending (scheduled, not yet run or cancelled).
  uint64_t pending() const { return pending_; }
  bool idle() const { return pending_ == 0; }
  // Time of the earliest pending event, or kTimeNeverPs if idle.
  TimePs NextEventPs();
  // Events run since construction (or Clear()).
  uint64_t events_run() const { return events_run_; }

  // Drops every pending event (callbacks destroyed unrun) and rewinds time to 0.
  void Clear();

 private:
  struct Key {  // heap entry; the order of the heap is (time_ps, priority, seq)
    TimePs time_ps;
    uint64_t seq;
    EventPriority priority;
    uint32_t slot;
  };
  struct Slot {
    Callback callback;
    uint64_t seq = 0;  // seq of the event holding this slot; 0 = free
  };
  // True if `a` runs after `b` (std heap functions build a max-heap; this makes it a min-heap).
  static bool RunsAfter(const Key& a, const Key& b) {
    if (a.time_ps != b.time_ps) return a.time_ps > b.time_ps;
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.seq > b.seq;
  }

  bool IsLive(const Key& key) const { return slots_[key.slot].seq == key.seq; }
  void FreeSlot(uint32_t slot);
  void DropStaleTop();            // pops cancelled keys off the top of the heap
  void CompactIfStale();          // rebuilds the heap without cancelled keys when they dominate
  bool RunNext(TimePs limit_ps);  // runs the top event if due by limit_ps

  std::vector<Key> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  TimePs now_ps_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t pending_ = 0;
  uint64_t events_run_ = 0;
  bool stop_requested_ = false;
};

}  // namespace trnsim::simulator
