// WriteIoAddresses: per execution, stores the device addresses of the bound input/output
// tensors into the subgraph's pointer and dge-table variables that reference them
// (SubgraphMemory writes 0 there at load; see subgraph_memory.h). A pointer holds one 8-byte
// little-endian address; a dge-table entry i is at byte 8·i. A device tensor's address is its
// first byte's physical address (a slice's window start); a host-side tensor is written as 0
// (the executor stages it in temporary device memory for the run, host_staging.h, but trnsim's
// engines reach every variable through its VarBinding, never through these words).
//
// Errors: NRT_FAILURE from the device write. Thread safety: the caller serialises executions.
#pragma once

#include "common/status.h"
#include "driver/device.h"
#include "runtime/execution/io_binding.h"
#include "runtime/model/subgraph_memory.h"
#include "runtime/neff/neff.h"

namespace trnsim::runtime::execution {

Status WriteIoAddresses(const neff::Subgraph& subgraph, const model::SubgraphMemory& memory,
                        const IoBinding& binding, driver::Device* device);

}  // namespace trnsim::runtime::execution
