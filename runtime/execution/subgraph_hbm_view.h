// SubgraphHbmView: the chip model's view of one subgraph's HBM variables (reference::HbmView,
// NEFF var_id -> bytes) for one execution:
//   file, tmp-buf, pointer, dge-table  the subgraph's own allocation (SubgraphMemory::Storage),
//                                      mapped through Device::HostAddress
//   virtual                            the vnc's SharedScratchpad at backing_variable_off
//   input, output                      the bound caller tensor's bytes (a device tensor through
//                                      Device::HostAddress, a host tensor directly; a slice is
//                                      its own window)
//   state-buffer                       not HBM: Var() refuses it (DMA names SBUF by kSbufVarId)
// Every span is resolved once in Create, so Var() is one hash lookup.
//
// Create fails with NRT_FAILURE when device memory is not host-addressable (a back end other
// than sim), and NRT_INVALID when a bound tensor is smaller than its variable.
//
// Thread safety: none; one execution at a time uses a view.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/execution/io_binding.h"
#include "runtime/model/shared_scratchpad.h"
#include "runtime/model/subgraph_memory.h"
#include "runtime/neff/neff.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::runtime::execution {

class SubgraphHbmView final : public reference::HbmView {
 public:
  // Every argument must outlive the view.
  static StatusOr<std::unique_ptr<SubgraphHbmView>> Create(
      const neff::Subgraph& subgraph, const model::SubgraphMemory& memory,
      const model::SharedScratchpad& scratchpad, const IoBinding& binding, driver::Device* device);

  StatusOr<std::span<uint8_t>> Var(uint32_t var_id) override;

 private:
  explicit SubgraphHbmView(const neff::Subgraph& subgraph) : subgraph_(subgraph) {}

  const neff::Subgraph& subgraph_;
  std::unordered_map<uint32_t, std::span<uint8_t>> vars_;
};

}  // namespace trnsim::runtime::execution
