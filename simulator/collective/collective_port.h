// CollectivePort: how the chip model hands a `collective` instruction (docs/isa.md §7.8) to the
// machinery that joins it with the same instruction on the other ranks of its replica group —
// the part the CC cores and NeuronLink play on hardware (docs/collectives.md).
//
// The chip model, when a core issues `collective`, gathers the instruction's `src` elements
// into CollectiveCall::input (access-pattern order, raw bytes of the instruction's dtype),
// stamps the simulated issue time, and calls Run. Run blocks the calling host thread until
// every rank of the group has arrived (or the rendezvous fails), then returns the bytes the
// instruction's `dst` receives (access-pattern order) and the simulated instant they have all
// landed on this rank. The chip model writes them to `dst` and applies the instruction's
// @complete updates at that instant (never earlier than the issue).
//
// Contract of an implementation:
//  - Deterministic: the output and complete_ps depend only on the calls of the group's ranks
//    (their inputs, arrival times and placement), never on host timing or arrival order.
//  - Bounded: Run returns within the port's host timeout; a rank that never arrives gives
//    NRT_TIMEOUT, a mismatched call or a rank that left gives NRT_EXEC_HW_ERR_COLLECTIVES;
//    both messages name the ranks concerned.
//
// Thread safety: one port serves one execution; Run may be called from that execution's
// thread only (the chip model's), once per issued `collective`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "simulator/isa/dtype.h"
#include "simulator/isa/ops.h"
#include "simulator/sched/sim_time.h"

namespace trnsim::simulator::collective {

// The collective a `collective` instruction performs: the ISA's own kind (isa/ops.h; its
// `kind` field, binary values fixed by docs/isa.md §7.8):
//   all_reduce     dst[i] = reduce over the group of src[i]; |dst| = |src|
//   all_gather     dst = src of member 0, member 1, ...; |dst| = G·|src|
//   reduce_scatter dst = block `position` of all_reduce(src); |src| = G·|dst|
//   all_to_all     dst block j = src block `position` of member j; |dst| = |src| = G·block
//   permute        dst = src of member (position − shift) mod G; |dst| = |src|
using isa::CollectiveKind;
using isa::CollectiveKindName;  // "all_reduce", "all_gather", ...
using isa::kCollectiveKindCount;

// A replica group in closed form. With world W, size G (0 means W) and stride s >= 1 the
// groups are, for every block b of G·s consecutive ranks and every offset o in [0, s):
//   { b·G·s + o + k·s : k = 0 .. G−1 }
// s = 1 gives consecutive groups ([0..G−1], [G..2G−1], ...); s = W/G gives strided ones
// ([0, s, 2s, ...], [1, s+1, ...]). W must be a multiple of G·s. A rank's `position` is its
// k in its group.
struct ReplicaGroupSpec {
  uint32_t size = 0;    // G; 0: the whole world
  uint32_t stride = 1;  // s
  bool operator==(const ReplicaGroupSpec&) const = default;
};

// The ranks of `rank`'s group, ascending by position; InvalidError when the spec does not fit
// the world (G or s zero/too large, W not a multiple of G·s, rank outside the world).
StatusOr<std::vector<uint32_t>> GroupMembers(ReplicaGroupSpec spec, uint32_t world_size,
                                             uint32_t rank);

struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  isa::AluOp op = isa::AluOp::kAdd;  // the reduction (all_reduce, reduce_scatter); else kBypass
  isa::Dtype dtype = isa::Dtype::kFloat32;
  ReplicaGroupSpec group;
  int32_t shift = 1;           // permute: receive from position − shift (mod G)
  uint32_t collective_id = 0;  // the instruction's `id`: the same instruction on every rank
  std::vector<uint8_t> input;  // src elements in access-pattern order
  uint64_t output_bytes = 0;   // the size of the instruction's dst
  int physical_core = 0;       // chip-local core that issued it
  TimePs arrival_ps = 0;       // simulated issue time on this rank (its execution starts at 0)
};

struct CollectiveOutcome {
  std::vector<uint8_t> output;  // exactly output_bytes, dst elements in access-pattern order
  TimePs complete_ps = 0;       // >= the call's arrival_ps
};

class CollectivePort {
 public:
  virtual ~CollectivePort() = default;
  virtual StatusOr<CollectiveOutcome> Run(CollectiveCall call) = 0;
};

}  // namespace trnsim::simulator::collective
