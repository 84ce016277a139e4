// EstimateClusterCollective (simulator/collective/cluster_cost.h): a group on one instance is
// EstimateCollective; across instances the local algorithm of the slowest instance plus a ring of
// instances over EFA (the slowest instance's figure) or the UltraServer's Z links; all_to_all
// and permute as one direct exchange; refusals; member order. Every expected figure is written
// out from the header's formula in integer picoseconds.
#include "simulator/collective/cluster_cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "simulator/collective/collective_cost.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {
namespace {

const InstanceSpec& Spec(const char* type) { return *FindInstanceSpec(type).value(); }
const InstanceSpec& Trn2_3xl() { return Spec("trn2.3xlarge"); }
const InstanceSpec& Trn2_48xl() { return Spec("trn2.48xlarge"); }
const InstanceSpec& Trn2u() { return Spec("trn2u.48xlarge"); }

constexpr uint64_t kPs = 1'000'000'000'000;  // per second
constexpr uint64_t kEfaLatencyPs = 15'000'000;
constexpr uint64_t kEfa3xl = 25'000'000'000;    // trn2.3xlarge, one direction
constexpr uint64_t kEfa48xl = 400'000'000'000;  // trn2.48xlarge / trn2u.48xlarge
constexpr uint64_t kZLink = 31'750'000'000;     // trn2u: 63.5 GB/s torus rate / 2
constexpr uint64_t kHopPs = 1'500'000;          // Trainium2 neuronlink_hop_latency_ps
constexpr uint64_t kFixedPs = 291'300'000;      // Trainium2 cc_fixed_ps

// ceil(bytes / (lanes x rate) seconds) in ps.
uint64_t TransferCeilPs(uint64_t bytes, uint64_t lanes, uint64_t bytes_per_s) {
  const unsigned __int128 num = static_cast<unsigned __int128>(bytes) * kPs;
  const unsigned __int128 den = static_cast<unsigned __int128>(lanes) * bytes_per_s;
  return static_cast<uint64_t>((num + den - 1) / den);
}

// `cores` on chip 0 of instance `instance`.
std::vector<ClusterPlacement> OnChip0(int instance, std::vector<int> cores) {
  std::vector<ClusterPlacement> out;
  for (int c : cores) out.push_back({instance, {0, c}});
  return out;
}

std::vector<ClusterPlacement> Concat(std::vector<ClusterPlacement> a,
                                     const std::vector<ClusterPlacement>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<RankPlacement> Local(const std::vector<ClusterPlacement>& members, int instance) {
  std::vector<RankPlacement> out;
  for (const ClusterPlacement& m : members) {
    if (m.instance == instance) out.push_back(m.where);
  }
  return out;
}

uint64_t LocalPs(const InstanceSpec& spec, CollectiveKind kind, uint64_t bytes,
                 const std::vector<RankPlacement>& ranks) {
  StatusOr<CollectiveCost> c = EstimateCollective(spec, kind, bytes, ranks);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? c->duration_ps : 0;
}

// Two trn2.3xlarge x 4 ranks: chip 0, physical cores 0, 2, 4, 6.
std::vector<ClusterPlacement> TwoBy4() {
  return Concat(OnChip0(0, {0, 2, 4, 6}), OnChip0(1, {0, 2, 4, 6}));
}

TEST(ClusterCost, OneInstanceIsExactlyEstimateCollective) {
  // The group lives on instance 1 (a trn2.48xlarge): its own spec, not instance 0's, counts.
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_48xl(), ""}};
  const std::vector<RankPlacement> ranks = {{0, 0}, {1, 0}, {2, 4}, {3, 0}, {3, 1}};
  std::vector<ClusterPlacement> members;
  for (const RankPlacement& r : ranks) members.push_back({1, r});
  for (CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
        CollectiveKind::kAllToAll, CollectiveKind::kPermute}) {
    for (uint64_t bytes : {uint64_t{4096}, uint64_t{5 << 20}}) {
      SCOPED_TRACE(std::string(CollectiveKindName(kind)) + " " + std::to_string(bytes));
      auto cluster = EstimateClusterCollective(instances, kind, bytes, members, 2);
      auto local = EstimateCollective(Trn2_48xl(), kind, bytes, ranks, 2);
      ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
      ASSERT_TRUE(local.ok()) << local.status().ToString();
      EXPECT_GT(cluster->duration_ps, 0u);
      EXPECT_EQ(cluster->duration_ps, local->duration_ps);
      EXPECT_EQ(cluster->algorithm, local->algorithm);
      EXPECT_EQ(cluster->detail, local->detail);
      EXPECT_EQ(cluster->bus_bytes_per_s, local->bus_bytes_per_s);
      EXPECT_EQ(cluster->instances, 1);
      EXPECT_EQ(cluster->inter_instance_ps, 0u);
      EXPECT_EQ(cluster->inter_instance_link, "");
    }
  }
}

