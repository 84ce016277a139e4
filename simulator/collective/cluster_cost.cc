#include "simulator/collective/cluster_cost.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "simulator/collective/collective_algorithms.h"

namespace trnsim::simulator::collective {
namespace {

// What carries the traffic between the group's instances, and how fast: per instance, one
// direction, `lanes` transfers in parallel (EFA: 1; Z links: chips × 2 directions).
struct InterLink {
  bool ultraserver = false;
  uint64_t bytes_per_s = 0;  // one lane
  uint64_t lanes = 1;
  DurationPs latency_ps = 0;
};

// The ranks of each instance the group uses, in group order.
using LocalGroups = std::map<int, std::vector<RankPlacement>>;

size_t ChipsHoldingRanks(const std::vector<RankPlacement>& ranks) {
  std::vector<int> chips;
  for (const RankPlacement& r : ranks) chips.push_back(r.chip);
  std::sort(chips.begin(), chips.end());
  return static_cast<size_t>(std::unique(chips.begin(), chips.end()) - chips.begin());
}

StatusOr<InterLink> ChooseInterLink(std::span<const ClusterInstance> instances,
                                    const LocalGroups& local) {
  const ClusterInstance& first = instances[local.begin()->first];
  bool same_ultraserver = !first.ultraserver.empty() && first.spec->ultraserver_nodes > 0 &&
                          local.size() <= static_cast<size_t>(first.spec->ultraserver_nodes);
  for (const auto& [index, ranks] : local) {
    const ClusterInstance& instance = instances[index];
    same_ultraserver = same_ultraserver && instance.ultraserver == first.ultraserver &&
                       instance.spec->type_name == first.spec->type_name;
  }
  InterLink link;
  if (same_ultraserver) {
    link.ultraserver = true;
    link.bytes_per_s = first.spec->ultraserver_link_bytes_per_s_per_direction;
    link.latency_ps = first.spec->chip->neuronlink_hop_latency_ps;
    size_t chips = std::numeric_limits<size_t>::max();
    for (const auto& [index, ranks] : local) chips = std::min(chips, ChipsHoldingRanks(ranks));
    link.lanes = 2 * chips;  // every chip holding ranks: its two Z directions
    return link;
  }
  link.bytes_per_s = std::numeric_limits<uint64_t>::max();
  for (const auto& [index, ranks] : local) {
    const InstanceSpec& spec = *instances[index].spec;
    if (spec.efa_bytes_per_s == 0) {
      return InvalidError(spec.type_name +
                          " has no EFA bandwidth: it cannot join a job across "
                          "instances");
    }
    link.bytes_per_s = std::min(link.bytes_per_s, spec.efa_bytes_per_s);
    link.latency_ps = std::max(link.latency_ps, static_cast<DurationPs>(spec.efa_latency_ps));
  }
  return link;
}

// The busiest instance's traffic to or from the others over `link`, at once.
DurationPs ExchangePs(const InterLink& link, unsigned __int128 busiest_bytes) {
  if (busiest_bytes == 0) return 0;
  return link.latency_ps + TransferPs(busiest_bytes, link.lanes, link.bytes_per_s);
}

}  // namespace

StatusOr<CollectiveCost> EstimateClusterCollective(std::span<const ClusterInstance> instances,
                                                   CollectiveKind kind,
                                                   uint64_t bytes_per_rank_input,
                                                   std::span<const ClusterPlacement> members,
                                                   int32_t permute_shift) {
  if (members.empty()) return InvalidError("a collective over an empty group");
  LocalGroups local;
  for (const ClusterPlacement& m : members) {
    if (m.instance < 0 || static_cast<size_t>(m.instance) >= instances.size()) {
      return InvalidError("instance " + std::to_string(m.instance) + " is not one of the job's " +
                          std::to_string(instances.size()));
    }
    const InstanceSpec* spec = instances[m.instance].spec;
    if (spec == nullptr || spec->chip == nullptr) {
      return InvalidError("instance " + std::to_string(m.instance) + " has no instance spec");
    }
    local[m.instance].push_back(m.where);
  }
  if (local.size() == 1) {
    return EstimateCollective(*instances[local.begin()->first].spec, kind, bytes_per_rank_input,
                              local.begin()->second, permute_shift);
  }
  TRNSIM_ASSIGN_OR_RETURN(InterLink link, ChooseInterLink(instances, local));
  const uint64_t g = members.size();
  const uint64_t n = local.size();  // I
  const uint64_t in = bytes_per_rank_input;
  DurationPs fixed = 0;
  for (const auto& [index, ranks] : local) {
    fixed = std::max(fixed, static_cast<DurationPs>(instances[index].spec->chip->cc_fixed_ps));
  }

  CollectiveCost cost;
  CollectiveCost slowest_local;
  uint64_t data_bytes = in;
  double factor = static_cast<double>(g - 1) / static_cast<double>(g);
  if (kind == CollectiveKind::kAllToAll || kind == CollectiveKind::kPermute) {
    // Local flows per instance (at once, no fixed part), cross-instance bytes per instance.
    std::map<int, std::vector<ChipFlow>> flows;
    std::map<int, unsigned __int128> egress, ingress;
    auto add = [&](const ClusterPlacement& a, const ClusterPlacement& b, uint64_t bytes) {
      if (a.instance == b.instance) {
        flows[a.instance].push_back({a.where.chip, b.where.chip, bytes});
      } else {
        egress[a.instance] += bytes;
        ingress[b.instance] += bytes;
      }
    };
    if (kind == CollectiveKind::kAllToAll) {
      for (size_t a = 0; a < members.size(); ++a) {
        for (size_t b = 0; b < members.size(); ++b) {
          if (a != b) add(members[a], members[b], in / g);
        }
      }
    } else {
      factor = 1;
      const int64_t count = static_cast<int64_t>(g);
      for (int64_t p = 0; p < count; ++p) {
        add(members[p], members[((p + permute_shift) % count + count) % count], in);
      }
    }
    DurationPs local_ps = 0;
    for (const auto& [index, instance_flows] : flows) {
      CollectiveCost c = EstimateDirectExchange(*instances[index].spec, instance_flows);
      if (c.duration_ps >= local_ps) slowest_local = c;
      local_ps = std::max(local_ps, c.duration_ps);
    }
    unsigned __int128 busiest = 0;
    for (const auto& [index, bytes] : egress) busiest = std::max(busiest, bytes);
    for (const auto& [index, bytes] : ingress) busiest = std::max(busiest, bytes);
    cost.inter_instance_ps = ExchangePs(link, busiest);
    cost.duration_ps = fixed + std::max(local_ps, cost.inter_instance_ps);
    cost.algorithm_kind = CollectiveAlgorithm::kDirect;
    cost.detail =
        "direct exchange inside each instance and between " + std::to_string(n) + " instances";
  } else {
    uint64_t local_bytes = in;
    uint64_t buffer = in;
    int halves = 1;
    if (kind == CollectiveKind::kAllGather) {
      local_bytes = in * n;  // after the exchange between instances, each rank holds I inputs
      buffer = data_bytes = in * g;
    }
    if (kind == CollectiveKind::kAllReduce) {
      halves = 2;
      factor *= 2;
    }
    for (const auto& [index, ranks] : local) {
      TRNSIM_ASSIGN_OR_RETURN(CollectiveCost c,
                              EstimateCollective(*instances[index].spec, kind, local_bytes, ranks));
      if (c.duration_ps >= slowest_local.duration_ps) slowest_local = c;
    }
    // Each half: I - 1 ring steps, each moving D / I per instance over its link.
    const DurationPs step = link.latency_ps + TransferPs(buffer, n * link.lanes, link.bytes_per_s);
    cost.inter_instance_ps = static_cast<DurationPs>(halves) * (n - 1) * step;
    cost.duration_ps = slowest_local.duration_ps + cost.inter_instance_ps;
    // A single rank per instance runs no local collective: the fixed cost is still paid once.
    if (slowest_local.duration_ps == 0) cost.duration_ps += fixed;
    cost.algorithm_kind = slowest_local.algorithm_kind;
    cost.detail = "hierarchical: " + std::string(CollectiveAlgorithmName(cost.algorithm_kind)) +
                  " inside each instance + a ring of " + std::to_string(n) + " instances";
  }
  cost.algorithm = CollectiveAlgorithmName(cost.algorithm_kind);
  cost.instances = static_cast<int>(n);
  cost.inter_instance_link = link.ultraserver ? "ultraserver" : "efa";
  cost.detail += link.ultraserver ? " over the UltraServer's Z links" : " over EFA";
  cost.fixed_ps = fixed;
  cost.setup_ps = slowest_local.setup_ps;
  cost.intra_chip_steps = slowest_local.intra_chip_steps;
  cost.inter_chip_steps = slowest_local.inter_chip_steps;
  cost.channels = slowest_local.channels;
  cost.max_link_sharing = slowest_local.max_link_sharing;
  cost.max_hops = slowest_local.max_hops;
  if (cost.duration_ps > 0) {
    cost.bus_bytes_per_s = static_cast<double>(data_bytes) * static_cast<double>(kPsPerSecond) /
                           static_cast<double>(cost.duration_ps) * factor;
  }
  return cost;
}

}  // namespace trnsim::simulator::collective
