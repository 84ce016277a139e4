// TorusRoutes: paths on an instance's 2D NeuronLink torus (TopologyKind::kTorus2d) — the
// dimension-order route between two chips and the rings a collective's inter-chip phase runs
// over (docs/collectives.md "Algorithms"). Chip d sits at row d / cols, column d % cols.
//
// Thread safety: pure functions of their arguments; safe from any thread.
#pragma once

#include <span>
#include <vector>

#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {

// One direction of one NeuronLink port: port 0..3 = north, west, south, east of `chip`, the
// order of ConnectedDevices (spec/instance_spec.h).
struct DirectedLink {
  int chip = 0;
  int port = 0;
  int Id() const { return chip * 4 + port; }  // dense id in [0, 4 * chip_count)
  bool operator==(const DirectedLink&) const = default;
};

// The links a transfer from chip `from` to chip `to` crosses: along the row first (east when
// that way is no longer, else west), then along the column (south when no longer, else north),
// with wrap-around. Empty when from == to. Both chips must be on the torus.
std::vector<DirectedLink> RouteDimensionOrder(const InstanceSpec& spec, int from, int to);

// The rings over `chips` (distinct, each in [0, chip_count)) that a ring collective uses, each
// a cyclic order of all of `chips`; a caller runs every ring in both directions. When `chips`
// is the whole torus and both sides are at least 3, these are two link-disjoint Hamiltonian
// cycles (together every link once: 4 channels with both directions); otherwise one ring in
// serpentine order (row by row, alternate rows reversed), whose edges between non-neighbours
// are routed dimension-order. Deterministic.
std::vector<std::vector<int>> TorusRings(const InstanceSpec& spec, std::span<const int> chips);

}  // namespace trnsim::simulator::collective
