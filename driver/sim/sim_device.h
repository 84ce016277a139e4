// SimDevice: the in-process back end. It owns a simulator::Instance and plays the kernel
// driver's part for it: core ownership, per-HBM memory pools, and reads/writes of emulated HBM.
// neurond hosts this same class for its clients.
#pragma once

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "driver/device.h"
#include "driver/sim/hbm_allocator.h"
#include "simulator/instance.h"

namespace trnsim::driver::sim {

StatusOr<std::unique_ptr<Device>> OpenSimDevice(const DeviceOptions& options);

class SimDevice final : public Device {
 public:
  explicit SimDevice(std::unique_ptr<simulator::Instance> instance);

  const simulator::InstanceSpec& instance_spec() const override { return instance_->spec(); }

  Status AcquireCores(int first_physical_core, int count) override;
  void ReleaseCores(int first_physical_core, int count) override;

  StatusOr<AllocationInfo> Allocate(const AllocationRequest& request) override;
  Status Free(MemoryHandle handle) override;
  StatusOr<AllocationInfo> Describe(MemoryHandle handle) override;
  Status Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size) override;
  Status Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size) override;
  Status Copy(MemoryHandle src, uint64_t src_offset, MemoryHandle dst, uint64_t dst_offset,
              uint64_t size) override;
  Status Fill(MemoryHandle handle, uint64_t offset, uint8_t value, uint64_t size) override;
  void* HostAddress(MemoryHandle handle, uint64_t offset) override;
  StatusOr<HbmUsage> GetHbmUsage(int chip, int hbm) override;

 private:
  struct Allocation {
    AllocationInfo info;
    uint64_t hbm_offset;  // offset of the first byte inside the HBM stack
  };

  // Finds `handle` and checks [offset, offset+size) lies inside it. Caller holds mutex_.
  StatusOr<const Allocation*> Lookup(MemoryHandle handle, uint64_t offset, uint64_t size) const;
  HbmAllocator& AllocatorFor(int chip, int hbm);

  std::unique_ptr<simulator::Instance> instance_;
  mutable std::shared_mutex mutex_;  // guards everything below
  std::vector<HbmAllocator> allocators_;  // chip * hbm_stacks + hbm
  std::unordered_map<MemoryHandle, Allocation> allocations_;
  MemoryHandle next_handle_ = 1;
  std::vector<bool> core_owned_;
};

}  // namespace trnsim::driver::sim
