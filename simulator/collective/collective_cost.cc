#include "simulator/collective/collective_cost.h"

#include <algorithm>
#include <map>
#include <vector>

#include "simulator/collective/torus_routes.h"

namespace trnsim::simulator::collective {
namespace {

// ceil(numerator / (denominator x bytes_per_s) seconds) in picoseconds, exactly.
DurationPs TransferPs(unsigned __int128 numerator_bytes, uint64_t denominator,
                      uint64_t bytes_per_s) {
  if (numerator_bytes == 0) return 0;
  const unsigned __int128 scaled = numerator_bytes * kPsPerSecond;
  const unsigned __int128 divisor = static_cast<unsigned __int128>(denominator) * bytes_per_s;
  return static_cast<DurationPs>((scaled + divisor - 1) / divisor);
}

// One phase's contribution.
struct Phase {
  DurationPs ps = 0;
  int steps = 0;
};

// A ring of `ranks` members on one chip moving a buffer of `bytes`: ranks-1 steps, each
// moving bytes/ranks on every one of the chip's `ranks` ring edges at once, so the chip's CC
// path carries `bytes` per step.
Phase IntraChipRing(const ChipSpec& chip, int ranks, uint64_t bytes) {
  if (ranks <= 1) return {};
  const DurationPs step =
      chip.cc_onchip_step_latency_ps + TransferPs(bytes, 1, chip.cc_onchip_bytes_per_s);
  return {step * static_cast<DurationPs>(ranks - 1), ranks - 1};
}

// The inter-chip half of a ring collective (a reduce-scatter or an all-gather) of a buffer of
// `bytes` per chip, over `chips`.
struct InterChip {
  Phase phase;
  int channels = 0;
  int max_link_sharing = 0;
  int max_hops = 0;
};

InterChip TorusRingHalf(const InstanceSpec& spec, const std::vector<int>& chips, uint64_t bytes) {
  const ChipSpec& chip = *spec.chip;
  const std::vector<std::vector<int>> rings = TorusRings(spec, chips);
  std::vector<int> load(static_cast<size_t>(spec.chip_count) * 4, 0);
  InterChip out;
  for (const std::vector<int>& ring : rings) {
    for (size_t i = 0; i < ring.size(); ++i) {
      const int a = ring[i], b = ring[(i + 1) % ring.size()];
      for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {  // both directions
        const std::vector<DirectedLink> route = RouteDimensionOrder(spec, from, to);
        out.max_hops = std::max(out.max_hops, static_cast<int>(route.size()));
        for (const DirectedLink& link : route) ++load[link.Id()];
      }
    }
  }
  out.channels = static_cast<int>(rings.size()) * 2;
  out.max_link_sharing = *std::max_element(load.begin(), load.end());
  const uint64_t c = chips.size();
  // Each step moves bytes / (C x channels) per channel edge; a link carrying m edges gives each
  // 1/m of its bandwidth.
  const DurationPs step = chip.neuronlink_hop_latency_ps * static_cast<DurationPs>(out.max_hops) +
                          TransferPs(static_cast<unsigned __int128>(bytes) * out.max_link_sharing,
                                     c * static_cast<uint64_t>(out.channels),
                                     chip.neuronlink_bytes_per_s_per_direction);
  out.phase = {step * (c - 1), static_cast<int>(c - 1)};
  return out;
}

// A switched fabric: every chip sends (C-1)/C of its buffer straight to the others at once,
// limited by its fabric bandwidth each way.
InterChip SwitchedHalf(const InstanceSpec& spec, const std::vector<int>& chips, uint64_t bytes) {
  const ChipSpec& chip = *spec.chip;
  const uint64_t c = chips.size();
  InterChip out;
  out.channels = static_cast<int>(c - 1);
  out.max_link_sharing = 1;
  out.max_hops = 1;
  out.phase = {
      chip.neuronlink_hop_latency_ps + TransferPs(static_cast<unsigned __int128>(bytes) * (c - 1),
                                                  c, chip.neuronlink_bytes_per_s_per_chip / 2),
      1};
  return out;
}

InterChip InterChipHalf(const InstanceSpec& spec, const std::vector<int>& chips, uint64_t bytes) {
  if (chips.size() <= 1) return {};
  if (spec.topology == TopologyKind::kSwitched) return SwitchedHalf(spec, chips, bytes);
  return TorusRingHalf(spec, chips, bytes);
}

// all_to_all and permute: every flow at once; on-chip flows over the CC path of their chip,
// inter-chip flows over their dimension-order route (torus) or the chips' fabric ports.
struct Flow {
  int from = 0;
  int to = 0;
  uint64_t bytes = 0;
};

void DirectExchange(const InstanceSpec& spec, const std::vector<Flow>& flows,
                    CollectiveCost& cost) {
  const ChipSpec& chip = *spec.chip;
  const size_t n = static_cast<size_t>(spec.chip_count);
  std::vector<unsigned __int128> on_chip(n, 0), egress(n, 0), ingress(n, 0);
  std::vector<unsigned __int128> link_bytes(n * 4, 0);
  std::vector<int> link_flows(n * 4, 0);
  for (const Flow& f : flows) {
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
               TransferPs(busiest, 1, chip.neuronlink_bytes_per_s_per_direction);
    } else {
      const unsigned __int128 busiest = std::max(*std::max_element(egress.begin(), egress.end()),
                                                 *std::max_element(ingress.begin(), ingress.end()));
      cost.max_link_sharing = 1;
      off_ps = chip.neuronlink_hop_latency_ps +
               TransferPs(busiest, 1, chip.neuronlink_bytes_per_s_per_chip / 2);
    }
  }
  cost.duration_ps = std::max(on_ps, off_ps);
  cost.algorithm = cost.inter_chip_steps == 0 ? "direct exchange (on chip)"
                   : spec.topology == TopologyKind::kTorus2d
                       ? "direct exchange (torus, dimension-order routes)"
                       : "direct exchange (switched fabric)";
}

}  // namespace

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
    cost.algorithm = "none (group of 1)";
    return cost;
  }
  std::vector<int> chips;
  int local = 0;  // the most ranks on one chip: the intra-chip ring that takes longest
  for (auto [chip, count] : ranks_per_chip) {
    chips.push_back(chip);
    local = std::max(local, count);
  }
  const uint64_t in = bytes_per_rank_input;
  uint64_t data_bytes = in;
  double factor = static_cast<double>(g - 1) / static_cast<double>(g);
  const ChipSpec& chip = *spec.chip;

  if (kind == CollectiveKind::kAllToAll || kind == CollectiveKind::kPermute) {
    std::vector<Flow> flows;
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
    uint64_t buffer = in;  // the buffer a ring phase moves, per chip (and per rank on chip)
    bool reduce = kind != CollectiveKind::kAllGather;
    bool gather = kind != CollectiveKind::kReduceScatter;
    if (kind == CollectiveKind::kAllGather) buffer = data_bytes = in * g;
    if (kind == CollectiveKind::kAllReduce) factor *= 2;
    const InterChip inter = InterChipHalf(spec, chips, buffer);
    const Phase intra = IntraChipRing(chip, local, buffer);
    const int halves = (reduce ? 1 : 0) + (gather ? 1 : 0);
    cost.duration_ps = (intra.ps + inter.phase.ps) * static_cast<DurationPs>(halves);
    cost.intra_chip_steps = intra.steps * halves;
    cost.inter_chip_steps = inter.phase.steps * halves;
    cost.channels = inter.channels;
    cost.max_link_sharing = inter.max_link_sharing;
    cost.max_hops = inter.max_hops;
    if (chips.size() == 1) {
      cost.algorithm = "ring over the chip's CC DMA path";
    } else if (spec.topology == TopologyKind::kSwitched) {
      cost.algorithm = "hierarchical: intra-chip ring + switched direct exchange";
    } else {
      cost.algorithm = "hierarchical: intra-chip ring + torus rings (" +
                       std::to_string(inter.channels) + " channels)";
    }
  }
  if (cost.duration_ps > 0) {
    cost.bus_bytes_per_s = static_cast<double>(data_bytes) * static_cast<double>(kPsPerSecond) /
                           static_cast<double>(cost.duration_ps) * factor;
  }
  return cost;
}

}  // namespace trnsim::simulator::collective
