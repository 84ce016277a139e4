#include "runtime/execution/host_staging.h"

#include <string>

#include "common/log.h"

namespace trnsim::runtime::execution {

HostStaging::~HostStaging() {
  for (const Block& block : blocks_) {
    Status freed = device_->Free(block.handle);
    if (!freed.ok()) {
      TRNSIM_LOG(Warn, Nrt) << "staging block of tensor '" << block.tensor->name()
                            << "' not freed: " << freed.message();
    }
  }
}

StatusOr<driver::MemoryHandle> HostStaging::Stage(Tensor& tensor, bool output) {
  for (Block& block : blocks_) {
    if (block.tensor != &tensor) continue;
    block.output = block.output || output;
    return block.handle;
  }
  const void* bytes = tensor.HostAddress();
  if (bytes == nullptr) {
    return InvalidError("tensor '" + tensor.name() + "' has no host bytes to stage");
  }
  driver::AllocationRequest request = where_;
  request.size_bytes = tensor.size();
  request.category = driver::MemoryCategory::kMisc;
  StatusOr<driver::AllocationInfo> block = device_->Allocate(request);
  if (!block.ok()) {
    return Status(block.status().code(), "staging host tensor '" + tensor.name() + "' (" +
                                             std::to_string(tensor.size()) +
                                             " bytes) in device memory: " +
                                             block.status().message());
  }
  blocks_.push_back(Block{&tensor, block->handle, output});
  TRNSIM_RETURN_IF_ERROR(device_->Write(block->handle, 0, bytes, tensor.size()));
  return block->handle;
}

Status HostStaging::CopyOut() {
  for (const Block& block : blocks_) {
    if (!block.output) continue;
    TRNSIM_RETURN_IF_ERROR(
        device_->Read(block.handle, 0, block.tensor->HostAddress(), block.tensor->size()));
  }
  return Status::Ok();
}

}  // namespace trnsim::runtime::execution
