#include "runtime/model/shared_scratchpad.h"

#include <algorithm>

#include "common/log.h"

namespace trnsim::runtime::model {

SharedScratchpad::SharedScratchpad(driver::Device* device, driver::AllocationRequest request,
                                   int vnc, std::atomic<uint64_t>* bytes_used)
    : device_(device), request_(request), vnc_(vnc), bytes_used_(bytes_used) {
  request_.category = driver::MemoryCategory::kScratchpad;
}

SharedScratchpad::~SharedScratchpad() {
  if (!users_.empty()) {
    TRNSIM_LOG(Error, Nrt) << "shared scratchpad of logical core " << vnc_ << " destroyed with "
                           << users_.size() << " users attached";
  }
}

Status SharedScratchpad::Attach(ScratchpadUser* user, const ScratchpadNeed& need) {
  uint64_t want_size = std::max(size_bytes_, need.size_bytes);
  uint64_t want_alignment = std::max(alignment_bytes_, need.alignment_bytes);
  bool grow = block_ == nullptr || want_size > size_bytes_ || want_alignment > alignment_bytes_;
  if (grow && want_size > 0) {
    driver::AllocationRequest request = request_;
    request.size_bytes = want_size;
    request.alignment_bytes = want_alignment;
    StatusOr<std::unique_ptr<DeviceStorage>> block =
        DeviceStorage::Create(device_, request, vnc_, bytes_used_);
    if (!block.ok()) {
      return Status(block.status().code(), "virtual variable '" + need.largest_variable +
                                               "' needs a shared scratchpad of " +
                                               std::to_string(want_size) +
                                               " bytes on logical core " + std::to_string(vnc_) +
                                               ": " + block.status().message());
    }
    block_ = std::move(*block);  // the old block (if any) is freed here
    size_bytes_ = want_size;
    alignment_bytes_ = want_alignment;
    for (ScratchpadUser* other : users_) {
      // Rewriting is a device write into memory the user owns; it cannot run out of memory.
      Status rewritten = other->RewriteScratchpadAddresses();
      if (!rewritten.ok()) return rewritten;
    }
  }
  users_.push_back(user);
  return Status::Ok();
}

void SharedScratchpad::Detach(ScratchpadUser* user) {
  std::erase(users_, user);
  if (users_.empty()) {
    block_.reset();
    size_bytes_ = 0;
    alignment_bytes_ = 0;
  }
}

uint64_t SharedScratchpad::device_address() const {
  return block_ ? block_->device_allocation()->device_address : 0;
}

}  // namespace trnsim::runtime::model
