// Scheduler: event order, same-instant scheduling, cancel, run horizons and budgets.
#include "simulator/sched/scheduler.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace trnsim::simulator {
namespace {

// Records "<label>@<time>" for each event run.
struct Trace {
  Scheduler* sched;
  std::vector<std::string> lines;
  Callback Log(std::string label) {
    return [this, label] { lines.push_back(label + "@" + std::to_string(sched->Now())); };
  }
};

TEST(sched_Scheduler, OrdersByTimeThenPriorityThenFifo) {
  Scheduler s;
  Trace t{&s, {}};
  s.Schedule(30, t.Log("c"));
  s.Schedule(10, t.Log("a"));
  s.Schedule(20, t.Log("b-prio7"), 7);
  s.Schedule(20, t.Log("b-prio2-first"), 2);
  s.Schedule(20, t.Log("b-prio2-second"), 2);
  s.Schedule(20, t.Log("b-prio0"));
  EXPECT_EQ(s.pending(), 6u);
  const RunResult r = s.RunUntilIdle(100);
  EXPECT_EQ(r.events_run, 6u);
  EXPECT_EQ(r.stop, RunStop::kIdle);
  EXPECT_EQ(t.lines, (std::vector<std::string>{"a@10", "b-prio0@20", "b-prio2-first@20",
                                               "b-prio2-second@20", "b-prio7@20", "c@30"}));
  EXPECT_EQ(s.Now(), 30u);
  EXPECT_EQ(s.events_run(), 6u);
}

TEST(sched_Scheduler, CallbacksScheduleAtTheCurrentInstant) {
  Scheduler s;
  Trace t{&s, {}};
  s.Schedule(
      5,
      [&] {
        t.lines.push_back("a@" + std::to_string(s.Now()));
        s.Schedule(s.Now(), t.Log("same-prio-after-b"), 5);  // larger seq than b: after b
        s.Schedule(s.Now(), t.Log("lower-prio-before-b"), 1);
        s.ScheduleAfter(0, t.Log("after-zero"), 9);
        s.ScheduleAfter(3, t.Log("later"), 0);
      },
      5);
  s.Schedule(5, t.Log("b"), 5);
  EXPECT_EQ(s.RunUntilIdle(100).stop, RunStop::kIdle);
  EXPECT_EQ(t.lines, (std::vector<std::string>{"a@5", "lower-prio-before-b@5", "b@5",
                                               "same-prio-after-b@5", "after-zero@5", "later@8"}));
}

TEST(sched_Scheduler, ScheduleAfterIsRelativeToNow) {
  Scheduler s;
  TimePs seen = 0;
  s.Schedule(100, [&] { s.ScheduleAfter(50, [&] { seen = s.Now(); }); });
  EXPECT_TRUE(s.Step());
  EXPECT_EQ(s.NextEventPs(), 150u);
  EXPECT_TRUE(s.Step());
  EXPECT_EQ(seen, 150u);
  EXPECT_FALSE(s.Step());
  EXPECT_EQ(s.NextEventPs(), kTimeNeverPs);
}

TEST(sched_Scheduler, CancelDropsPendingEventsOnly) {
  Scheduler s;
  Trace t{&s, {}};
  EventId a = s.Schedule(10, t.Log("a"));
  EventId b = s.Schedule(20, t.Log("b"));
  EventId c = s.Schedule(30, t.Log("c"));
  EXPECT_TRUE(s.Cancel(b));
  EXPECT_FALSE(s.Cancel(b));          // already cancelled
  EXPECT_FALSE(s.Cancel(EventId{}));  // names nothing
  EXPECT_EQ(s.pending(), 2u);
  EXPECT_EQ(s.NextEventPs(), 10u);
  EXPECT_TRUE(s.Step());
  EXPECT_FALSE(s.Cancel(a));  // already ran
  // The freed slot is reused; the stale id of b must not cancel its new occupant.
  EventId d = s.Schedule(25, t.Log("d"));
  EXPECT_FALSE(s.Cancel(b));
  EXPECT_FALSE(d == b);
  EXPECT_EQ(s.RunUntilIdle(10).events_run, 2u);
  EXPECT_FALSE(s.Cancel(c));
  EXPECT_EQ(t.lines, (std::vector<std::string>{"a@10", "d@25", "c@30"}));
}

TEST(sched_Scheduler, CallbacksCancelOthersButNotThemselves) {
  Scheduler s;
  Trace t{&s, {}};
  EventId self;
  EventId victim = s.Schedule(10, t.Log("victim"), 9);
  self = s.Schedule(
      10,
      [&] {
        EXPECT_FALSE(s.Cancel(self));  // running: no longer pending
        EXPECT_TRUE(s.Cancel(victim));
      },
      1);
  EXPECT_EQ(s.RunUntilIdle(10).events_run, 1u);
  EXPECT_TRUE(t.lines.empty());
}

TEST(sched_Scheduler, ManyCancellationsKeepOrderAndMemoryBounded) {
  Scheduler s;
  std::vector<EventId> ids;
  std::vector<int> ran;
  for (int i = 0; i < 10000; ++i) {
    ids.push_back(s.Schedule(1000 + i, [&ran, i] { ran.push_back(i); }));
  }
  for (int i = 0; i < 10000; ++i) {
    if (i % 10 != 3) {
      EXPECT_TRUE(s.Cancel(ids[i]));
    }
  }
  EXPECT_EQ(s.pending(), 1000u);
  EXPECT_EQ(s.RunUntilIdle(1'000'000).events_run, 1000u);
  ASSERT_EQ(ran.size(), 1000u);
  for (int k = 0; k < 1000; ++k) EXPECT_EQ(ran[k], 10 * k + 3);
}

TEST(sched_Scheduler, RunUntilIsInclusiveAndAdvancesToTheHorizon) {
  Scheduler s;
  Trace t{&s, {}};
  s.Schedule(10, t.Log("a"));
  s.Schedule(20, [&] {
    t.lines.push_back("b@" + std::to_string(s.Now()));
    s.Schedule(20, t.Log("b-child"));  // same instant, inside the horizon
    s.Schedule(21, t.Log("b-late"));   // past the horizon
  });
  s.Schedule(30, t.Log("c"));
  RunResult r = s.RunUntil(20);
  EXPECT_EQ(r.events_run, 3u);
  EXPECT_EQ(r.stop, RunStop::kTimeLimit);
  EXPECT_EQ(s.Now(), 20u);
  EXPECT_EQ(t.lines, (std::vector<std::string>{"a@10", "b@20", "b-child@20"}));
  r = s.RunUntil(20);  // the same horizon again: nothing to do
  EXPECT_EQ(r.events_run, 0u);
  r = s.RunUntil(20);
  EXPECT_EQ(s.Now(), 20u);
  r = s.RunUntil(25);
  EXPECT_EQ(r.events_run, 1u);
  EXPECT_EQ(s.Now(), 25u);  // no event at 25, but time reaches the horizon
  r = s.RunUntil(1000);
  EXPECT_EQ(r.events_run, 1u);
  EXPECT_EQ(r.stop, RunStop::kIdle);
  EXPECT_EQ(s.Now(), 1000u);
  EXPECT_EQ(t.lines.back(), "c@30");
  // After advancing to a horizon, ScheduleAfter counts from it.
  s.ScheduleAfter(5, t.Log("d"));
  EXPECT_EQ(s.NextEventPs(), 1005u);
}

TEST(sched_Scheduler, RunUntilIdleReportsTheEventCap) {
  Scheduler s;
  uint64_t ticks = 0;
  // A component that never goes quiet: reschedules itself forever.
  std::function<void()> tick = [&] {
    ++ticks;
    s.ScheduleAfter(1000, [&] { tick(); });
  };
  s.Schedule(0, [&] { tick(); });
  RunResult r = s.RunUntilIdle(100);
  EXPECT_EQ(r.events_run, 100u);
  EXPECT_EQ(r.stop, RunStop::kEventLimit);
  EXPECT_EQ(ticks, 100u);
  EXPECT_EQ(s.Now(), 99'000u);
  EXPECT_EQ(s.pending(), 1u);
  EXPECT_EQ(s.RunUntilIdle(0).stop, RunStop::kEventLimit);  // zero budget, still pending
  s.Clear();
  EXPECT_EQ(s.RunUntilIdle(0).stop, RunStop::kIdle);
  EXPECT_EQ(s.Now(), 0u);

  // A finite chain that needs exactly the budget finishes idle.
  int left = 10;
  std::function<void()> chain = [&] {
    if (--left > 0) s.ScheduleAfter(1, [&] { chain(); });
  };
  s.Schedule(0, [&] { chain(); });
  r = s.RunUntilIdle(10);
  EXPECT_EQ(r.events_run, 10u);
  EXPECT_EQ(r.stop, RunStop::kIdle);
}

TEST(sched_Scheduler, RequestStopEndsTheRunAfterTheCallback) {
  Scheduler s;
  int ran = 0;
  s.Schedule(10, [&] { ++ran; });
  s.Schedule(20, [&] {
    ++ran;
    s.RequestStop();
  });  // e.g. a completion semaphore fired
  s.Schedule(30, [&] { ++ran; });
  RunResult r = s.RunUntil(100);
  EXPECT_EQ(r.stop, RunStop::kStopped);
  EXPECT_EQ(r.events_run, 2u);
  EXPECT_EQ(s.Now(), 20u);  // stays at the stopping event, not the horizon
  r = s.RunUntilIdle(10);   // a new run starts unstopped
  EXPECT_EQ(r.stop, RunStop::kIdle);
  EXPECT_EQ(ran, 3);
}

TEST(sched_Scheduler, ClearDropsEverything) {
  Scheduler s;
  int ran = 0;
  EventId id = s.Schedule(10, [&] { ++ran; });
  s.RunUntil(5);
  s.Clear();
  EXPECT_TRUE(s.idle());
  EXPECT_EQ(s.Now(), 0u);
  EXPECT_FALSE(s.Cancel(id));
  EventId fresh = s.Schedule(1, [&] { ++ran; });
  EXPECT_FALSE(fresh == id);
  EXPECT_FALSE(s.Cancel(id));  // ids from before Clear never match new events
  s.RunUntilIdle(10);
  EXPECT_EQ(ran, 1);
}

TEST(sched_SchedulerDeathTest, PastTimesAbort) {
  Scheduler s;
  s.Schedule(100, [] {});
  s.RunUntilIdle(1);
  EXPECT_DEATH(s.Schedule(99, [] {}), "simulated past");
  EXPECT_DEATH(s.RunUntil(50), "simulated past");
  EXPECT_DEATH(s.ScheduleAfter(kTimeNeverPs, [] {}), "overflows");
}

}  // namespace
}  // namespace trnsim::simulator
