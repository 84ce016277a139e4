// Static checks of one subgraph's variables, made before any device memory is allocated, so a
// NEFF that cannot be placed fails without touching the device. neff::ReadNeff checks most of
// this already; Model::Load repeats it because a Neff may also be built in memory.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "runtime/neff/neff.h"

namespace trnsim::runtime::model {

// NRT_INVALID naming the subgraph and variable when:
//  - two variables share a var_id, or an alignment is neither 0 nor a power of two;
//  - a `state-buffer` variable is larger than `sbuf_bytes` (the core's SBUF: partitions ×
//    bytes per partition);
//  - a `file` variable's constant is missing, malformed, or not exactly the variable's size
//    (neff::ConstantData: a .npy file's array data, any other file raw);
//  - a `pointer` variable is under 8 bytes or references no variable; a `dge-table` variable is
//    under 8 bytes per entry or lists an unknown var_id; either references a `state-buffer`
//    variable, which has no device address;
//  - a `virtual` variable's backing_variable_off + size overflows, or its offset is not a
//    multiple of its alignment (the scratchpad base is aligned, so only such offsets can be).
Status CheckVariables(const neff::Subgraph& subgraph, uint64_t sbuf_bytes);

}  // namespace trnsim::runtime::model