TEST(ClusterCost, AllReduceTwoTrn2_3xlargeOverEfa) {
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_3xl(), ""}};
  const uint64_t bytes = 512 * 1024;
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllReduce, bytes, TwoBy4());
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  const uint64_t local =
      LocalPs(Trn2_3xl(), CollectiveKind::kAllReduce, bytes, {{0, 0}, {0, 2}, {0, 4}, {0, 6}});
  ASSERT_GT(local, 0u);
  // One ring step: 15 us + 524288 B / (2 x 25 GB/s) = 15,000,000 + 10,485,760 ps; 2 halves of
  // I - 1 = 1 step.
  EXPECT_EQ(TransferCeilPs(bytes, 2, kEfa3xl), 10'485'760u);
  EXPECT_EQ(cost->inter_instance_ps, 50'971'520u);
  EXPECT_EQ(cost->duration_ps, local + 50'971'520u);
  EXPECT_EQ(cost->inter_instance_link, "efa");
  EXPECT_EQ(cost->instances, 2);
  EXPECT_EQ(cost->fixed_ps, kFixedPs);
  // nccl-tests bus bandwidth: S x 2(G-1)/G / duration, G = 8.
  const double expected_bus = static_cast<double>(bytes) * 1e12 /
                              static_cast<double>(cost->duration_ps) * (2.0 * 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(cost->bus_bytes_per_s, expected_bus);
}

TEST(ClusterCost, ThreeInstancesOneRankEachPayFixedOnceAndTwoStepsPerHalf) {
  // No local collective runs (one rank per instance): cc_fixed_ps is paid once on top of the
  // ring of I = 3: 2 halves x 2 steps x (15 us + 3 MiB / (3 x 25 GB/s)).
  const std::vector<ClusterInstance> instances(3, {&Trn2_3xl(), ""});
  const std::vector<ClusterPlacement> members = {{0, {0, 0}}, {1, {0, 0}}, {2, {0, 0}}};
  const uint64_t bytes = 3 * 1024 * 1024;
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllReduce, bytes, members);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  EXPECT_EQ(TransferCeilPs(bytes, 3, kEfa3xl), 41'943'040u);
  const uint64_t step = kEfaLatencyPs + 41'943'040;
  EXPECT_EQ(cost->inter_instance_ps, 4 * step);
  EXPECT_EQ(cost->duration_ps, kFixedPs + 4 * step);
  EXPECT_EQ(cost->instances, 3);
}

TEST(ClusterCost, AllGatherLocalPartGathersIInputsAndOneHalfOfTheOutput) {
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_3xl(), ""}};
  const uint64_t input = 64 * 1024;  // output G x input = 512 KiB
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllGather, input, TwoBy4());
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  const uint64_t local =
      LocalPs(Trn2_3xl(), CollectiveKind::kAllGather, 2 * input, {{0, 0}, {0, 2}, {0, 4}, {0, 6}});
  // One half, one step: 15 us + 524288 / (2 x 25 GB/s).
  EXPECT_EQ(cost->inter_instance_ps, 25'485'760u);
  EXPECT_EQ(cost->duration_ps, local + 25'485'760u);
  // The local part is of I x input, not of the input alone.
  EXPECT_NE(local, LocalPs(Trn2_3xl(), CollectiveKind::kAllGather, input,
                           {{0, 0}, {0, 2}, {0, 4}, {0, 6}}));
  EXPECT_EQ(cost->inter_instance_link, "efa");
}

