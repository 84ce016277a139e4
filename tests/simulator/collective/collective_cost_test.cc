// The NeuronLink cost model and the torus rings it runs over. Expected ranges derive from the
// spec tables, never from fixed timings.
#include "simulator/collective/collective_cost.h"

#include <gtest/gtest.h>

#include <set>

#include "simulator/collective/torus_routes.h"
#include "simulator/spec/device_placement.h"

namespace trnsim::simulator::collective {
namespace {

const InstanceSpec& Spec(const char* name) { return *FindInstanceSpec(name).value(); }

// One rank on each of chips 0..chips-1.
std::vector<RankPlacement> OnePerChip(int chips) {
  std::vector<RankPlacement> m;
  for (int c = 0; c < chips; ++c) m.push_back({c, 0});
  return m;
}

// `per_chip` ranks (LNC 2: physical cores 0, 2, ...) on each of chips 0..chips-1.
std::vector<RankPlacement> Packed(int chips, int per_chip) {
  std::vector<RankPlacement> m;
  for (int c = 0; c < chips; ++c) {
    for (int k = 0; k < per_chip; ++k) m.push_back({c, 2 * k});
  }
  return m;
}

CollectiveCost Cost(const InstanceSpec& spec, CollectiveKind kind, uint64_t bytes,
                    const std::vector<RankPlacement>& members) {
  auto cost = EstimateCollective(spec, kind, bytes, members);
  EXPECT_TRUE(cost.ok()) << cost.status().ToString();
  return cost.ok() ? *cost : CollectiveCost{};
}

TEST(CollectiveCost, MonotonicInSizeForEveryKind) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  for (int k = 0; k < kCollectiveKindCount; ++k) {
    const auto kind = static_cast<CollectiveKind>(k);
    DurationPs previous = 0;
    for (uint64_t bytes = 1024; bytes <= (1ull << 30); bytes *= 4) {
      const DurationPs d = Cost(spec, kind, bytes, Packed(4, 4)).duration_ps;
      EXPECT_GT(d, previous) << CollectiveKindName(kind) << " " << bytes;
      previous = d;
    }
  }
}

TEST(CollectiveCost, MoreChipsTakeMoreSteps) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  int previous_steps = 0;
  DurationPs previous_small = 0;
  for (int chips : {2, 4, 8, 16}) {
    const CollectiveCost c = Cost(spec, CollectiveKind::kAllReduce, 1024, OnePerChip(chips));
    EXPECT_EQ(c.inter_chip_steps, 2 * (chips - 1)) << chips;
    EXPECT_EQ(c.intra_chip_steps, 0);
    EXPECT_GT(c.inter_chip_steps, previous_steps);
    EXPECT_GT(c.duration_ps, previous_small);  // small messages: latency-bound
    previous_steps = c.inter_chip_steps;
    previous_small = c.duration_ps;
  }
}

TEST(CollectiveCost, WholeTorusUsesFourLinkDisjointChannels) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  const CollectiveCost c = Cost(spec, CollectiveKind::kAllReduce, 1 << 20, OnePerChip(16));
  EXPECT_EQ(c.channels, 4);
  EXPECT_EQ(c.max_link_sharing, 1);
  EXPECT_EQ(c.max_hops, 1);

  std::vector<int> all(16);
  for (int i = 0; i < 16; ++i) all[i] = i;
  const auto rings = TorusRings(spec, all);
  ASSERT_EQ(rings.size(), 2u);
  std::set<std::pair<int, int>> edges;
  for (const auto& ring : rings) {
    EXPECT_EQ(std::set<int>(ring.begin(), ring.end()).size(), 16u);  // Hamiltonian
    for (size_t i = 0; i < ring.size(); ++i) {
      const int a = ring[i], b = ring[(i + 1) % ring.size()];
      const auto neighbours = ConnectedDevices(spec, a);
      EXPECT_NE(std::find(neighbours.begin(), neighbours.end(), b), neighbours.end());
      EXPECT_TRUE(edges.insert({std::min(a, b), std::max(a, b)}).second) << a << "-" << b;
    }
  }
  EXPECT_EQ(edges.size(), 32u);  // every link of the 4x4 torus, once
}

TEST(CollectiveCost, PartialRingsShareLinksAndRouteAroundGaps) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  // Two neighbours: the ring's two directions share the one link between them.
  const CollectiveCost pair = Cost(spec, CollectiveKind::kAllReduce, 1 << 20, {{0, 0}, {1, 0}});
  EXPECT_EQ(pair.channels, 2);
  EXPECT_EQ(pair.max_link_sharing, 2);
  EXPECT_EQ(pair.max_hops, 1);
  // Chips 0 and 5 are diagonal: two hops, dimension-order.
  const CollectiveCost diagonal = Cost(spec, CollectiveKind::kAllReduce, 1 << 20, {{0, 0}, {5, 0}});
  EXPECT_EQ(diagonal.max_hops, 2);
  EXPECT_GT(diagonal.duration_ps, pair.duration_ps);
  EXPECT_EQ(RouteDimensionOrder(spec, 0, 5),
            (std::vector<DirectedLink>{{0, 3}, {1, 2}}));  // east to 1, then south to 5
  EXPECT_EQ(RouteDimensionOrder(spec, 0, 3), (std::vector<DirectedLink>{{0, 1}}));  // wrap west
}

