// Tensor: what an nrt_tensor_t handle names — a byte range [offset, offset+size) of a
// TensorStorage, plus a name used in logs. Slices share their source's storage. A tensor from
// nrt_tensor_allocate_empty has no storage until a buffer is attached. Tensors carry no dtype
// or shape (AWS's don't either); models describe those.
//
// Every method validates offsets and sizes against the tensor (NRT_INVALID when past the end,
// with nothing written). Thread safety: as AWS's — concurrent reads are fine; concurrent writes
// to overlapping bytes race.
#pragma once

#include <memory>
#include <string>

#include "runtime/tensor_storage.h"

namespace trnsim::runtime {

struct DeviceAllocationInfo {
  uint64_t physical_address = 0;  // of the tensor's first byte
  uint64_t size_bytes = 0;        // bytes reserved from there on (may exceed the tensor size)
  int hbm_index = 0;
};

class Tensor {
 public:
  Tensor(std::string name, std::shared_ptr<TensorStorage> storage, uint64_t offset,
         uint64_t size)
      : name_(std::move(name)), storage_(std::move(storage)), offset_(offset), size_(size) {}

  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  bool has_storage() const { return storage_ != nullptr; }
  // VIRTUAL for a tensor without storage.
  Placement placement() const;
  // The device storage behind the tensor, or nullptr for host-side tensors.
  const DeviceStorage* device_storage() const;
  // The storage itself, shared: holding it keeps the memory after the tensor is freed (an
  // in-flight transfer pins what it reads or writes).
  std::shared_ptr<const TensorStorage> shared_storage() const { return storage_; }

  Status Read(uint64_t offset, void* dst, uint64_t size) const;
  Status Write(uint64_t offset, const void* src, uint64_t size);
  Status Fill(uint64_t offset, uint8_t value, uint64_t size);
  // Copies between tensors. Two device tensors must share one HBM stack (AWS: same core/HBM).
  static Status Copy(const Tensor& src, uint64_t src_offset, Tensor& dst, uint64_t dst_offset,
                     uint64_t size);

  // Byte offset of the tensor's first byte in its storage (a slice's window start).
  uint64_t storage_offset() const { return offset_; }
  // Host address of the first byte, or nullptr when not host-addressable or without storage.
  void* HostAddress() const;
  // NRT_INVALID for host-side tensors.
  StatusOr<DeviceAllocationInfo> DeviceAllocation() const;
  // A new tensor aliasing [offset, offset+size) of this one.
  StatusOr<std::unique_ptr<Tensor>> Slice(uint64_t offset, uint64_t size, std::string name) const;
  // Replaces the storage with the caller's buffer (placement becomes VIRTUAL).
  void AttachBuffer(void* buffer, uint64_t size);
  // OK when the tensor has storage and [offset, offset+size) lies inside it; `what` names the
  // operation in the message.
  Status CheckRange(uint64_t offset, uint64_t size, const char* what) const;

 private:

  std::string name_;
  std::shared_ptr<TensorStorage> storage_;
  uint64_t offset_ = 0;  // into storage_
  uint64_t size_ = 0;
};

}  // namespace trnsim::runtime
