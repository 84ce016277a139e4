// The hub meeting ranks of several instances (collective_hub.h "Multi-instance jobs"): exact
// results timed by EstimateClusterCollective, the cluster world bound, departures of an
// instance (NoteRank, DepartInstance), PortOptions::cancelled, and Run with an explicit
// occurrence. Ranks are threads; a rank's `cancelled` callback doubles as the sign that it is
// waiting in the hub (the hub calls it only from its wait loop).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collective_test_util.h"
#include "simulator/collective/cluster_cost.h"

namespace trnsim::simulator::collective {
namespace {

using isa::Dtype;
using testing::FromBytes;
using testing::ToBytes;
using namespace std::chrono_literals;

const InstanceSpec& Trn2_3xl() { return *FindInstanceSpec("trn2.3xlarge").value(); }
const InstanceSpec& Trn2_48xl() { return *FindInstanceSpec("trn2.48xlarge").value(); }

constexpr char kComm[] = "10.0.0.1:7000";

// One rank of a multi-instance test.
struct ClusterRank {
  uint32_t rank = 0;
  RankEndpoint::Instance instance;
  int chip = 0;
  CollectiveCall call;
  std::chrono::milliseconds timeout{5000};
  uint64_t execution = 0;
};

// Runs each rank on its own thread through its own port. `waiting` (when given) counts the ranks
// that have been seen waiting in the hub; `cancel` (when given) is every rank's cancelled().
class Ranks {
 public:
  void Start(CollectiveHub& hub, uint32_t world, std::vector<ClusterRank> ranks,
             const std::atomic<bool>* cancel = nullptr) {
    for (ClusterRank& r : ranks) {
      auto& slot =
          results_.emplace_back(std::make_unique<std::optional<StatusOr<CollectiveOutcome>>>());
      auto seen = std::make_shared<std::atomic<bool>>(false);
      threads_.emplace_back([&hub, world, r = std::move(r), slot = slot.get(), seen, cancel, this] {
        RankEndpoint endpoint{kComm, r.rank, world, r.chip, r.execution, true, r.instance};
        PortOptions options;
        options.host_timeout = r.timeout;
        options.cancelled = [this, seen, cancel] {
          if (!seen->exchange(true)) ++waiting_;
          return cancel != nullptr && cancel->load();
        };
        auto port = hub.Attach(endpoint, options);
        slot->emplace(port->Run(r.call));
      });
    }
  }

  // Waits (up to 5 s) until `n` ranks have been seen waiting.
  bool AwaitWaiting(int n) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (waiting_.load() < n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }

  std::vector<StatusOr<CollectiveOutcome>> Join() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    std::vector<StatusOr<CollectiveOutcome>> out;
    for (auto& r : results_) out.push_back(std::move(**r));
    results_.clear();
    return out;
  }

  ~Ranks() {
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<int> waiting_{0};
  std::vector<std::unique_ptr<std::optional<StatusOr<CollectiveOutcome>>>> results_;
  std::vector<std::thread> threads_;
};

CollectiveCall AllReduce(std::vector<float> in, uint32_t id = 0) {
  CollectiveCall c;
  c.kind = CollectiveKind::kAllReduce;
  c.dtype = Dtype::kFloat32;
  c.collective_id = id;
  c.output_bytes = in.size() * sizeof(float);
  c.input = ToBytes(in);
  return c;
}

// World 8: ranks 0-3 on instance "a:1", ranks 4-7 on "b:2" (both trn2.3xlarge unless given),
// chip 0, physical cores 0, 2, 4, 6; rank r contributes {r, 100 r} (`id` distinguishes calls).
std::vector<ClusterRank> EightRanks(uint32_t id, const InstanceSpec* b_spec = nullptr,
                                    std::chrono::milliseconds timeout = 5000ms) {
  std::vector<ClusterRank> ranks;
  for (uint32_t r = 0; r < 8; ++r) {
    ClusterRank x;
    x.rank = r;
    x.instance = r < 4 ? RankEndpoint::Instance{"a:1", &Trn2_3xl(), ""}
                       : RankEndpoint::Instance{"b:2", b_spec, ""};
    x.call = AllReduce({float(r), 100.0f * r}, id);
    x.call.physical_core = static_cast<int>(2 * (r % 4));
    x.call.arrival_ps = 1000 * (r + 1);
    x.timeout = timeout;
    ranks.push_back(std::move(x));
  }
  return ranks;
}

std::vector<ClusterRank> Slice(const std::vector<ClusterRank>& all, size_t from, size_t to) {
  return {all.begin() + from, all.begin() + to};
}

TEST(ClusterHub, RanksOfTwoInstancesMeetWithExactResultsAndClusterTiming) {
  // The hub is a trn2.48xlarge; instance b has no spec of its own (the hub's is used), so the
  // ring runs at the trn2.3xlarge's 25 GB/s (the slowest EFA).
  CollectiveHub hub(Trn2_48xl());
  Ranks ranks;
  ranks.Start(hub, 8, EightRanks(0));
  auto results = ranks.Join();
  std::vector<ClusterPlacement> placements;
  for (uint32_t r = 0; r < 8; ++r) {
    placements.push_back({r < 4 ? 0 : 1, {0, static_cast<int>(2 * (r % 4))}});
  }
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_48xl(), ""}};
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllReduce, 8, placements);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  EXPECT_EQ(cost->instances, 2);
  EXPECT_GT(cost->inter_instance_ps, 0u);
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<float>(r->output), (std::vector<float>{28.0f, 2800.0f}));
    EXPECT_EQ(r->complete_ps, 8000 + cost->duration_ps);  // the last arrival + the cost
  }
}

