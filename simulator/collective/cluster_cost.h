// ClusterCost: the simulated duration of a collective whose replica group spans several
// emulated instances of one job — ranks on different neurond's, joined by EFA or, inside a Trn2
// UltraServer, by its Z links (docs/cluster.md "Timing"). The model is hierarchical, as the
// runtime runs multi-node collectives: the NeuronLink algorithm inside every instance
// (collective_cost.h, unchanged) and a ring of the instances between them.
//
// With I instances, L_i ranks on instance i, G ranks in all and D the ring buffer (all_reduce,
// reduce_scatter: one rank's input S; all_gather: the output G × input):
//   all_reduce      local all_reduce of S                 + 2 halves between instances
//   reduce_scatter  local reduce_scatter of S             + 1 half
//   all_gather      local all_gather of I × input per rank + 1 half
//   one half        (I − 1) steps; in each an instance sends D / I over its link:
//     EFA          efa_latency_ps + D / (I × efa_bytes_per_s)        (the slowest instance's)
//     UltraServer  neuronlink_hop_latency_ps + D / (I × 2 × C × z)   (C: chips holding ranks on
//                  the instance with fewest, 2 Z directions, z its per-direction Z-link rate)
//   all_to_all      max(local all_to_all of the pairs inside each instance,
//                       cc_fixed_ps + latency + the busiest instance's egress / its link)
//   permute         cc_fixed_ps + max(local flows, latency + busiest egress or ingress / link)
// The local part is the slowest instance's (its own spec; it carries cc_fixed_ps and the
// algorithm's setup once). Instances use the UltraServer's Z links only when every instance of
// the group names the same UltraServer and is an UltraServer node type with room for them all
// (InstanceSpec::ultraserver_nodes); otherwise EFA.
//
// Thread safety: pure; safe from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status_or.h"
#include "simulator/collective/collective_cost.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {

// One emulated instance of a job, as the cost model sees it.
struct ClusterInstance {
  const InstanceSpec* spec = nullptr;
  std::string ultraserver;  // non-empty: the UltraServer this node belongs to
};

// Where one member of a group runs: an index into the instances, and its place there.
struct ClusterPlacement {
  int instance = 0;
  RankPlacement where;
};

// The cost of `kind` over `members` (one per group position), each rank's input being
// `bytes_per_rank_input` bytes. A group on one instance costs exactly EstimateCollective on that
// instance's spec. InvalidError for an instance index out of range, an instance without a spec
// or, across instances, a spec without an EFA figure, and for whatever EstimateCollective
// refuses (chips or cores outside their instance).
StatusOr<CollectiveCost> EstimateClusterCollective(std::span<const ClusterInstance> instances,
                                                   CollectiveKind kind,
                                                   uint64_t bytes_per_rank_input,
                                                   std::span<const ClusterPlacement> members,
                                                   int32_t permute_shift = 1);

}  // namespace trnsim::simulator::collective
