// CollectiveAlgorithms: the runtime's choice of algorithm for a ring-family collective
// (all_reduce, reduce_scatter, all_gather) and the cost of one half — a reduce-scatter or an
// all-gather — of each: mesh, recursive halving-doubling (RDH), KangaRing and the hierarchical
// Ring (docs/collectives.md "Algorithms"). EstimateCollective (collective_cost.h) adds the
// fixed per-collective cost and the algorithm's setup and combines the halves.
//
// Thread safety: pure functions of their arguments; safe from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/collective/collective_cost.h"
#include "simulator/sched/sim_time.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {

// ceil(numerator / (denominator x bytes_per_s) seconds) in picoseconds, exactly.
DurationPs TransferPs(unsigned __int128 numerator_bytes, uint64_t denominator,
                      uint64_t bytes_per_s);

// Where a group's ranks are: the chips it spans (ascending, distinct) and its ranks per chip.
struct GroupShape {
  std::vector<int> chips;
  int ranks = 0;               // G
  int max_ranks_per_chip = 0;  // L
  bool uniform = true;         // every chip of the group holds L ranks
};

// The algorithm of a ring-family collective of G = shape.ranks >= 2 whose ring-phase buffer
// (all_reduce, reduce_scatter: the input; all_gather: the output) is `buffer_bytes`. With the
// chunk = buffer / G:
//   chunk <  cc_rdh_min_chunk_bytes   mesh;
//   chunk <  cc_ring_min_chunk_bytes  RDH, when the group is uniform and spans a power of two
//                                     of chips (a hypercube), else as below;
//   otherwise                         KangaRing, when the group spans 2+ chips and is uniform
//                                     with an even number of ranks on each chip, else Ring.
CollectiveAlgorithm ChooseCollectiveAlgorithm(const ChipSpec& chip, uint64_t buffer_bytes,
                                              const GroupShape& shape);

// One half of an algorithm over the group (S = buffer_bytes).
struct HalfCost {
  DurationPs ps = 0;
  int intra_chip_steps = 0;
  int inter_chip_steps = 0;
  int channels = 0;          // parallel rings x directions (Ring, KangaRing)
  int max_link_sharing = 0;  // most flows or channel edges over one directed link
  int max_hops = 0;          // longest route of one inter-chip step, in links
};

// Mesh: one routed step — every rank writes each peer's share, S (G-1)/G in all, at
// cc_mesh_bytes_per_s, after the longest route's hop latencies — then one on-chip step
// (cc_onchip_step_latency_ps) when ranks share a chip.
HalfCost MeshHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes);

// RDH: an intra-chip stage (one step: S (L-1)/L over the chip's CC path) and log2(C)
// inter-chip steps; step j exchanges S / 2^j per chip with the chip whose position in the
// group differs in bit j-1, all of a chip's ranks over the same route (dimension-order; links
// carrying several flows split their bandwidth; switched: the chip's ports together).
HalfCost RdhHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes);

// KangaRing: the P = G/2 primary ranks form the ring (each carries its secondary's chunk):
// P-1 steps, each moving S/P per ring edge split over the chip rings' channels (TorusRings,
// both directions) with their link sharing and hops; switched: S/P per step over a chip's
// ports.
HalfCost KangaRingHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes);

// Ring: the hierarchical ring — intra-chip ring (L-1 steps of S over cc_onchip_bytes_per_s)
// then chip rings (C-1 steps of S / C over the channels; switched: one direct exchange of
// S (C-1)/C over a chip's ports).
HalfCost RingHalf(const InstanceSpec& spec, const GroupShape& shape, uint64_t buffer_bytes);

}  // namespace trnsim::simulator::collective
