// Callback storage and BusyStats accounting.
#include <gtest/gtest.h>

#include <array>
#include <memory>

#include "simulator/sched/callback.h"
#include "simulator/sched/scheduler.h"
#include "simulator/sched/stats.h"

namespace trnsim::simulator {
namespace {

TEST(sched_Callback, SmallCallablesAreInlineLargeOnesOnTheHeap) {
  int hits = 0;
  int* p = &hits;
  uint64_t a = 1, b = 2, c = 3;
  Callback small = [p, a, b, c] { *p += static_cast<int>(a + b + c); };
  EXPECT_TRUE(small.is_inline());
  std::array<uint64_t, 16> big{};
  big[15] = 10;
  Callback large = [p, big] { *p += static_cast<int>(big[15]); };
  EXPECT_FALSE(large.is_inline());
  small();
  large();
  Callback moved = std::move(large);
  EXPECT_FALSE(static_cast<bool>(large));  // NOLINT: moved-from is empty
  moved();
  EXPECT_EQ(hits, 26);
}

TEST(sched_Callback, MoveOnlyCapturesAndDestructionOnCancel) {
  auto owned = std::make_shared<int>(7);
  std::weak_ptr<int> watch = owned;
  Scheduler s;
  auto unique = std::make_unique<int>(5);
  int seen = 0;
  s.Schedule(1, [u = std::move(unique), &seen] { seen = *u; });
  EventId id = s.Schedule(2, [o = std::move(owned)] {});
  EXPECT_FALSE(watch.expired());
  EXPECT_TRUE(s.Cancel(id));
  EXPECT_TRUE(watch.expired());  // a cancelled callback is destroyed at once
  s.RunUntilIdle(10);
  EXPECT_EQ(seen, 5);
}

TEST(sched_BusyStats, AccountsBusyIdleAndEvents) {
  BusyStats st;
  st.RecordBusy(100, 300);  // idle 0..100, busy 100..300
  st.RecordBusy(300, 350);  // back to back
  st.RecordInstant();
  st.RecordBusy(400, 500);  // idle 350..400
  EXPECT_EQ(st.busy_ps(), 350u);
  EXPECT_EQ(st.idle_ps(), 150u);
  EXPECT_EQ(st.events(), 4u);
  st.CloseAt(1000);
  EXPECT_EQ(st.idle_ps(), 650u);
  EXPECT_EQ(st.busy_ps() + st.idle_ps(), 1000u);
  st.CloseAt(900);  // earlier than accounted: no change
  EXPECT_EQ(st.accounted_to_ps(), 1000u);
  st.Reset();
  EXPECT_EQ(st.busy_ps() + st.idle_ps() + st.events(), 0u);
}

TEST(sched_BusyStats, OverlapIsCountedOnce) {
  BusyStats st;
  st.RecordBusy(0, 100);
  st.RecordBusy(50, 150);  // overlaps 50..100
  st.RecordBusy(60, 90);   // entirely inside
  EXPECT_EQ(st.busy_ps(), 150u);
  EXPECT_EQ(st.idle_ps(), 0u);
  EXPECT_EQ(st.events(), 3u);
}

}  // namespace
}  // namespace trnsim::simulator
