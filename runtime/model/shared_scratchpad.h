// SharedScratchpad: the HBM block behind `virtual` variables on one logical core (vnc).
//
// AWS's runtime gives each core one scratchpad shared by every NEFF loaded on it, sized to the
// largest need (tools-driver-facts §5.4: the largest backing_variable_off + size over the
// `virtual` variables). trnsim's rule:
//  - one allocation per vnc, shared by every model on the vnc and, at LNC=2, by both of a
//    model's subgraphs (the compiler lays out one logical core's scratchpad);
//  - it exists only while at least one model that has `virtual` variables is attached; the
//    first attach allocates it, the last detach frees it;
//  - it grows when a model needs more bytes (or a stricter alignment) than it has: a new block
//    is allocated first, then the old one freed, and every attached user is told to rewrite the
//    addresses it stored (pointer and dge-table variables). Contents do not survive a move: a
//    scratchpad holds nothing between executions. It never shrinks while in use.
//  - it is charged to the vnc (MemoryCategory::kScratchpad) like any model memory.
//
// Thread safety: none; every use holds the vnc's claim (runtime/core_claims.h): the executor for
// a run, the model registry for a load or a model's destruction.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/tensor_storage.h"

namespace trnsim::runtime::model {

// Something that stores scratchpad addresses and must rewrite them when the block moves.
class ScratchpadUser {
 public:
  virtual ~ScratchpadUser() = default;
  virtual Status RewriteScratchpadAddresses() = 0;
};

struct ScratchpadNeed {
  uint64_t size_bytes = 0;        // largest backing_variable_off + size
  uint64_t alignment_bytes = 64;  // largest alignment asked of a virtual variable (power of 2)
  std::string largest_variable;   // for messages: the variable that sets size_bytes
};

class SharedScratchpad {
 public:
  // `request` gives chip, HBM stack and owner core; size, alignment and category are set here.
  // `bytes_used` is the vnc's usage counter; both must outlive the scratchpad.
  SharedScratchpad(driver::Device* device, driver::AllocationRequest request, int vnc,
                   std::atomic<uint64_t>* bytes_used);
  ~SharedScratchpad();  // the users must have detached

  // Makes the block at least `need` and registers `user`. On growth the block moves and every
  // other attached user's RewriteScratchpadAddresses() runs (the new user writes its own).
  // NRT_RESOURCE (naming the variable and the bytes) when the device cannot provide the block;
  // then nothing changes.
  Status Attach(ScratchpadUser* user, const ScratchpadNeed& need);
  // Unregisters `user`; the last user's detach frees the block.
  void Detach(ScratchpadUser* user);

  // Device address of the block's first byte; 0 when no block exists.
  uint64_t device_address() const;
  uint64_t size_bytes() const { return size_bytes_; }
  size_t user_count() const { return users_.size(); }
  // The block, for reads and writes (nullptr when none exists).
  DeviceStorage* storage() const { return block_.get(); }

 private:
  driver::Device* device_;
  driver::AllocationRequest request_;
  int vnc_;
  std::atomic<uint64_t>* bytes_used_;
  std::unique_ptr<DeviceStorage> block_;
  uint64_t size_bytes_ = 0;
  uint64_t alignment_bytes_ = 0;
  std::vector<ScratchpadUser*> users_;
};

}  // namespace trnsim::runtime::model