TEST(ClusterCost, ReduceScatterIsLocalPlusOneHalf) {
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_3xl(), ""}};
  const uint64_t bytes = 512 * 1024;
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kReduceScatter, bytes, TwoBy4());
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  const uint64_t local =
      LocalPs(Trn2_3xl(), CollectiveKind::kReduceScatter, bytes, {{0, 0}, {0, 2}, {0, 4}, {0, 6}});
  EXPECT_EQ(cost->inter_instance_ps, 25'485'760u);
  EXPECT_EQ(cost->duration_ps, local + 25'485'760u);
}

// Four trn2u.48xlarge, 2 ranks each on chips 0 and 1.
std::vector<ClusterPlacement> FourNodesTwoChips() {
  std::vector<ClusterPlacement> members;
  for (int i = 0; i < 4; ++i) {
    members.push_back({i, {0, 0}});
    members.push_back({i, {1, 0}});
  }
  return members;
}

TEST(ClusterCost, UltraServerNodesUseTheZLinks) {
  ASSERT_EQ(Trn2u().ultraserver_link_bytes_per_s_per_direction, kZLink);
  ASSERT_EQ(Trn2u().chip->neuronlink_hop_latency_ps, kHopPs);
  const std::vector<ClusterInstance> same(4, {&Trn2u(), "us-1"});
  const uint64_t bytes = 512 * 1024;
  const std::vector<ClusterPlacement> members = FourNodesTwoChips();
  auto cost = EstimateClusterCollective(same, CollectiveKind::kAllReduce, bytes, members);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  const uint64_t local = LocalPs(Trn2u(), CollectiveKind::kAllReduce, bytes, {{0, 0}, {1, 0}});
  // Step: hop latency + S / (I x lanes x z), lanes = 2 x 2 chips: 524288e12 / (16 x 31.75e9)
  // = 1,032,062.99 -> 1,032,063 ps; 2 halves x 3 steps.
  EXPECT_EQ(TransferCeilPs(bytes, 16, kZLink), 1'032'063u);
  const uint64_t z_step = kHopPs + 1'032'063;
  EXPECT_EQ(cost->inter_instance_link, "ultraserver");
  EXPECT_EQ(cost->inter_instance_ps, 6 * z_step);
  EXPECT_EQ(cost->duration_ps, local + 6 * z_step);
  EXPECT_EQ(cost->instances, 4);

  // Different or empty UltraServer ids: EFA at 400 GB/s and 15 us, which costs more.
  const uint64_t efa_step = kEfaLatencyPs + TransferCeilPs(bytes, 4, kEfa48xl);
  EXPECT_EQ(TransferCeilPs(bytes, 4, kEfa48xl), 327'680u);
  const std::vector<std::vector<ClusterInstance>> efa_cases = {
      std::vector<ClusterInstance>(4, {&Trn2u(), ""}),
      {{&Trn2u(), "us-1"}, {&Trn2u(), "us-1"}, {&Trn2u(), "us-2"}, {&Trn2u(), "us-1"}},
      {{&Trn2u(), "us-1"}, {&Trn2u(), "us-1"}, {&Trn2u(), "us-1"}, {&Trn2u(), ""}},
      // Mixed types: trn2.48xlarge is no UltraServer node.
      {{&Trn2u(), "us-1"}, {&Trn2u(), "us-1"}, {&Trn2_48xl(), "us-1"}, {&Trn2u(), "us-1"}},
  };
  for (size_t i = 0; i < efa_cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    auto efa = EstimateClusterCollective(efa_cases[i], CollectiveKind::kAllReduce, bytes, members);
    ASSERT_TRUE(efa.ok()) << efa.status().ToString();
    EXPECT_EQ(efa->inter_instance_link, "efa");
    EXPECT_EQ(efa->inter_instance_ps, 6 * efa_step);
    EXPECT_EQ(efa->duration_ps, local + 6 * efa_step);
    EXPECT_GT(efa->duration_ps, cost->duration_ps);
  }
}

TEST(ClusterCost, UltraServerLanesCountTheInstanceWithFewestChips) {
  // Node 0 holds ranks on 4 chips, node 1 on 2 chips (two ranks each): lanes = 2 x 2.
  const std::vector<ClusterInstance> instances(2, {&Trn2u(), "us-1"});
  const std::vector<ClusterPlacement> members = {
      {0, {0, 0}}, {0, {1, 0}}, {0, {2, 0}}, {0, {3, 0}},
      {1, {0, 0}}, {1, {0, 2}}, {1, {1, 0}}, {1, {1, 2}},
  };
  const uint64_t bytes = 1024 * 1024;
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kReduceScatter, bytes, members);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  const uint64_t local =
      std::max(LocalPs(Trn2u(), CollectiveKind::kReduceScatter, bytes, Local(members, 0)),
               LocalPs(Trn2u(), CollectiveKind::kReduceScatter, bytes, Local(members, 1)));
  // 1048576e12 / (2 x 4 x 31.75e9) = 4,128,251.97 -> 4,128,252 ps.
  EXPECT_EQ(TransferCeilPs(bytes, 8, kZLink), 4'128'252u);
  EXPECT_EQ(cost->inter_instance_link, "ultraserver");
  EXPECT_EQ(cost->inter_instance_ps, kHopPs + 4'128'252);
  EXPECT_EQ(cost->duration_ps, local + kHopPs + 4'128'252);
}

