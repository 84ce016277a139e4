// HostStaging: device memory standing in for host-side tensors during one execution. The
// chip model runs where the device memory lives (inside neurond for the remote back end), so a
// tensor in host memory (HOST or VIRTUAL placement, or an attached buffer) cannot be bound as
// it is: Stage allocates a temporary block of the tensor's size on the vnc's HBM stack and
// writes the tensor's bytes into it; after the execution CopyOut reads every block staged for
// an output back into its tensor; the destructor frees every block. A tensor staged twice
// (bound to several variables, or as input and output) gets one block.
//
// Staged blocks are transient: they are not charged to the vnc's usage counter.
// Errors: NRT_RESOURCE naming the tensor when the HBM stack cannot hold the block; the
// device's errors from the copies. Thread safety: none; one execution uses one HostStaging.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/tensor.h"

namespace trnsim::runtime::execution {

class HostStaging {
 public:
  // `where` gives chip, HBM stack and owner core of the blocks (size and category are set
  // here). `device` must outlive the staging.
  HostStaging(driver::Device* device, const driver::AllocationRequest& where)
      : device_(device), where_(where) {}
  ~HostStaging();
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;

  // The block holding a copy of host-side `tensor` (staged on first use). With `output`, the
  // block is read back into the tensor by CopyOut.
  StatusOr<driver::MemoryHandle> Stage(Tensor& tensor, bool output);
  // Reads every block staged for an output back into its tensor.
  Status CopyOut();

 private:
  struct Block {
    Tensor* tensor;
    driver::MemoryHandle handle;
    bool output;
  };

  driver::Device* device_;
  driver::AllocationRequest where_;
  std::vector<Block> blocks_;
};

}  // namespace trnsim::runtime::execution
