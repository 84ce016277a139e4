#include "runtime/tensor.h"

#include <string>

namespace trnsim::runtime {

Placement Tensor::placement() const {
  return storage_ ? storage_->placement() : Placement::kVirtual;
}

const DeviceStorage* Tensor::device_storage() const {
  if (!storage_ || storage_->placement() != Placement::kDevice) return nullptr;
  return static_cast<const DeviceStorage*>(storage_.get());
}

Status Tensor::CheckRange(uint64_t offset, uint64_t size, const char* what) const {
  if (!storage_) {
    return InvalidError("tensor '" + name_ + "' has no storage (allocated empty, no buffer "
                        "attached)");
  }
  if (offset > size_ || size > size_ - offset) {
    return InvalidError(std::string(what) + " of " + std::to_string(size) + " bytes at offset " +
                        std::to_string(offset) + " is past the end of " + std::to_string(size_) +
                        "-byte tensor '" + name_ + "'");
  }
  return Status::Ok();
}

Status Tensor::Read(uint64_t offset, void* dst, uint64_t size) const {
  TRNSIM_RETURN_IF_ERROR(CheckRange(offset, size, "read"));
  if (size > 0 && dst == nullptr) return InvalidError("destination buffer is NULL");
  return storage_->Read(offset_ + offset, dst, size);
}

Status Tensor::Write(uint64_t offset, const void* src, uint64_t size) {
  TRNSIM_RETURN_IF_ERROR(CheckRange(offset, size, "write"));
  if (size > 0 && src == nullptr) return InvalidError("source buffer is NULL");
  return storage_->Write(offset_ + offset, src, size);
}

Status Tensor::Fill(uint64_t offset, uint8_t value, uint64_t size) {
  TRNSIM_RETURN_IF_ERROR(CheckRange(offset, size, "memset"));
  return storage_->Fill(offset_ + offset, value, size);
}

Status Tensor::Copy(const Tensor& src, uint64_t src_offset, Tensor& dst, uint64_t dst_offset,
                    uint64_t size) {
  TRNSIM_RETURN_IF_ERROR(src.CheckRange(src_offset, size, "copy source"));
  TRNSIM_RETURN_IF_ERROR(dst.CheckRange(dst_offset, size, "copy destination"));
  if (size == 0) return Status::Ok();
  const DeviceStorage* from = src.device_storage();
  const DeviceStorage* to = dst.device_storage();
  uint64_t src_at = src.offset_ + src_offset;
  uint64_t dst_at = dst.offset_ + dst_offset;
  if (from && to) {
    const driver::AllocationInfo* a = from->device_allocation();
    const driver::AllocationInfo* b = to->device_allocation();
    if (a->chip != b->chip || a->hbm != b->hbm) {
      return InvalidError("device tensors '" + src.name_ + "' (chip " + std::to_string(a->chip) +
                          " HBM " + std::to_string(a->hbm) + ") and '" + dst.name_ + "' (chip " +
                          std::to_string(b->chip) + " HBM " + std::to_string(b->hbm) +
                          ") are not on the same HBM; copy through host memory");
    }
    return from->device()->Copy(a->handle, src_at, b->handle, dst_at, size);
  }
  // At least one side is host memory: move the bytes with the other side's Read or Write.
  if (!from) {
    return dst.storage_->Write(dst_at, src.storage_->HostAddress(src_at), size);
  }
  return src.storage_->Read(src_at, dst.storage_->HostAddress(dst_at), size);
}

void* Tensor::HostAddress() const { return storage_ ? storage_->HostAddress(offset_) : nullptr; }

StatusOr<DeviceAllocationInfo> Tensor::DeviceAllocation() const {
  const DeviceStorage* device = device_storage();
  if (device == nullptr) {
    return InvalidError("tensor '" + name_ + "' is not in device memory");
  }
  const driver::AllocationInfo* info = device->device_allocation();
  DeviceAllocationInfo out;
  out.physical_address = info->device_address + offset_;
  out.size_bytes = info->size_bytes - offset_;
  out.hbm_index = info->hbm;
  return out;
}

StatusOr<std::unique_ptr<Tensor>> Tensor::Slice(uint64_t offset, uint64_t size,
                                                std::string name) const {
  TRNSIM_RETURN_IF_ERROR(CheckRange(offset, size, "slice"));
  return std::make_unique<Tensor>(std::move(name), storage_, offset_ + offset, size);
}

void Tensor::AttachBuffer(void* buffer, uint64_t size) {
  storage_ = HostStorage::Attach(buffer, size);
  offset_ = 0;
  size_ = size;
}

}  // namespace trnsim::runtime