TEST(ClusterCost, MoreInstancesThanUltraServerNodesFallBackToEfa) {
  ASSERT_EQ(Trn2u().ultraserver_nodes, 4);
  const std::vector<ClusterInstance> five(5, {&Trn2u(), "us-1"});
  std::vector<ClusterPlacement> members;
  for (int i = 0; i < 5; ++i) members.push_back({i, {0, 0}});
  const uint64_t bytes = 5 * 1024 * 1024;
  auto cost = EstimateClusterCollective(five, CollectiveKind::kAllReduce, bytes, members);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  // 5 MiB / (5 x 400 GB/s) = 2,621,440 ps; 2 halves x 4 steps; no local part.
  EXPECT_EQ(TransferCeilPs(bytes, 5, kEfa48xl), 2'621'440u);
  EXPECT_EQ(cost->inter_instance_link, "efa");
  EXPECT_EQ(cost->inter_instance_ps, 8 * (kEfaLatencyPs + 2'621'440));
  EXPECT_EQ(cost->duration_ps, kFixedPs + 8 * (kEfaLatencyPs + 2'621'440));
}

TEST(ClusterCost, SlowestInstanceEfaFigureWins) {
  const std::vector<ClusterPlacement> members = {{0, {0, 0}}, {1, {0, 0}}};
  const uint64_t bytes = 1024 * 1024;
  const std::vector<ClusterInstance> mixed = {{&Trn2_3xl(), ""}, {&Trn2_48xl(), ""}};
  auto cost = EstimateClusterCollective(mixed, CollectiveKind::kAllReduce, bytes, members);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  // 1 MiB / (2 x 25 GB/s) = 20,971,520 ps.
  EXPECT_EQ(cost->inter_instance_ps, 2 * (kEfaLatencyPs + 20'971'520));
  EXPECT_EQ(cost->duration_ps, kFixedPs + 2 * (kEfaLatencyPs + 20'971'520));
  // Two trn2.48xlarge: 1 MiB / (2 x 400 GB/s) = 1,310,720 ps.
  const std::vector<ClusterInstance> fast = {{&Trn2_48xl(), ""}, {&Trn2_48xl(), ""}};
  auto quick = EstimateClusterCollective(fast, CollectiveKind::kAllReduce, bytes, members);
  ASSERT_TRUE(quick.ok()) << quick.status().ToString();
  EXPECT_EQ(quick->inter_instance_ps, 2 * (kEfaLatencyPs + 1'310'720));
}

