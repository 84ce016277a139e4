// SubgraphMemory: the device memory of one subgraph's variables, placed on one physical core of
// the model's logical core (tools-driver-facts §5.4). Per variable type:
//   file        own HBM allocation (MemoryCategory::kConstant), initialised with its constant
//   tmp-buf     own HBM allocation (kScratchpad), private to the model
//   pointer     own HBM allocation (kMisc) holding the 8-byte little-endian device address of
//               referenced_var_id
//   dge-table   own HBM allocation (kMisc) holding the addresses of `list`, 8 bytes each
//   virtual     no allocation of its own: the vnc's SharedScratchpad + backing_variable_off
//   state-buffer  no HBM: lives in SBUF (CheckVariables checked that it fits)
//   input/output  no HBM: bound to the caller's tensors at execution
// Each allocation honours the variable's alignment (at least the driver's 64 bytes), lives in
// the vnc's HBM stack, is charged to the vnc's usage counter and is freed with this object.
// A variable of 0 bytes gets no allocation (its address is 0).
//
// Addresses written into pointer and dge-table variables: an HBM variable's own address, a
// virtual variable's scratchpad address, and 0 for input/output variables until execution binds
// them (the execution milestone rewrites those tables per execution).
//
// Thread safety: none; owned by one Model.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/core_map.h"
#include "runtime/neff/neff.h"
#include "runtime/tensor_storage.h"

namespace trnsim::runtime::model {

// Where a subgraph goes.
struct SubgraphTarget {
  driver::Device* device = nullptr;
  int vnc = 0;  // process-relative, for messages and accounting
  int chip = 0;
  int hbm = 0;
  int physical_core = 0;  // instance-wide index of the core that runs the subgraph
  std::atomic<uint64_t>* bytes_used = nullptr;  // the vnc's usage counter
  uint64_t model_id = 0;  // tags every allocation (AllocationRequest::owner_model_id)
};

class SubgraphMemory {
 public:
  // Allocates and initialises every HBM variable of `subgraph` (which must have passed
  // CheckVariables and must outlive the result). Address tables are not written yet (they
  // need the scratchpad's address): call WriteAddressTables next. NRT_RESOURCE naming the
  // variable and its bytes when the device is out of memory; whatever was allocated is freed.
  static StatusOr<std::unique_ptr<SubgraphMemory>> Place(const neff::Subgraph& subgraph,
                                                         const SubgraphTarget& target);

  // Writes every pointer and dge-table variable, given the shared scratchpad's current address.
  Status WriteAddressTables(uint64_t scratchpad_address);

  // Device address of variable `var_id` given the scratchpad address (see above); nullopt for
  // an unknown var_id or a state-buffer variable.
  std::optional<uint64_t> DeviceAddress(int64_t var_id, uint64_t scratchpad_address) const;
  // The allocation of an HBM variable, else nullptr.
  const DeviceStorage* Storage(int64_t var_id) const;
  // Bytes reserved for this subgraph's own allocations.
  uint64_t bytes_reserved() const;

 private:
  struct Slot {
    const neff::Variable* variable;
    std::unique_ptr<DeviceStorage> storage;  // null for variables without an own allocation
  };

  explicit SubgraphMemory(const neff::Subgraph& subgraph) : subgraph_(subgraph) {}
  Status Allocate(const SubgraphTarget& target);
  Status WriteConstants();
  const Slot* Find(int64_t var_id) const;

  const neff::Subgraph& subgraph_;
  std::vector<Slot> slots_;                    // one per variable, in declaration order
  std::unordered_map<int64_t, size_t> by_id_;  // var_id -> index into slots_
};

}  // namespace trnsim::runtime::model
