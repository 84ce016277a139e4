// CollectiveCost: the simulated duration of one collective over an instance's links — the
// NeuronLink model of docs/collectives.md "Algorithms" and "Cost". A pure function of the
// instance spec, the collective, its size and where its ranks run, so the hub, benchmarks and
// docs all use the same figures.
//
// Thread safety: pure; safe from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status_or.h"
#include "simulator/collective/collective_port.h"
#include "simulator/sched/sim_time.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {

// Where one member of a group runs.
struct RankPlacement {
  int chip = 0;           // device index in the instance, [0, chip_count)
  int physical_core = 0;  // chip-local core that issued the collective
};

// The algorithm the runtime runs a collective with (docs/collectives.md "Algorithms").
enum class CollectiveAlgorithm {
  kNone,       // a group of one: nothing moves
  kMesh,       // small chunks: routed writes straight to every peer, O(1) steps
  kRdh,        // mid-size chunks: intra-chip stage + inter-chip recursive halving/doubling
  kKangaRing,  // large chunks, 2+ ranks on every chip: a ring of primary ranks
  kRing,       // large chunks otherwise: the hierarchical ring (intra-chip ring + chip rings)
  kDirect,     // all_to_all and permute: one direct exchange
};

// The name nccom-test's --show-algorithm column prints: "mesh", "rdh", "kangaring", "ring";
// "direct" and "none" for the rest.
const char* CollectiveAlgorithmName(CollectiveAlgorithm algorithm);

struct CollectiveCost {
  DurationPs duration_ps = 0;  // from the last arrival to the result on every member
  CollectiveAlgorithm algorithm_kind = CollectiveAlgorithm::kNone;
  std::string algorithm;  // CollectiveAlgorithmName(algorithm_kind)
  std::string detail;     // e.g. "hierarchical: intra-chip ring + torus rings (4 channels)"
  // The fixed parts of duration_ps: ChipSpec::cc_fixed_ps and the algorithm's setup.
  DurationPs fixed_ps = 0;
  DurationPs setup_ps = 0;
  // The phases' step counts (0 when the phase does not run).
  int intra_chip_steps = 0;  // on-chip steps over the CC DMA path
  int inter_chip_steps = 0;  // NeuronLink steps
  int channels = 0;          // inter-chip rings x directions (switched: the C-1 peers)
  int max_link_sharing = 0;  // most channel edges routed over one directed link (contention)
  int max_hops = 0;          // longest route of one inter-chip step, in links
  // The nccl-tests "bus bandwidth" of this collective: (data bytes / duration) x the kind's
  // factor — all_reduce 2(G-1)/G; all_gather, reduce_scatter, all_to_all (G-1)/G; permute 1 —
  // where data bytes is the larger of one rank's input and output. 0 for G = 1.
  double bus_bytes_per_s = 0;
  // Multi-instance groups (cluster_cost.h): the instances the group spans (1: one instance),
  // the part of duration_ps spent between instances and what carried it ("efa" or
  // "ultraserver" Z links; empty for one instance).
  int instances = 1;
  DurationPs inter_instance_ps = 0;
  std::string inter_instance_link;
};

// The cost of `kind` over `members` (one placement per group position; G = members.size())
// when each rank's input is `bytes_per_rank_input` bytes (all_gather: output G times that;
// reduce_scatter: output 1/G of it). Chips must be in the instance and G >= 1; InvalidError
// otherwise. G = 1 costs 0. The model (docs/collectives.md "Algorithms"):
//  - every collective of G >= 2 costs ChipSpec::cc_fixed_ps (launch, handshake, completion);
//  - all_reduce, reduce_scatter and all_gather pick their algorithm by the chunk, buffer / G
//    (ChooseCollectiveAlgorithm, collective_algorithms.h): mesh, RDH, then KangaRing or Ring,
//    each with its own steps, per-step latency, setup and bandwidth terms;
//  - Ring is hierarchical: intra-chip ring over the chip's CC DMA path, inter-chip rings over
//    NeuronLink (TorusRings, both directions, dimension-order routes, links shared by several
//    ring edges split their bandwidth; switched: a direct exchange between chips);
//  - all_to_all and permute: one direct exchange, on-chip and inter-chip flows concurrent;
//    permute's position p sends its whole input to position p + permute_shift (mod G).
// Inter-chip traffic moves at ChipSpec::cc_link_bytes_per_s_per_direction per link direction.
// Every term is steps x latency + bytes / bandwidth in integer picoseconds (rounded up).
// One flow of a direct exchange inside an instance: `bytes` from chip `from` to chip `to`
// (from == to: on one chip).
struct ChipFlow {
  int from = 0;
  int to = 0;
  uint64_t bytes = 0;
};

// All `flows` at once, as all_to_all and permute move them (docs/collectives.md "all_to_all and
// permute"): on-chip flows over their chip's CC path, inter-chip ones over their routes. The
// duration has no cc_fixed_ps (the caller adds it once). Chips must be in the instance.
CollectiveCost EstimateDirectExchange(const InstanceSpec& spec, std::span<const ChipFlow> flows);

StatusOr<CollectiveCost> EstimateCollective(const InstanceSpec& spec, CollectiveKind kind,
                                            uint64_t bytes_per_rank_input,
                                            std::span<const RankPlacement> members,
                                            int32_t permute_shift = 1);

}  // namespace trnsim::simulator::collective