TEST(ClusterCost, AllToAllAcrossInstancesIsOneDirectExchange) {
  // 2 x trn2.3xlarge x 2 ranks (chip 0, cores 0 and 2), G = 4: every pair moves input / 4.
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_3xl(), ""}};
  const std::vector<ClusterPlacement> members = Concat(OnChip0(0, {0, 2}), OnChip0(1, {0, 2}));
  const uint64_t bytes = 4 * 1024 * 1024;
  const uint64_t block = bytes / 4;
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllToAll, bytes, members);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  // Inside an instance: two flows of a block on chip 0.
  const std::vector<ChipFlow> flows = {{0, 0, block}, {0, 0, block}};
  const uint64_t local = EstimateDirectExchange(Trn2_3xl(), flows).duration_ps;
  ASSERT_GT(local, 0u);
  // Each instance sends 2 ranks x 2 remote peers x 1 MiB = 4 MiB: 4 MiB / 25 GB/s.
  EXPECT_EQ(TransferCeilPs(4 * block, 1, kEfa3xl), 167'772'160u);
  const uint64_t inter = kEfaLatencyPs + 167'772'160;
  EXPECT_EQ(cost->inter_instance_ps, inter);
  EXPECT_EQ(cost->duration_ps, kFixedPs + std::max(local, inter));
  EXPECT_EQ(cost->algorithm, "direct");
  EXPECT_EQ(cost->inter_instance_link, "efa");
  EXPECT_EQ(cost->instances, 2);
}

TEST(ClusterCost, PermuteAcrossInstancesCountsTheBusiestLink) {
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_3xl(), ""}};
  const uint64_t bytes = 1024 * 1024;
  // Shift 1 over [i0 c0, i0 c2, i1 c0, i1 c2]: one local flow and one crossing per instance.
  const std::vector<ClusterPlacement> members = Concat(OnChip0(0, {0, 2}), OnChip0(1, {0, 2}));
  auto cost = EstimateClusterCollective(instances, CollectiveKind::kPermute, bytes, members, 1);
  ASSERT_TRUE(cost.ok()) << cost.status().ToString();
  const std::vector<ChipFlow> one = {{0, 0, bytes}};
  const uint64_t local = EstimateDirectExchange(Trn2_3xl(), one).duration_ps;
  EXPECT_EQ(TransferCeilPs(bytes, 1, kEfa3xl), 41'943'040u);
  EXPECT_EQ(cost->inter_instance_ps, kEfaLatencyPs + 41'943'040);
  EXPECT_EQ(cost->duration_ps, kFixedPs + std::max(local, kEfaLatencyPs + 41'943'040));

  // Three ranks on instance 0 and one on instance 1, shift 2 over [i0, i0, i0, i1]: instance 1
  // receives 1 input (from position 2) and sends 1 (to position 1); instance 0 sends 1 and
  // receives 1: still one input over the busiest link. Shift 0 keeps everything local.
  const std::vector<ClusterPlacement> lopsided = Concat(OnChip0(0, {0, 2, 4}), OnChip0(1, {0}));
  auto two = EstimateClusterCollective(instances, CollectiveKind::kPermute, bytes, lopsided, 2);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->inter_instance_ps, kEfaLatencyPs + 41'943'040);
  auto none = EstimateClusterCollective(instances, CollectiveKind::kPermute, bytes, lopsided, 0);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->inter_instance_ps, 0u);
  const std::vector<ChipFlow> three = {{0, 0, bytes}, {0, 0, bytes}, {0, 0, bytes}};
  EXPECT_EQ(none->duration_ps, kFixedPs + EstimateDirectExchange(Trn2_3xl(), three).duration_ps);
}

