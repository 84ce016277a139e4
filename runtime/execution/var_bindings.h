// BindVariables: for one execution, the device memory window (driver::VarBinding) of every HBM
// variable of one subgraph — what the Device's chip model sees as that var_id:
//   file, tmp-buf, pointer, dge-table  the subgraph's own allocation (SubgraphMemory::Storage),
//                                      offset 0
//   virtual                            the vnc's SharedScratchpad at backing_variable_off
//   input, output                      the bound caller tensor: a device tensor's allocation at
//                                      its slice offset; a host-side tensor's staged copy
//                                      (HostStaging), read back after the run for outputs
//   state-buffer                       not HBM: no binding (DMA names SBUF by kSbufVarId)
// A variable of 0 bytes is bound to no memory (driver::kInvalidMemoryHandle, size 0).
//
// Errors: NRT_INVALID when a bound tensor is smaller than its variable or the variable is not a
// declared tensor; NRT_FAILURE when a variable has no memory (outside the scratchpad, no
// allocation); the staging's NRT_RESOURCE. Each names the variable.
// Thread safety: none; the caller serialises executions of a model.
#pragma once

#include <vector>

#include "common/status_or.h"
#include "driver/execution_types.h"
#include "runtime/execution/host_staging.h"
#include "runtime/execution/io_binding.h"
#include "runtime/model/shared_scratchpad.h"
#include "runtime/model/subgraph_memory.h"
#include "runtime/neff/neff.h"

namespace trnsim::runtime::execution {

StatusOr<std::vector<driver::VarBinding>> BindVariables(const neff::Subgraph& subgraph,
                                                        const model::SubgraphMemory& memory,
                                                        const model::SharedScratchpad& scratchpad,
                                                        const IoBinding& binding,
                                                        HostStaging& staging);

}  // namespace trnsim::runtime::execution
