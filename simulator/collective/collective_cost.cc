#include "simulator/collective/collective_cost.h"

#include <algorithm>
#include <map>
#include <vector>

#include "simulator/collective/collective_algorithms.h"
#include "simulator/collective/torus_routes.h"

namespace trnsim::simulator::collective {
namespace {

void DirectExchange(const InstanceSpec& spec, std::span<const ChipFlow> flows,
                    CollectiveCost& cost) {
  const ChipSpec& chip = *spec.chip;
  const size_t n = static_cast<size_t>(spec.chip_count);
  std::vector<unsigned __int128> on_chip(n, 0), egress(n, 0), ingress(n, 0);
  std::vector<unsigned __int128> link_bytes(n * 4, 0);
  std::vector<int> link_flows(n * 4, 0);
  for (const ChipFlow& f : flows) {
    if (f.from == f.to) {
      on_chip[f.from] += f.bytes;
      continue;
    }
    egress[f.from] += f.bytes;
    ingress[f.to] += f.bytes;
    if (spec.topology == TopologyKind::kTorus2d) {
      const std::vector<DirectedLink> route = RouteDimensionOrder(spec, f.from, f.to);
      cost.max_hops = std::max(cost.max_hops, static_cast<int>(route.size()));
      for (const DirectedLink& link : route) {
        link_bytes[link.Id()] += f.bytes;
        ++link_flows[link.Id()];
      }
    } else {
      cost.max_hops = 1;
    }
  }
  DurationPs on_ps = 0, off_ps = 0;
  const unsigned __int128 on_max = *std::max_element(on_chip.begin(), on_chip.end());
  if (on_max > 0) {
    on_ps = chip.cc_onchip_step_latency_ps + TransferPs(on_max, 1, chip.cc_onchip_bytes_per_s);
    cost.intra_chip_steps = 1;
  }
  if (cost.max_hops > 0) {
    cost.inter_chip_steps = 1;
    if (spec.topology == TopologyKind::kTorus2d) {
      const unsigned __int128 busiest = *std::max_element(link_bytes.begin(), link_bytes.end());
      cost.max_link_sharing = *std::max_element(link_flows.begin(), link_flows.end());
      off_ps = chip.neuronlink_hop_latency_ps * static_cast<DurationPs>(cost.max_hops) +
               TransferPs(busiest, 1, chip.cc_link_bytes_per_s_per_direction);
    } else {
      const unsigned __int128 busiest = std::max(*std::max_element(egress.begin(), egress.end()),
                                                 *std::max_element(ingress.begin(), ingress.end()));
      cost.max_link_sharing = 1;
      off_ps = chip.neuronlink_hop_latency_ps +
               TransferPs(busiest, 1,
                          chip.cc_link_bytes_per_s_per_direction *
                              static_cast<uint64_t>(chip.neuronlink_ports));
    }
  }
  cost.duration_ps = std::max(on_ps, off_ps);
  cost.algorithm_kind = CollectiveAlgorithm::kDirect;
  cost.detail = cost.inter_chip_steps == 0 ? "direct exchange (on chip)"
                : spec.topology == TopologyKind::kTorus2d
                    ? "direct exchange (torus, dimension-order routes)"
                    : "direct exchange (switched fabric)";
}

}  // namespace

CollectiveCost EstimateDirectExchange(const InstanceSpec& spec, std::span<const ChipFlow> flows) {
  CollectiveCost cost;
  DirectExchange(spec, flows, cost);
  cost.algorithm = CollectiveAlgorithmName(cost.algorithm_kind);
  return cost;
}

const char* CollectiveAlgorithmName(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::kNone:
      return "none";
    case CollectiveAlgorithm::kMesh:
      return "mesh";
    case CollectiveAlgorithm::kRdh:
      return "rdh";
    case CollectiveAlgorithm::kKangaRing:
      return "kangaring";
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kDirect:
      return "direct";
  }
  return "unknown";
}