TEST(ClusterCost, Refusals) {
  const std::vector<ClusterInstance> instances = {{&Trn2_3xl(), ""}, {&Trn2_3xl(), ""}};
  const std::vector<ClusterPlacement> none;
  EXPECT_EQ(
      EstimateClusterCollective(instances, CollectiveKind::kAllReduce, 64, none).status().code(),
      StatusCode::kInvalid);
  for (int bad : {-1, 2}) {
    const std::vector<ClusterPlacement> members = {{0, {0, 0}}, {bad, {0, 0}}};
    auto cost = EstimateClusterCollective(instances, CollectiveKind::kAllReduce, 64, members);
    EXPECT_EQ(cost.status().code(), StatusCode::kInvalid) << bad;
  }
  const std::vector<ClusterInstance> no_spec = {{&Trn2_3xl(), ""}, {nullptr, ""}};
  const std::vector<ClusterPlacement> across = {{0, {0, 0}}, {1, {0, 0}}};
  EXPECT_EQ(
      EstimateClusterCollective(no_spec, CollectiveKind::kAllReduce, 64, across).status().code(),
      StatusCode::kInvalid);
  // A spec without an EFA figure cannot cross instances, whichever side it is on; on its own
  // instance it is fine.
  InstanceSpec no_efa = Trn2_3xl();
  no_efa.efa_bytes_per_s = 0;
  for (const auto& pair : {std::vector<ClusterInstance>{{&no_efa, ""}, {&Trn2_3xl(), ""}},
                           std::vector<ClusterInstance>{{&Trn2_3xl(), ""}, {&no_efa, ""}}}) {
    for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllToAll}) {
      auto cost = EstimateClusterCollective(pair, kind, 64, across);
      EXPECT_EQ(cost.status().code(), StatusCode::kInvalid);
      EXPECT_NE(cost.status().message().find("EFA"), std::string::npos) << cost.status().message();
    }
  }
  const std::vector<ClusterPlacement> alone = {{0, {0, 0}}, {0, {0, 2}}};
  const std::vector<ClusterInstance> solo = {{&no_efa, ""}};
  EXPECT_TRUE(EstimateClusterCollective(solo, CollectiveKind::kAllReduce, 64, alone).ok());
  // A chip outside its instance: EstimateCollective's refusal.
  const std::vector<ClusterPlacement> off_chip = {{0, {0, 0}}, {0, {1, 0}}, {1, {0, 0}}};
  EXPECT_EQ(EstimateClusterCollective(instances, CollectiveKind::kAllReduce, 64, off_chip)
                .status()
                .code(),
            StatusCode::kInvalid);
}

TEST(ClusterCost, MemberOrderInsideInstancesDoesNotChangeAllReduce) {
  const std::vector<ClusterInstance> instances = {{&Trn2_48xl(), ""}, {&Trn2_48xl(), ""}};
  const std::vector<ClusterPlacement> ordered = {
      {0, {0, 0}}, {0, {1, 0}}, {0, {2, 0}}, {0, {3, 0}},
      {1, {0, 0}}, {1, {1, 0}}, {1, {2, 0}}, {1, {3, 0}},
  };
  const std::vector<ClusterPlacement> shuffled = {
      {1, {2, 0}}, {0, {3, 0}}, {0, {0, 0}}, {1, {0, 0}},
      {0, {2, 0}}, {1, {3, 0}}, {1, {1, 0}}, {0, {1, 0}},
  };
  for (uint64_t bytes : {uint64_t{4096}, uint64_t{256 * 1024}, uint64_t{16 << 20}}) {
    auto a = EstimateClusterCollective(instances, CollectiveKind::kAllReduce, bytes, ordered);
    auto b = EstimateClusterCollective(instances, CollectiveKind::kAllReduce, bytes, shuffled);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(a->duration_ps, b->duration_ps) << bytes;
    EXPECT_EQ(a->inter_instance_ps, b->inter_instance_ps) << bytes;
  }
}

}  // namespace
}  // namespace trnsim::simulator::collective
