// TensorStorage: the bytes behind a tensor, shared (by shared_ptr) between a tensor and the
// slices cut from it, so storage lives until its last user is freed.
//   DeviceStorage   device memory of one logical core's HBM stack (freed with the storage)
//   HostStorage     host memory: owned by the runtime (HOST and VIRTUAL placements) or a
//                   caller's buffer (nrt_tensor_attach_buffer), which trnsim never frees
// Offsets and sizes are validated by Tensor before they reach a storage.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/status_or.h"
#include "driver/device.h"

namespace trnsim::runtime {

// Numeric values are nrt_tensor_placement_t's.
enum class Placement : int { kDevice = 0, kHost = 1, kVirtual = 2 };

class TensorStorage {
 public:
  virtual ~TensorStorage() = default;

  virtual Placement placement() const = 0;
  virtual uint64_t size_bytes() const = 0;
  virtual Status Read(uint64_t offset, void* dst, uint64_t size) = 0;
  virtual Status Write(uint64_t offset, const void* src, uint64_t size) = 0;
  virtual Status Fill(uint64_t offset, uint8_t value, uint64_t size) = 0;
  // Host address of byte `offset`, or nullptr when the bytes are not host-addressable.
  virtual void* HostAddress(uint64_t offset) = 0;
  // The device allocation behind a DeviceStorage, else nullptr.
  virtual const driver::AllocationInfo* device_allocation() const { return nullptr; }
};

class DeviceStorage final : public TensorStorage {
 public:
  // Allocates `size` bytes; `usage_counter` (the vnc's bytes-used figure) is charged with the
  // reserved size until the storage is destroyed. It must outlive the storage.
  static StatusOr<std::unique_ptr<DeviceStorage>> Create(driver::Device* device,
                                                         const driver::AllocationRequest& request,
                                                         int vnc,
                                                         std::atomic<uint64_t>* usage_counter);
  ~DeviceStorage() override;

  Placement placement() const override { return Placement::kDevice; }
  uint64_t size_bytes() const override { return size_bytes_; }
  Status Read(uint64_t offset, void* dst, uint64_t size) override;
  Status Write(uint64_t offset, const void* src, uint64_t size) override;
  Status Fill(uint64_t offset, uint8_t value, uint64_t size) override;
  void* HostAddress(uint64_t offset) override;
  const driver::AllocationInfo* device_allocation() const override { return &info_; }

  driver::Device* device() const { return device_; }
  int vnc() const { return vnc_; }

 private:
  DeviceStorage(driver::Device* device, driver::AllocationInfo info, uint64_t size, int vnc,
                std::atomic<uint64_t>* usage_counter)
      : device_(device), info_(info), size_bytes_(size), vnc_(vnc), usage_(usage_counter) {}

  driver::Device* device_;
  driver::AllocationInfo info_;
  uint64_t size_bytes_;  // the requested size (info_.size_bytes may be larger)
  int vnc_;
  std::atomic<uint64_t>* usage_;
};

// Host bytes: either owned by the runtime (HOST and VIRTUAL placements; zero-filled) or a
// caller's buffer (nrt_tensor_attach_buffer; VIRTUAL; never freed by trnsim).
class HostStorage final : public TensorStorage {
 public:
  // NRT_RESOURCE when the host cannot provide the memory.
  static StatusOr<std::unique_ptr<HostStorage>> Create(Placement placement, uint64_t size);
  static std::unique_ptr<HostStorage> Attach(void* buffer, uint64_t size);

  Placement placement() const override { return placement_; }
  uint64_t size_bytes() const override { return size_; }
  Status Read(uint64_t offset, void* dst, uint64_t size) override;
  Status Write(uint64_t offset, const void* src, uint64_t size) override;
  Status Fill(uint64_t offset, uint8_t value, uint64_t size) override;
  void* HostAddress(uint64_t offset) override { return bytes_ + offset; }

 private:
  HostStorage(Placement placement, uint8_t* bytes, std::unique_ptr<uint8_t[]> owned,
              uint64_t size)
      : placement_(placement), bytes_(bytes), owned_(std::move(owned)), size_(size) {}

  Placement placement_;
  uint8_t* bytes_;
  std::unique_ptr<uint8_t[]> owned_;  // null for an attached buffer
  uint64_t size_;
};

}  // namespace trnsim::runtime
