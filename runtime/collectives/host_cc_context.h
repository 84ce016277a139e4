// HostCcContext: one reusable host-driven collective of nrta_cc_prepare — what nrta_cc_schedule
// runs on a collectives execution-unit queue (docs/async.md, docs/collectives.md).
//
// The collective is `kind` over a replica group of the global communicator (global ranks in
// `group`; this core at `position`), tensor by tensor: input i and output i of every member
// form one collective (all_reduce: |out| = |in|; all_gather: |out| = G·|in|; reduce_scatter:
// |in| = G·|out|), elements of `dtype`, reduced with `op`. Results are those of the ISA's
// `collective` instruction (simulator/collective/collective_compute.h "Numerics"); a host
// collective takes no simulated time.
//
// A context borrows its tensors; the runtime owns contexts (Collectives::PrepareHost,
// runtime/collectives.h) and returns the same one for an equal request, as AWS's runtime caches
// them by signature.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "runtime/tensor.h"
#include "simulator/isa/dtype.h"
#include "simulator/isa/ops.h"

namespace trnsim::runtime::collectives {

struct HostCcContext {
  int vnc = 0;                  // process-relative core that performs it
  std::vector<uint32_t> group;  // global ranks, in group order
  uint32_t position = 0;        // this core's index in `group`
  std::vector<Tensor*> inputs;
  std::vector<Tensor*> outputs;
  isa::Dtype dtype = isa::Dtype::kFloat32;
  isa::AluOp op = isa::AluOp::kAdd;  // all_gather: kBypass
  isa::CollectiveKind kind = isa::CollectiveKind::kAllReduce;
  bool operator==(const HostCcContext&) const = default;
};

// NRT_INVALID unless the context is well formed given its tensors' sizes: as many outputs as
// inputs (at least one), sizes that fit the kind for the group's size, whole elements of the
// dtype, and a reduction the dtype supports (collective_compute.h ValidateCall).
// `sizes_in`/`sizes_out` are the tensors' byte sizes, in order.
Status ValidateHostCc(const HostCcContext& context, const std::vector<uint64_t>& sizes_in,
                      const std::vector<uint64_t>& sizes_out);

// Every output of this member, given every member's inputs concatenated per member
// (`gathered`: G blocks, block m = member m's inputs in list order) and the sizes.
std::vector<std::vector<uint8_t>> ComputeHostCc(const HostCcContext& context,
                                                const std::vector<uint8_t>& gathered,
                                                const std::vector<uint64_t>& sizes_in,
                                                const std::vector<uint64_t>& sizes_out);

}  // namespace trnsim::runtime::collectives
