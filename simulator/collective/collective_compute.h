// CollectiveCompute: what a matched collective delivers — the per-call checks against the group
// size and the exact results, independent of threads and timing (docs/collectives.md
// "Numerics"). Used by the hub once every member of a group has arrived.
//
// Thread safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "simulator/collective/collective_port.h"

namespace trnsim::simulator::collective {

// InvalidError when `call` cannot be served by a group of `group_size`: an unknown kind or
// dtype, a byte size that is not a whole number of elements, sizes that do not fit the kind
// (all_reduce, permute: out = in; all_gather: out = G·in; reduce_scatter: in = G·out;
// all_to_all: out = in, a multiple of G elements), or a reduction op the dtype has no exact
// form of (floats: add, multiply, maximum, minimum; integers also bitwise_and/or/xor).
Status ValidateCall(const CollectiveCall& call, uint32_t group_size);

// "all_reduce add bf16, 64 B -> 64 B, group 4 stride 1, world 8" (permute adds its shift).
std::string DescribeCall(const CollectiveCall& call, uint32_t world_size);

// The output of every group position, given the validated, agreeing calls in position order.
// Reductions go element by element in position order: acc = x[0]; acc = round(acc op x[k]) for
// k = 1 .. G-1, in fp32 with round-to-nearest-even to the dtype after every step for float
// dtypes and in wrapping arithmetic of the dtype's width for integer dtypes.
std::vector<std::vector<uint8_t>> ComputeOutputs(std::span<const CollectiveCall* const> calls);

}  // namespace trnsim::simulator::collective