TEST(ClusterHub, AllGatherAcrossInstancesConcatenatesInRankOrder) {
  CollectiveHub hub(Trn2_3xl());
  std::vector<ClusterRank> all = EightRanks(0, &Trn2_3xl());
  for (ClusterRank& r : all) {
    r.call.kind = CollectiveKind::kAllGather;
    r.call.input = ToBytes<int32_t>({static_cast<int32_t>(r.rank) * 3});
    r.call.dtype = Dtype::kInt32;
    r.call.output_bytes = 8 * 4;
    r.call.arrival_ps = 0;
  }
  all[5].call.arrival_ps = 7777;
  Ranks ranks;
  ranks.Start(hub, 8, all);
  auto results = ranks.Join();
  std::vector<ClusterPlacement> placements;
  for (uint32_t r = 0; r < 8; ++r) {
    placements.push_back({r < 4 ? 0 : 1, {0, static_cast<int>(2 * (r % 4))}});
  }
  const std::vector<ClusterInstance> instances(2, {&Trn2_3xl(), ""});
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllGather, 4, placements);
  ASSERT_TRUE(cost.ok());
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<int32_t>(r->output), (std::vector<int32_t>{0, 3, 6, 9, 12, 15, 18, 21}));
    EXPECT_EQ(r->complete_ps, 7777 + cost->duration_ps);
  }
}

TEST(ClusterHub, ClusterWorldBoundIsMaxClusterWorldSize) {
  CollectiveHub hub(Trn2_3xl());
  ASSERT_EQ(MaxWorldSize(Trn2_3xl()), 8u);
  ASSERT_EQ(MaxClusterWorldSize(Trn2_3xl()), 8u * kMaxClusterInstances);
  // A group of one completes at once, so only the world bound decides.
  auto solo = [&](uint32_t world, bool cluster) {
    RankEndpoint endpoint{kComm, world - 1, world, 0, 0, cluster, {"b:2", &Trn2_3xl(), ""}};
    CollectiveCall call = AllReduce({1.0f});
    call.group = {1, 1};
    return hub.Attach(endpoint, {100ms})->Run(call).status().code();
  };
  EXPECT_EQ(solo(8, false), StatusCode::kOk);
  EXPECT_EQ(solo(9, false), StatusCode::kInvalid);
  EXPECT_EQ(solo(9, true), StatusCode::kOk);
  EXPECT_EQ(solo(MaxClusterWorldSize(Trn2_3xl()), true), StatusCode::kOk);
  EXPECT_EQ(solo(MaxClusterWorldSize(Trn2_3xl()) + 1, true), StatusCode::kInvalid);

  // A whole world of 16 (twice MaxWorldSize) over two instances meets.
  std::vector<ClusterRank> all;
  for (uint32_t r = 0; r < 16; ++r) {
    ClusterRank x;
    x.rank = r;
    x.instance = {r < 8 ? "a:1" : "b:2", &Trn2_3xl(), ""};
    x.call = AllReduce({1.0f, float(r)}, 1);
    x.call.physical_core = static_cast<int>(r % 8);
    all.push_back(std::move(x));
  }
  Ranks ranks;
  ranks.Start(hub, 16, all);
  for (auto& r : ranks.Join()) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<float>(r->output), (std::vector<float>{16.0f, 120.0f}));
  }
}

