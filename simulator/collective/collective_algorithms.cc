#include "simulator/collective/collective_algorithms.h"

#include <algorithm>
#include <bit>

#include "simulator/collective/torus_routes.h"

namespace trnsim::simulator::collective {

DurationPs TransferPs(unsigned __int128 numerator_bytes, uint64_t denominator,
                      uint64_t bytes_per_s) {
  if (numerator_bytes == 0) return 0;
  const unsigned __int128 scaled = numerator_bytes * kPsPerSecond;
  const unsigned __int128 divisor = static_cast<unsigned __int128>(denominator) * bytes_per_s;
  return static_cast<DurationPs>((scaled + divisor - 1) / divisor);
}

namespace {

bool Switched(const InstanceSpec& spec) { return spec.topology == TopologyKind::kSwitched; }

// A chip's fabric bandwidth one way on a switched instance: all its ports.
uint64_t PortsBytesPerS(const ChipSpec& chip) {
  return chip.cc_link_bytes_per_s_per_direction * static_cast<uint64_t>(chip.neuronlink_ports);
}

// The chip rings a ring algorithm runs over, in both directions, and the links they load.
struct RingLinks {
  int channels = 0;
  int max_link_sharing = 0;
  int max_hops = 0;
};

RingLinks TorusRingLinks(const InstanceSpec& spec, const std::vector<int>& chips) {
  const std::vector<std::vector<int>> rings = TorusRings(spec, chips);
  std::vector<int> load(static_cast<size_t>(spec.chip_count) * 4, 0);
  RingLinks out;
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
  return out;
}

// The longest dimension-order route between two chips of the group (1 when switched).
int LongestRoute(const InstanceSpec& spec, const std::vector<int>& chips) {
  if (chips.size() <= 1) return 0;
  if (Switched(spec)) return 1;
  int hops = 0;
  for (int a : chips) {
    for (int b : chips) {
      hops = std::max(hops, static_cast<int>(RouteDimensionOrder(spec, a, b).size()));
    }
  }
  return hops;
}

}  // namespace

CollectiveAlgorithm ChooseCollectiveAlgorithm(const ChipSpec& chip, uint64_t buffer_bytes,
                                              const GroupShape& shape) {
  const uint64_t chunk = buffer_bytes / static_cast<uint64_t>(shape.ranks);
  const size_t c = shape.chips.size();
  if (chunk < chip.cc_rdh_min_chunk_bytes) return CollectiveAlgorithm::kMesh;
  if (chunk < chip.cc_ring_min_chunk_bytes && shape.uniform && std::has_single_bit(c)) {
    return CollectiveAlgorithm::kRdh;
  }
  const int l = shape.max_ranks_per_chip;
  if (c >= 2 && shape.uniform && l >= 2 && l % 2 == 0) return CollectiveAlgorithm::kKangaRing;
  return CollectiveAlgorithm::kRing;
}

HalfCost MeshHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes) {
  const ChipSpec& chip = *spec.chip;
  const uint64_t g = static_cast<uint64_t>(shape.ranks);
  HalfCost out;
  out.max_hops = LongestRoute(spec, shape.chips);
  out.ps = TransferPs(static_cast<unsigned __int128>(buffer_bytes) * (g - 1), g,
                      chip.cc_mesh_bytes_per_s);
  if (shape.chips.size() > 1) {
    out.inter_chip_steps = 1;
    out.ps += chip.neuronlink_hop_latency_ps * static_cast<DurationPs>(out.max_hops);
  }
  if (shape.max_ranks_per_chip > 1) {
    out.intra_chip_steps = 1;
    out.ps += chip.cc_onchip_step_latency_ps;
  }
  return out;
}