StatusOr<CollectiveCost> EstimateCollective(const InstanceSpec& spec, CollectiveKind kind,
                                            uint64_t bytes_per_rank_input,
                                            std::span<const RankPlacement> members,
                                            int32_t permute_shift) {
  if (spec.chip == nullptr) return InvalidError("an instance spec without a chip");
  if (members.empty()) return InvalidError("a collective over an empty group");
  std::map<int, int> ranks_per_chip;
  for (const RankPlacement& m : members) {
    if (m.chip < 0 || m.chip >= spec.chip_count) {
      return InvalidError("chip " + std::to_string(m.chip) + " is not on a " + spec.type_name +
                          " (" + std::to_string(spec.chip_count) + " chips)");
    }
    if (m.physical_core < 0 || m.physical_core >= spec.chip->physical_cores) {
      return InvalidError("physical core " + std::to_string(m.physical_core) + " is not on a " +
                          spec.chip->name + " chip");
    }
    ++ranks_per_chip[m.chip];
  }
  const uint64_t g = members.size();
  CollectiveCost cost;
  if (g == 1) {
    cost.algorithm = CollectiveAlgorithmName(CollectiveAlgorithm::kNone);
    cost.detail = "a group of one";
    return cost;
  }
  GroupShape shape;
  shape.ranks = static_cast<int>(members.size());
  for (auto [chip, count] : ranks_per_chip) {
    shape.chips.push_back(chip);
    if (shape.max_ranks_per_chip != 0 && count != shape.max_ranks_per_chip) shape.uniform = false;
    shape.max_ranks_per_chip = std::max(shape.max_ranks_per_chip, count);
  }
  const uint64_t in = bytes_per_rank_input;
  uint64_t data_bytes = in;
  double factor = static_cast<double>(g - 1) / static_cast<double>(g);
  const ChipSpec& chip = *spec.chip;

  if (kind == CollectiveKind::kAllToAll || kind == CollectiveKind::kPermute) {
    std::vector<ChipFlow> flows;
    if (kind == CollectiveKind::kAllToAll) {
      for (const RankPlacement& a : members) {
        for (const RankPlacement& b : members) {
          if (&a != &b) flows.push_back({a.chip, b.chip, in / g});
        }
      }
    } else {
      factor = 1;
      const int64_t n = static_cast<int64_t>(g);
      for (int64_t p = 0; p < n; ++p) {
        const int64_t to = ((p + permute_shift) % n + n) % n;
        flows.push_back({members[p].chip, members[to].chip, in});
      }
    }
    DirectExchange(spec, flows, cost);
  } else {
    uint64_t buffer = in;  // the buffer of the ring-family phases
    const bool reduce = kind != CollectiveKind::kAllGather;
    const bool gather = kind != CollectiveKind::kReduceScatter;
    if (kind == CollectiveKind::kAllGather) buffer = data_bytes = in * g;
    if (kind == CollectiveKind::kAllReduce) factor *= 2;
    cost.algorithm_kind = ChooseCollectiveAlgorithm(chip, buffer, shape);
    HalfCost half;
    switch (cost.algorithm_kind) {
      case CollectiveAlgorithm::kMesh:
        half = MeshHalf(spec, shape, buffer);
        cost.detail = "mesh: routed writes to every peer";
        break;
      case CollectiveAlgorithm::kRdh:
        half = RdhHalf(spec, shape, buffer);
        cost.setup_ps = chip.cc_rdh_setup_ps;
        cost.detail = "rdh: intra-chip stage + recursive halving/doubling over " +
                      std::to_string(shape.chips.size()) + " chips";
        break;
      case CollectiveAlgorithm::kKangaRing:
        half = KangaRingHalf(spec, shape, buffer);
        cost.setup_ps = chip.cc_ring_setup_ps;
        cost.detail = "kangaring: " + std::to_string(g / 2) + " primaries, " +
                      std::to_string(half.channels) + " channels";
        break;
      default:
        half = RingHalf(spec, shape, buffer);
        cost.setup_ps = chip.cc_ring_setup_ps;
        cost.detail = shape.chips.size() == 1 ? "ring over the chip's CC DMA path"
                      : spec.topology == TopologyKind::kSwitched
                          ? "hierarchical: intra-chip ring + switched direct exchange"
                          : "hierarchical: intra-chip ring + torus rings (" +
                                std::to_string(half.channels) + " channels)";
        break;
    }
    const int halves = (reduce ? 1 : 0) + (gather ? 1 : 0);
    cost.duration_ps = cost.setup_ps + half.ps * static_cast<DurationPs>(halves);
    cost.intra_chip_steps = half.intra_chip_steps * halves;
    cost.inter_chip_steps = half.inter_chip_steps * halves;
    cost.channels = half.channels;
    cost.max_link_sharing = half.max_link_sharing;
    cost.max_hops = half.max_hops;
  }
  cost.algorithm = CollectiveAlgorithmName(cost.algorithm_kind);
  cost.fixed_ps = chip.cc_fixed_ps;
  cost.duration_ps += cost.fixed_ps;
  if (cost.duration_ps > 0) {
    cost.bus_bytes_per_s = static_cast<double>(data_bytes) * static_cast<double>(kPsPerSecond) /
                           static_cast<double>(cost.duration_ps) * factor;
  }
  return cost;
}

}  // namespace trnsim::simulator::collective
