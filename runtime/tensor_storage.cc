#include "runtime/tensor_storage.h"

#include <cstring>
#include <new>
#include <string>

#include "common/log.h"

namespace trnsim::runtime {

StatusOr<std::unique_ptr<DeviceStorage>> DeviceStorage::Create(
    driver::Device* device, const driver::AllocationRequest& request, int vnc,
    std::atomic<uint64_t>* usage_counter) {
  TRNSIM_ASSIGN_OR_RETURN(driver::AllocationInfo info, device->Allocate(request));
  usage_counter->fetch_add(info.size_bytes);
  return std::unique_ptr<DeviceStorage>(
      new DeviceStorage(device, info, request.size_bytes, vnc, usage_counter));
}

DeviceStorage::~DeviceStorage() {
  usage_->fetch_sub(info_.size_bytes);
  Status status = device_->Free(info_.handle);
  if (!status.ok()) {
    TRNSIM_LOG(Error, Nrt) << "freeing device memory failed: " << status.ToString();
  }
}

Status DeviceStorage::Read(uint64_t offset, void* dst, uint64_t size) {
  return device_->Read(info_.handle, offset, dst, size);
}

Status DeviceStorage::Write(uint64_t offset, const void* src, uint64_t size) {
  return device_->Write(info_.handle, offset, src, size);
}

Status DeviceStorage::Fill(uint64_t offset, uint8_t value, uint64_t size) {
  return device_->Fill(info_.handle, offset, value, size);
}

void* DeviceStorage::HostAddress(uint64_t offset) {
  return device_->HostAddress(info_.handle, offset);
}

StatusOr<std::unique_ptr<HostStorage>> HostStorage::Create(Placement placement, uint64_t size) {
  // At least one byte so that an empty host tensor still has a distinct address.
  std::unique_ptr<uint8_t[]> owned(new (std::nothrow) uint8_t[size ? size : 1]());
  if (!owned) {
    return ResourceError("cannot allocate " + std::to_string(size) + " bytes of host memory");
  }
  uint8_t* bytes = owned.get();
  return std::unique_ptr<HostStorage>(new HostStorage(placement, bytes, std::move(owned), size));
}

std::unique_ptr<HostStorage> HostStorage::Attach(void* buffer, uint64_t size) {
  return std::unique_ptr<HostStorage>(
      new HostStorage(Placement::kVirtual, static_cast<uint8_t*>(buffer), nullptr, size));
}

Status HostStorage::Read(uint64_t offset, void* dst, uint64_t size) {
  if (size) std::memcpy(dst, bytes_ + offset, size);
  return Status::Ok();
}

Status HostStorage::Write(uint64_t offset, const void* src, uint64_t size) {
  if (size) std::memmove(bytes_ + offset, src, size);  // src may alias (tensor copy)
  return Status::Ok();
}

Status HostStorage::Fill(uint64_t offset, uint8_t value, uint64_t size) {
  if (size) std::memset(bytes_ + offset, value, size);
  return Status::Ok();
}

}  // namespace trnsim::runtime
