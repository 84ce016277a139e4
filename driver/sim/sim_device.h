// SimDevice: the in-process back end. It owns a simulator::Instance and plays the kernel
// driver's part for it: core ownership, per-HBM memory pools, reads/writes of emulated HBM,
// loaded programs, and execution on the chip model (simulator::core::Execute).
// neurond hosts this same class for its clients.
//
// Programs: LoadProgram keeps the decoded streams and the descriptor table per handle.
// Core state: one reference::CoreState (SBUF, PSUM, semaphores, events) per physical core of
// the instance, created at the core's first execution and kept until the device is destroyed:
// SBUF and PSUM persist between executions as on hardware, and memory is spent only on cores
// that ran something. Semaphores and events are reset to 0 before every execution (the
// runtime's job on hardware too), and the rounding mode and seed are set from the request.
//
// Serialisation: one mutex (execute_mutex_) around every execution, so at most one execution
// runs on the device at a time, whatever its cores — simple and safe (a CoreState is never used
// by two executions at once). The memory lock is held shared across an execution, so bound
// memory cannot be freed under it (Allocate/Free wait; Read/Write/Copy/Fill proceed).
// Executions on distinct cores could run concurrently; neurond may refine this to one lock per
// physical core.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "driver/device.h"
#include "driver/sim/hbm_allocator.h"
#include "simulator/instance.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"

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

  StatusOr<ProgramHandle> LoadProgram(const ProgramImage& image) override;
  Status UnloadProgram(ProgramHandle program) override;
  StatusOr<simulator::core::ExecutionResult> Execute(
      std::span<const CoreExecution> cores, const ExecutionRequestOptions& options) override;

 private:
  struct LoadedProgram {
    std::array<std::optional<isa::Program>, isa::kEngineCount> programs;
    simulator::dma::DescriptorTable descriptors;
  };

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
  std::unordered_map<ProgramHandle, std::unique_ptr<LoadedProgram>> programs_;
  ProgramHandle next_program_ = 1;

  std::mutex execute_mutex_;  // held across every execution; guards core_states_
  // Instance-wide physical core -> its state (created at the core's first execution).
  std::unordered_map<int, std::unique_ptr<reference::CoreState>> core_states_;
};

}  // namespace trnsim::driver::sim