HalfCost RdhHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes) {
  const ChipSpec& chip = *spec.chip;
  const uint64_t l = static_cast<uint64_t>(shape.max_ranks_per_chip);
  HalfCost out;
  if (l > 1) {
    out.intra_chip_steps = 1;
    out.ps = chip.cc_onchip_step_latency_ps +
             TransferPs(static_cast<unsigned __int128>(buffer_bytes) * (l - 1), l,
                        chip.cc_onchip_bytes_per_s);
  }
  const size_t c = shape.chips.size();
  const std::vector<int>& chips = shape.chips;
  for (size_t bit = 1; bit < c; bit <<= 1) {
    const uint64_t flow_bytes = buffer_bytes / (2 * bit);  // S / 2^j, j = log2(bit) + 1
    ++out.inter_chip_steps;
    if (Switched(spec)) {
      out.max_hops = std::max(out.max_hops, 1);
      out.max_link_sharing = std::max(out.max_link_sharing, 1);
      out.ps += chip.neuronlink_hop_latency_ps + TransferPs(flow_bytes, 1, PortsBytesPerS(chip));
      continue;
    }
    std::vector<uint64_t> link_bytes(static_cast<size_t>(spec.chip_count) * 4, 0);
    std::vector<int> link_flows(link_bytes.size(), 0);
    int hops = 0;
    for (size_t i = 0; i < c; ++i) {
      const std::vector<DirectedLink> route = RouteDimensionOrder(spec, chips[i], chips[i ^ bit]);
      hops = std::max(hops, static_cast<int>(route.size()));
      for (const DirectedLink& link : route) {
        link_bytes[link.Id()] += flow_bytes;
        ++link_flows[link.Id()];
      }
    }
    out.max_hops = std::max(out.max_hops, hops);
    out.max_link_sharing =
        std::max(out.max_link_sharing, *std::max_element(link_flows.begin(), link_flows.end()));
    out.ps += chip.neuronlink_hop_latency_ps * static_cast<DurationPs>(hops) +
              TransferPs(*std::max_element(link_bytes.begin(), link_bytes.end()), 1,
                         chip.cc_link_bytes_per_s_per_direction);
  }
  return out;
}

HalfCost KangaRingHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes) {
  const ChipSpec& chip = *spec.chip;
  const uint64_t p = static_cast<uint64_t>(shape.ranks) / 2;  // primaries
  HalfCost out;
  DurationPs step = 0;
  if (Switched(spec)) {
    out.channels = 1;
    out.max_link_sharing = 1;
    out.max_hops = 1;
    step = chip.neuronlink_hop_latency_ps + TransferPs(buffer_bytes, p, PortsBytesPerS(chip));
  } else {
    const RingLinks links = TorusRingLinks(spec, shape.chips);
    out.channels = links.channels;
    out.max_link_sharing = links.max_link_sharing;
    out.max_hops = links.max_hops;
    step = chip.neuronlink_hop_latency_ps * static_cast<DurationPs>(links.max_hops) +
           TransferPs(static_cast<unsigned __int128>(buffer_bytes) * links.max_link_sharing,
                      p * static_cast<uint64_t>(links.channels),
                      chip.cc_link_bytes_per_s_per_direction);
  }
  out.inter_chip_steps = static_cast<int>(p - 1);
  out.ps = step * static_cast<DurationPs>(p - 1);
  return out;
}

HalfCost RingHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes) {
  const ChipSpec& chip = *spec.chip;
  HalfCost out;
  const int l = shape.max_ranks_per_chip;
  if (l > 1) {  // ranks-1 steps, each moving S / L on all L ring edges: S per step on the path
    const DurationPs step =
        chip.cc_onchip_step_latency_ps + TransferPs(buffer_bytes, 1, chip.cc_onchip_bytes_per_s);
    out.intra_chip_steps = l - 1;
    out.ps = step * static_cast<DurationPs>(l - 1);
  }
  const uint64_t c = shape.chips.size();
  if (c <= 1) return out;
  if (Switched(spec)) {  // every chip sends (C-1)/C of its buffer straight to the others
    out.channels = static_cast<int>(c - 1);
    out.max_link_sharing = 1;
    out.max_hops = 1;
    out.inter_chip_steps = 1;
    out.ps +=
        chip.neuronlink_hop_latency_ps +
        TransferPs(static_cast<unsigned __int128>(buffer_bytes) * (c - 1), c, PortsBytesPerS(chip));
    return out;
  }
  // Each step moves S / (C x channels) per channel edge; a link carrying m edges gives each 1/m
  // of its bandwidth.
  const RingLinks links = TorusRingLinks(spec, shape.chips);
  out.channels = links.channels;
  out.max_link_sharing = links.max_link_sharing;
  out.max_hops = links.max_hops;
  const DurationPs step =
      chip.neuronlink_hop_latency_ps * static_cast<DurationPs>(links.max_hops) +
      TransferPs(static_cast<unsigned __int128>(buffer_bytes) * links.max_link_sharing,
                 c * static_cast<uint64_t>(links.channels), chip.cc_link_bytes_per_s_per_direction);
  out.inter_chip_steps = static_cast<int>(c - 1);
  out.ps += step * (c - 1);
  return out;
}

}  // namespace trnsim::simulator::collective
