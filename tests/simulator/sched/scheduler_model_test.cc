// Scheduler against a trivially correct reference model, on seeded random event patterns, and
// determinism: the same pattern always yields the same trace.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "simulator/sched/scheduler.h"

namespace trnsim::simulator {
namespace {

// The reference: an unsorted list, each step scans for the smallest (time, priority, seq).
class ModelScheduler {
 public:
  struct Id {
    uint64_t seq = 0;
  };
  TimePs Now() const { return now_; }
  Id Schedule(TimePs at, std::function<void()> fn, EventPriority prio) {
    events_.push_back({at, prio, ++seq_, std::move(fn), true});
    return Id{seq_};
  }
  bool Cancel(Id id) {
    for (Event& e : events_) {
      if (e.seq == id.seq && e.live) {
        e.live = false;
        return true;
      }
    }
    return false;
  }
  uint64_t RunUntilIdle(uint64_t max_events) {
    uint64_t n = 0;
    while (n < max_events) {
      Event* best = nullptr;
      for (Event& e : events_) {
        if (!e.live) continue;
        if (best == nullptr || e.time < best->time ||
            (e.time == best->time &&
             (e.prio < best->prio || (e.prio == best->prio && e.seq < best->seq)))) {
          best = &e;
        }
      }
      if (best == nullptr) break;
      best->live = false;
      now_ = best->time;
      std::function<void()> fn = std::move(best->fn);
      fn();  // may grow events_; best is not used after this
      ++n;
    }
    return n;
  }

 private:
  struct Event {
    TimePs time;
    EventPriority prio;
    uint64_t seq;
    std::function<void()> fn;
    bool live;
  };
  std::vector<Event> events_;
  TimePs now_ = 0;
  uint64_t seq_ = 0;
};

struct Adapter {  // gives Scheduler the model's shape
  Scheduler s;
  using Id = EventId;
  TimePs Now() const { return s.Now(); }
  Id Schedule(TimePs at, std::function<void()> fn, EventPriority prio) {
    return s.Schedule(at, std::move(fn), prio);
  }
  bool Cancel(Id id) { return s.Cancel(id); }
  uint64_t RunUntilIdle(uint64_t max_events) { return s.RunUntilIdle(max_events).events_run; }
};

// Drives a scheduler with a seeded random pattern: every event logs (tag, time), then may spawn
// children (some at the current instant) and cancel a random earlier event. Only raw
// mt19937_64 output is used — its sequence is fixed by the standard, unlike distributions.
template <typename S>
class Workload {
 public:
  Workload(uint64_t seed, uint64_t budget) : rng_(seed), budget_(budget) {}

  std::vector<uint64_t> Run() {
    for (int i = 0; i < 16; ++i) Spawn();
    sched_.RunUntilIdle(~uint64_t{0});
    return trace_;
  }

 private:
  void Spawn() {
    if (budget_ == 0) return;
    --budget_;
    const uint64_t r = rng_();
    const uint64_t tag = next_tag_++;
    // A third of the events land on the current instant; priorities collide often.
    const DurationPs delay = (r % 3 == 0) ? 0 : (r >> 8) % 5000;
    const EventPriority prio = static_cast<EventPriority>((r >> 32) % 4);
    ids_.push_back(sched_.Schedule(
        sched_.Now() + delay, [this, tag] { Fire(tag); }, prio));
  }
  void Fire(uint64_t tag) {
    trace_.push_back(tag);
    trace_.push_back(sched_.Now());
    const uint64_t r = rng_();
    const int children = static_cast<int>(r % 4);  // 0..3, mean 1.5: grows until the budget
    for (int i = 0; i < children; ++i) Spawn();
    if ((r >> 8) % 8 == 0 && !ids_.empty()) {
      const bool cancelled = sched_.Cancel(ids_[(r >> 16) % ids_.size()]);
      trace_.push_back(cancelled ? 1 : 0);
    }
    if ((r >> 24) % 64 == 0) {  // an occasional burst keeps the queue from running dry
      for (int i = 0; i < 4; ++i) Spawn();
    }
  }

  S sched_;
  std::mt19937_64 rng_;
  uint64_t budget_;
  uint64_t next_tag_ = 0;
  std::vector<typename S::Id> ids_;
  std::vector<uint64_t> trace_;
};

TEST(sched_SchedulerModel, MatchesTheReferenceOnRandomPatterns) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<uint64_t> model = Workload<ModelScheduler>(seed, 3000).Run();
    const std::vector<uint64_t> real = Workload<Adapter>(seed, 3000).Run();
    ASSERT_GT(model.size(), 1000u) << "seed " << seed;
    ASSERT_EQ(real, model) << "seed " << seed;
  }
}

TEST(sched_SchedulerModel, SameSeedSameTrace) {
  const std::vector<uint64_t> a = Workload<Adapter>(12345, 200'000).Run();
  const std::vector<uint64_t> b = Workload<Adapter>(12345, 200'000).Run();
  EXPECT_GT(a.size(), 100'000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Workload<Adapter>(54321, 200'000).Run());
}

TEST(sched_SchedulerModel, AMillionEventsRun) {
  // 1000 components, each rescheduling itself on its own period until it has run 1000 times.
  Scheduler s;
  struct Ticker {
    Scheduler* s;
    EventPriority id;
    DurationPs period_ps;
    int left;
    uint64_t* total;
    void Tick() {
      ++*total;
      if (--left > 0)
        s->ScheduleAfter(
            period_ps, [this] { Tick(); }, id);
    }
  };
  uint64_t total = 0;
  std::vector<Ticker> tickers;
  tickers.reserve(1000);
  for (uint32_t i = 0; i < 1000; ++i) {
    tickers.push_back(Ticker{&s, i, 400 + (i * 37) % 1000, 1000, &total});
    s.Schedule(
        0, [t = &tickers.back()] { t->Tick(); }, i);
  }
  const RunResult r = s.RunUntilIdle(2'000'000);
  EXPECT_EQ(r.stop, RunStop::kIdle);
  EXPECT_EQ(r.events_run, 1'000'000u);
  EXPECT_EQ(total, 1'000'000u);
}

}  // namespace
}  // namespace trnsim::simulator