void NoteInstances(CollectiveHub& hub) {
  for (uint32_t r = 0; r < 8; ++r) hub.NoteRank(kComm, r, r < 4 ? "a:1" : "b:2");
}

TEST(ClusterHub, DepartedInstanceFailsWaitersAtOnceUntilItsRanksAreNotedAgain) {
  CollectiveHub hub(Trn2_3xl());
  NoteInstances(hub);
  const std::vector<ClusterRank> all = EightRanks(0, &Trn2_3xl(), 20'000ms);
  Ranks waiters;
  const auto start = std::chrono::steady_clock::now();
  waiters.Start(hub, 8, Slice(all, 0, 4));
  ASSERT_TRUE(waiters.AwaitWaiting(4));
  hub.DepartInstance("b:2", "the daemon of instance b:2 went away");
  for (auto& r : waiters.Join()) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_NE(r.status().message().find("ranks 4, 5, 6, 7"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find("the daemon of instance b:2 went away"), std::string::npos)
        << r.status().message();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // not their 20 s timeout

  // A later rendezvous that needs a departed rank fails at once, on arrival.
  std::vector<ClusterRank> later = EightRanks(1, &Trn2_3xl(), 20'000ms);
  Ranks again;
  again.Start(hub, 8, Slice(later, 0, 1));
  auto refused = again.Join();
  ASSERT_EQ(refused[0].status().code(), StatusCode::kExecHwErrCollectives);
  EXPECT_NE(refused[0].status().message().find("left the job"), std::string::npos)
      << refused[0].status().message();
  EXPECT_NE(refused[0].status().message().find("b:2 went away"), std::string::npos);

  // A rerun: instance b's ranks are noted again, and the job meets.
  for (uint32_t r = 4; r < 8; ++r) hub.NoteRank(kComm, r, "b:2");
  Ranks rerun;
  rerun.Start(hub, 8, EightRanks(2, &Trn2_3xl()));
  for (auto& r : rerun.Join()) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<float>(r->output), (std::vector<float>{28.0f, 2800.0f}));
  }
}

TEST(ClusterHub, RerunOfTheSameCallsAfterADepartureMeets) {
  // The rerun repeats the failed rendezvous exactly (same execution, id and occurrence), and the
  // departed instance's new ranks arrive first: they must wait for the others, not be handed
  // the failure their departed predecessors were owed.
  CollectiveHub hub(Trn2_3xl());
  NoteInstances(hub);
  const std::vector<ClusterRank> all = EightRanks(0, &Trn2_3xl(), 20'000ms);
  Ranks waiters;
  waiters.Start(hub, 8, Slice(all, 0, 4));
  ASSERT_TRUE(waiters.AwaitWaiting(4));
  hub.DepartInstance("b:2", "gone");
  for (auto& r : waiters.Join()) {
    EXPECT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
  }
  for (uint32_t r = 4; r < 8; ++r) hub.NoteRank(kComm, r, "b:2");
  Ranks rerun;
  rerun.Start(hub, 8, Slice(all, 4, 8));
  ASSERT_TRUE(rerun.AwaitWaiting(4));
  rerun.Start(hub, 8, Slice(all, 0, 4));
  for (auto& r : rerun.Join()) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<float>(r->output), (std::vector<float>{28.0f, 2800.0f}));
  }
}

TEST(ClusterHub, DepartureNamesOnlyTheMissingRanksOfThatInstance) {
  // Ranks 0-3 and 4-5 wait; 6 and 7 (instance b) are missing when b departs.
  CollectiveHub hub(Trn2_3xl());
  NoteInstances(hub);
  const std::vector<ClusterRank> all = EightRanks(0, &Trn2_3xl(), 20'000ms);
  Ranks waiters;
  waiters.Start(hub, 8, Slice(all, 0, 6));
  ASSERT_TRUE(waiters.AwaitWaiting(6));
  hub.DepartInstance("b:2", "gone");
  for (auto& r : waiters.Join()) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_NE(r.status().message().find("ranks 6, 7 left the job: gone"), std::string::npos)
        << r.status().message();
  }
}

