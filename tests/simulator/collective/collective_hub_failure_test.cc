// The hub's failures: mismatched calls, missing ranks, cancelled ranks, late arrivals after a
// failure; and the host collectives.
#include <gtest/gtest.h>

#include "collective_test_util.h"

namespace trnsim::simulator::collective {
namespace {

using isa::Dtype;
using std::chrono::milliseconds;
using testing::FromBytes;
using testing::RunRanks;
using testing::TestRank;
using testing::ToBytes;
using testing::Trn2_48xl;

CollectiveCall AllReduce(uint32_t elements, ReplicaGroupSpec group = {}) {
  CollectiveCall c;
  c.dtype = Dtype::kFloat32;
  c.group = group;
  c.input.assign(elements * 4, 0);
  c.output_bytes = elements * 4;
  return c;
}

std::vector<TestRank> FourRanks(milliseconds timeout = milliseconds(5000)) {
  std::vector<TestRank> ranks;
  for (uint32_t r = 0; r < 4; ++r) ranks.push_back({r, AllReduce(2), int(r), {}, timeout});
  return ranks;
}

bool Contains(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

TEST(CollectiveHubFailure, SizeMismatchFailsEveryRankNamingTheOddOne) {
  CollectiveHub hub(Trn2_48xl());
  auto ranks = FourRanks();
  ranks[1].call = AllReduce(3);
  for (auto& r : RunRanks(hub, 4, ranks)) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "ranks 0, 2, 3: all_reduce add fp32, 8 B"))
        << r.status().message();
    EXPECT_TRUE(Contains(r.status(), "rank 1: all_reduce add fp32, 12 B")) << r.status().message();
  }
}

TEST(CollectiveHubFailure, KindMismatchFailsEveryRank) {
  CollectiveHub hub(Trn2_48xl());
  auto ranks = FourRanks();
  ranks[2].call.kind = CollectiveKind::kPermute;
  for (auto& r : RunRanks(hub, 4, ranks)) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "rank 2: permute")) << r.status().message();
  }
}

TEST(CollectiveHubFailure, GroupMismatchFailsEveryRank) {
  // Rank 1 thinks its group is [0, 1]; the others use the whole world [0, 1, 2, 3]. The calls
  // meet (same first member) and disagree.
  CollectiveHub hub(Trn2_48xl());
  auto ranks = FourRanks();
  ranks[1].call.group = {2, 1};
  ranks[1].delay = milliseconds(20);
  for (auto& r : RunRanks(hub, 4, ranks)) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "rank 1 calls with group [0,1]")) << r.status().message();
  }
}