TEST(CollectiveCost, LargeMessagesApproachTheLinkFigures) {
  const InstanceSpec& trn2 = Spec("trn2.48xlarge");
  const double link = double(trn2.chip->neuronlink_bytes_per_s_per_direction);
  const uint64_t gib = 1ull << 30;
  // 16 chips, one rank each: 4 channels of one link direction each.
  const double torus = Cost(trn2, CollectiveKind::kAllReduce, gib, OnePerChip(16)).bus_bytes_per_s;
  EXPECT_GT(torus, 0.95 * 4 * link);
  EXPECT_LE(torus, 4 * link);
  // Two neighbours: one link each way carries both directions' share.
  const double pair = Cost(trn2, CollectiveKind::kAllReduce, gib, OnePerChip(2)).bus_bytes_per_s;
  EXPECT_GT(pair, 0.95 * link);
  EXPECT_LE(pair, link);
  // Four ranks on one chip: every ring edge gets 1/4 of the chip's CC path.
  const double chip_path = double(trn2.chip->cc_onchip_bytes_per_s);
  const double on_chip = Cost(trn2, CollectiveKind::kAllReduce, gib, Packed(1, 4)).bus_bytes_per_s;
  EXPECT_GT(on_chip, 0.95 * chip_path / 4);
  EXPECT_LE(on_chip, chip_path / 4);
  // Trainium3's switch: each chip's fabric bandwidth one way.
  const InstanceSpec& trn3 = Spec("trn3.48xlarge");
  const double fabric = double(trn3.chip->neuronlink_bytes_per_s_per_chip) / 2;
  const double switched =
      Cost(trn3, CollectiveKind::kAllReduce, gib, OnePerChip(16)).bus_bytes_per_s;
  EXPECT_GT(switched, 0.95 * fabric);
  EXPECT_LE(switched, fabric);
}

TEST(CollectiveCost, HierarchicalPhasesOnPackedChips) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  const CollectiveCost c = Cost(spec, CollectiveKind::kAllReduce, 1 << 20, Packed(16, 4));
  EXPECT_EQ(c.intra_chip_steps, 2 * 3);
  EXPECT_EQ(c.inter_chip_steps, 2 * 15);
  EXPECT_EQ(c.channels, 4);
  const CollectiveCost rs = Cost(spec, CollectiveKind::kReduceScatter, 1 << 20, Packed(16, 4));
  const CollectiveCost ag = Cost(spec, CollectiveKind::kAllGather, (1 << 20) / 64, Packed(16, 4));
  EXPECT_EQ(rs.inter_chip_steps, 15);
  EXPECT_EQ(rs.duration_ps + ag.duration_ps, c.duration_ps);  // all_reduce = RS + AG
}

TEST(CollectiveCost, DirectExchangesForAllToAllAndPermute) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  const CollectiveCost a2a = Cost(spec, CollectiveKind::kAllToAll, 1 << 20, OnePerChip(16));
  EXPECT_EQ(a2a.inter_chip_steps, 1);
  EXPECT_EQ(a2a.max_hops, 4);  // the far corner of a 4x4 torus: 2 + 2 hops
  // Chips 0..3 are one torus row: shift 1 sends to a neighbour (3 -> 0 wraps), shift 2 two
  // hops away, over links each flow has to itself (shift 1) or shares with another (shift 2).
  auto one = EstimateCollective(spec, CollectiveKind::kPermute, 1 << 20, OnePerChip(4), 1);
  auto two = EstimateCollective(spec, CollectiveKind::kPermute, 1 << 20, OnePerChip(4), 2);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->max_hops, 1);
  EXPECT_EQ(one->max_link_sharing, 1);
  EXPECT_EQ(two->max_hops, 2);
  EXPECT_EQ(two->max_link_sharing, 2);
  EXPECT_GT(two->duration_ps, one->duration_ps);
}

TEST(CollectiveCost, GroupOfOneIsFreeAndBadPlacementsAreRejected) {
  const InstanceSpec& spec = Spec("trn2.48xlarge");
  EXPECT_EQ(Cost(spec, CollectiveKind::kAllReduce, 1 << 20, {{3, 0}}).duration_ps, 0u);
  EXPECT_EQ(EstimateCollective(spec, CollectiveKind::kAllReduce, 64, std::vector<RankPlacement>{})
                .status()
                .code(),
            StatusCode::kInvalid);
  EXPECT_EQ(EstimateCollective(spec, CollectiveKind::kAllReduce, 64,
                               std::vector<RankPlacement>{{0, 0}, {16, 0}})
                .status()
                .code(),
            StatusCode::kInvalid);
  EXPECT_EQ(EstimateCollective(spec, CollectiveKind::kAllReduce, 64,
                               std::vector<RankPlacement>{{0, 0}, {1, 8}})
                .status()
                .code(),
            StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::simulator::collective