TEST(ClusterHub, DepartureOfAnInstanceWithoutNotedRanksChangesNothing) {
  CollectiveHub hub(Trn2_3xl());
  NoteInstances(hub);
  const std::vector<ClusterRank> all = EightRanks(0, &Trn2_3xl());
  Ranks ranks;
  ranks.Start(hub, 8, Slice(all, 0, 4));
  ASSERT_TRUE(ranks.AwaitWaiting(4));
  hub.DepartInstance("c:3", "instance c went away");
  hub.NoteRank("another-comm", 4, "d:4");
  hub.DepartInstance("d:4", "d went away");  // a rank of another communicator
  ranks.Start(hub, 8, Slice(all, 4, 8));
  for (auto& r : ranks.Join()) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<float>(r->output), (std::vector<float>{28.0f, 2800.0f}));
  }
}

TEST(ClusterHub, CancelledCallbackFailsTheRendezvousLikeTheCancelFlag) {
  CollectiveHub hub(Trn2_3xl());
  const std::vector<ClusterRank> all = EightRanks(0, &Trn2_3xl(), 20'000ms);
  std::atomic<bool> gone{false};
  Ranks cancelled;
  cancelled.Start(hub, 8, Slice(all, 0, 1), &gone);
  Ranks others;
  others.Start(hub, 8, Slice(all, 1, 3));
  ASSERT_TRUE(cancelled.AwaitWaiting(1));
  ASSERT_TRUE(others.AwaitWaiting(2));
  gone = true;
  auto mine = cancelled.Join();
  ASSERT_EQ(mine[0].status().code(), StatusCode::kExecHwErrCollectives);
  EXPECT_NE(mine[0].status().message().find("rank 0 was cancelled"), std::string::npos)
      << mine[0].status().message();
  for (auto& r : others.Join()) {
    ASSERT_EQ(r.status().code(), StatusCode::kExecHwErrCollectives) << r.status().ToString();
    EXPECT_NE(r.status().message().find("rank 0 was cancelled"), std::string::npos);
  }
}

TEST(ClusterHub, RunWithAnExplicitOccurrenceMeetsThePortsCallOfThatOccurrence) {
  // Rank 0 issues id 7 twice through a port (occurrences 0 and 1); rank 1's calls come through
  // Run with explicit occurrences, the second one first.
  CollectiveHub hub(Trn2_3xl());
  auto endpoint = [](uint32_t rank, const char* id) {
    return RankEndpoint{kComm, rank, 2, 0, 0, true, {id, &Trn2_3xl(), ""}};
  };
  std::vector<StatusOr<CollectiveOutcome>> port_results;
  std::optional<StatusOr<CollectiveOutcome>> second, first;
  std::thread occurrence1([&] {
    CollectiveCall c = AllReduce({20.0f}, 7);
    second.emplace(hub.Run(endpoint(1, "b:2"), {5000ms}, c, 1));
  });
  std::thread occurrence0([&] {
    CollectiveCall c = AllReduce({10.0f}, 7);
    first.emplace(hub.Run(endpoint(1, "b:2"), {5000ms}, c, 0));
  });
  std::thread port_thread([&] {
    auto port = hub.Attach(endpoint(0, "a:1"), {5000ms});
    port_results.push_back(port->Run(AllReduce({1.0f}, 7)));
    port_results.push_back(port->Run(AllReduce({2.0f}, 7)));
  });
  occurrence1.join();
  occurrence0.join();
  port_thread.join();
  ASSERT_EQ(port_results.size(), 2u);
  ASSERT_TRUE(port_results[0].ok()) << port_results[0].status().ToString();
  ASSERT_TRUE(port_results[1].ok()) << port_results[1].status().ToString();
  ASSERT_TRUE(first->ok()) << first->status().ToString();
  ASSERT_TRUE(second->ok()) << second->status().ToString();
  EXPECT_EQ(FromBytes<float>(port_results[0]->output), std::vector<float>{11.0f});
  EXPECT_EQ(FromBytes<float>((*first)->output), std::vector<float>{11.0f});
  EXPECT_EQ(FromBytes<float>(port_results[1]->output), std::vector<float>{22.0f});
  EXPECT_EQ(FromBytes<float>((*second)->output), std::vector<float>{22.0f});
}

}  // namespace
}  // namespace trnsim::simulator::collective