TEST(CollectiveHubFailure, MissingRankTimesOutNamingIt) {
  CollectiveHub hub(Trn2_48xl());
  auto ranks = FourRanks(milliseconds(200));
  ranks.pop_back();  // rank 3 never calls
  auto results = RunRanks(hub, 4, ranks);
  for (auto& r : results) {
    ASSERT_EQ(r.status().code(), StatusCode::kTimeout) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "rank 3 of group [0,1,2,3] did not arrive within 200 ms"))
        << r.status().message();
  }
  // Rank 3 arriving late gets the recorded failure instead of waiting: its own wait (5 s) would
  // name ranks 0-2 and its own 5000 ms; the status names rank 3 and the others' 200 ms.
  auto late = FourRanks(milliseconds(5000));
  auto late_result = RunRanks(hub, 4, {late[3]});
  EXPECT_EQ(late_result[0].status().code(), StatusCode::kTimeout);
  EXPECT_TRUE(Contains(late_result[0].status(),
                       "rank 3 of group [0,1,2,3] did not arrive within 200 ms"))
      << late_result[0].status().message();
  // Told once: the same key is a new meeting afterwards (a rerun of the job) — all four meet.
  auto rerun = RunRanks(hub, 4, FourRanks(milliseconds(5000)));
  for (auto& r : rerun) EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST(CollectiveHubFailure, ARankThatWasPresentStartsANewMeetingAfterAFailure) {
  // Ranks 0-2 time out waiting for rank 3; then the job is rerun: rank 0 (present when it
  // failed) comes first, so the old failure is forgotten and the rerun meets normally.
  CollectiveHub hub(Trn2_48xl());
  auto ranks = FourRanks(milliseconds(100));
  ranks.pop_back();
  for (auto& r : RunRanks(hub, 4, ranks)) ASSERT_EQ(r.status().code(), StatusCode::kTimeout);
  auto rerun = FourRanks(milliseconds(5000));
  for (size_t i = 1; i < rerun.size(); ++i) rerun[i].delay = milliseconds(50);
  for (auto& r : RunRanks(hub, 4, rerun)) EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST(CollectiveHubFailure, CancelledRankFailsTheOthersNamingIt) {
  CollectiveHub hub(Trn2_48xl());
  std::atomic<bool> cancel{false};
  auto ranks = FourRanks(milliseconds(10000));
  ranks[3].cancel = &cancel;
  ranks.erase(ranks.begin() + 2);  // rank 2 never calls: the others wait
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(60));
    cancel = true;
  });
  auto results = RunRanks(hub, 4, ranks);
  canceller.join();
  // The cancellation ends the wait (a timeout would be NRT_TIMEOUT after 10 s).
  for (auto& r : results) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "rank 3 was cancelled")) << r.status().message();
  }
}

TEST(CollectiveHubFailure, ARankCancelledBeforeItsWaitNoticesIsNotMetWith) {
  // Rank 0 waits; its cancel flag is set (its process died) and rank 1 arrives at once, before
  // rank 0's wait looks at the flag again (every 20 ms). Rank 1 must not complete the
  // all-reduce with the departed rank's input: the meeting fails for both, naming rank 0.
  CollectiveHub hub(Trn2_48xl());
  std::atomic<bool> cancel{false};
  std::optional<StatusOr<CollectiveOutcome>> first;
  std::thread waiter([&] {
    auto port = hub.Attach({"c", 0, 2, 0, 0}, {milliseconds(10000), &cancel});
    first.emplace(port->Run(AllReduce(1)));
  });
  std::this_thread::sleep_for(milliseconds(100));  // rank 0 is waiting by now
  cancel = true;
  auto port = hub.Attach({"c", 1, 2, 1, 0}, {milliseconds(10000), nullptr});
  StatusOr<CollectiveOutcome> second = port->Run(AllReduce(1));
  waiter.join();
  for (const auto* r : {&*first, &second}) {
    ASSERT_EQ(r->status().code(), StatusCode::kExecHwErrCollectives) << r->status().ToString();
    EXPECT_TRUE(Contains(r->status(), "rank 0 was cancelled while waiting for group [0,1]"))
        << r->status().message();
  }
}

TEST(CollectiveHubFailure, ExecutionsMeetOnlyOnEqualSequence) {
  // Rank 1 is one execution ahead: nobody meets and both time out.
  CollectiveHub hub(Trn2_48xl());
  std::vector<std::optional<StatusOr<CollectiveOutcome>>> results(2);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      auto port = hub.Attach({"c", r, 2, 0, r}, {milliseconds(150), nullptr});
      results[r].emplace(port->Run(AllReduce(1)));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[0]->status().code(), StatusCode::kTimeout);
  EXPECT_TRUE(Contains(results[0]->status(), "rank 1 of group [0,1]"));
  EXPECT_TRUE(Contains(results[1]->status(), "rank 0 of group [0,1]"));
}

std::vector<StatusOr<std::vector<uint8_t>>> RunHost(CollectiveHub& hub,
                                                    std::vector<HostCollectiveCall> calls) {
  std::vector<std::optional<StatusOr<std::vector<uint8_t>>>> results(calls.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < calls.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i].emplace(hub.HostCollective(calls[i], {milliseconds(2000), nullptr}));
    });
  }
  for (auto& t : threads) t.join();
  std::vector<StatusOr<std::vector<uint8_t>>> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

TEST(CollectiveHubHost, BarrierThenAllGatherInRankOrder) {
  CollectiveHub hub(Trn2_48xl());
  std::vector<HostCollectiveCall> barrier, gather;
  for (uint32_t r = 0; r < 4; ++r) {
    barrier.push_back({HostCollectiveKind::kBarrier, "job", r, 4, 0, {}});
    gather.push_back(
        {HostCollectiveKind::kAllGather, "job", 3 - r, 4, 1, ToBytes<int32_t>({int(3 - r)})});
  }
  for (auto& r : RunHost(hub, barrier)) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->empty());
  }
  for (auto& r : RunHost(hub, gather)) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<int32_t>(*r), (std::vector<int32_t>{0, 1, 2, 3}));
  }
}

TEST(CollectiveHubHost, AllGatherSizeMismatchFailsNamingRanks) {
  CollectiveHub hub(Trn2_48xl());
  std::vector<HostCollectiveCall> gather;
  for (uint32_t r = 0; r < 3; ++r) {
    gather.push_back(
        {HostCollectiveKind::kAllGather, "job", r, 3, 0, std::vector<uint8_t>(r == 2 ? 8 : 4, 1)});
  }
  for (auto& r : RunHost(hub, gather)) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "ranks 0, 1: all_gather of 4 B")) << r.status().message();
    EXPECT_TRUE(Contains(r.status(), "rank 2: all_gather of 8 B")) << r.status().message();
  }
}

TEST(CollectiveHubHost, MissingRankTimesOut) {
  CollectiveHub hub(Trn2_48xl());
  auto result = hub.HostCollective({HostCollectiveKind::kBarrier, "job", 0, 2, 0, {}},
                                   {milliseconds(100), nullptr});
  EXPECT_EQ(result.status().code(), StatusCode::kTimeout);
  EXPECT_TRUE(Contains(result.status(), "rank 1 of group [0,1]")) << result.status().message();
}

// Issue 20 F1: a world the instance cannot hold is refused before anything is allocated for it,
// on every rank that names it, host and device collectives alike (MaxWorldSize: one rank per
// physical core; 128 on a trn2.48xlarge). Before, 2,000,000 ranks allocated ~430 MiB and waited.
TEST(CollectiveHubHost, AWorldLargerThanTheInstanceIsRefusedOnEveryRank) {
  CollectiveHub hub(Trn2_48xl());
  EXPECT_EQ(MaxWorldSize(Trn2_48xl()), 128u);
  HostCollectiveCall call;
  call.kind = HostCollectiveKind::kAllGather;
  call.communicator = "huge";
  call.world_size = 2'000'000;
  call.input = {1, 2, 3, 4};
  for (uint32_t rank : {0u, 1u, 1'999'999u}) {
    call.rank = rank;
    StatusOr<std::vector<uint8_t>> result = hub.HostCollective(call, {milliseconds(50), nullptr});
    EXPECT_EQ(result.status().code(), StatusCode::kInvalid) << result.status().ToString();
    EXPECT_TRUE(Contains(result.status(), "128")) << result.status().message();
  }
  call.world_size = 129;
  call.rank = 0;
  EXPECT_EQ(hub.HostCollective(call, {milliseconds(50), nullptr}).status().code(),
            StatusCode::kInvalid);
  auto port = hub.Attach({"huge", 0, 129, 0, 0}, {milliseconds(50), nullptr});
  EXPECT_EQ(port->Run(AllReduce(2)).status().code(), StatusCode::kInvalid);
  // The largest world is still served.
  call.world_size = 128;
  call.rank = 0;
  EXPECT_EQ(hub.HostCollective(call, {milliseconds(1), nullptr}).status().code(),
            StatusCode::kTimeout);
}

}  // namespace
}  // namespace trnsim::simulator::collective
