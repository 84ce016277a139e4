// SimDevice: the in-process back end. It owns a simulator::Instance and plays the kernel
// driver's part for it: core ownership, per-HBM memory pools, reads/writes of emulated HBM,
// loaded programs, and execution on the chip model (simulator::core::Execute).
// neurond hosts this same class for its clients.
//
// Programs: LoadProgram keeps the decoded streams and the descriptor table per handle. The
// program's ModelOwner and an allocation's owner_model_id are for reports, which a process with
// its own instance has no one to send to (neurond, which hosts this class, keeps them per
// session itself: tools/neurond/session.h); only the owner's name and core are used, by fault
// injection (below).
// Core state: one reference::CoreState (SBUF, PSUM, semaphores, events) per physical core of
// the instance, created at the core's first execution and dropped when the core is released:
// SBUF and PSUM persist between executions as on hardware, and memory is spent only on cores
// that ran something. Semaphores and events are reset to 0 before every execution (the
// runtime's job on hardware too), and the rounding mode and seed are set from the request.
//
// Concurrency: executions on disjoint sets of physical cores run concurrently. An execution
// first validates its request and pins what it uses under the memory lock (held briefly), then
// claims its cores: it waits while another execution runs on any of them, and a core's
// CoreState is used only by the execution that has claimed the core. ReleaseCores waits for an
// execution running on those cores to end before it drops their state.
// Pinning: an execution holds its programs (shared) and counts a pin on every allocation it
// binds, so Allocate, Free, Read, Write, ... never wait for an execution. Free of a pinned
// allocation succeeds at once — its handle is unknown from then on — and the memory returns
// to its pool when the last execution bound to it ends, as the Neuron kernel driver's
// reference-counted memory chunks do (docs/decisions.md, "Execution").
// Collectives: an execution with ExecutionRequestOptions::collective gets a port from the
// device's collective fabric for its `collective` instructions — the instance's own
// CollectiveHub, or DeviceOptions::collective_fabric (neurond's, for multi-instance jobs) —
// and HostCollective goes to the same fabric. A rank blocked in a collective holds its cores
// (as on hardware) and nothing else.
// PointToPoint goes to the instance's PeerExchange, which moves bytes with Copy (any two
// allocations, across HBM stacks and chips) when both sides of a transfer are posted.
// Faults: the one place executions get them (driver/faults/fault_plan.h, docs/faults.md). The
// plan is the request's (ExecutionRequestOptions::faults: neurond's session's) or else the
// device's own (DeviceOptions::faults; it and the poisoned stacks and dead cores it remembers
// live as long as this device). Execute decides once the cores are claimed (so a rule's
// ordinals follow the order executions run on a core) and does not run the chip model, except
// for corrupt, which runs it and then overwrites output words. A hang keeps its cores claimed
// while it waits out the request's host_timeout. load_oom: the device's own plan in
// LoadProgram, before anything is decoded (neurond's Session applies its plan there itself).
// Device time: every core has a device clock (device_clock.h) that only its executions
// advance; Execute reports each core's start on it in CoreStats::device_start_ps.
// Races: two executions (or an execution and Write/Read/Copy/Fill) touching the same HBM bytes
// at once race as they would on hardware; ordering them is the caller's job.
#pragma once

#include <array>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "driver/device.h"
#include "driver/faults/fault_plan.h"
#include "driver/sim/device_clock.h"
#include "driver/sim/hbm_allocator.h"
#include "simulator/collective/collective_hub.h"
#include "simulator/collective/point_to_point.h"
#include "simulator/instance.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/validated_program.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::driver::sim {

StatusOr<std::unique_ptr<Device>> OpenSimDevice(const DeviceOptions& options);

class SimDevice final : public Device {
 public:
  // `faults`: the fault plan to apply (null: none). `host_threads`: DeviceOptions::host_threads.
  // `fabric`: where collective ranks meet (null: a CollectiveHub of this instance).
  explicit SimDevice(std::unique_ptr<simulator::Instance> instance,
                     std::unique_ptr<faults::FaultPlan> faults = nullptr, bool host_threads = true,
                     std::shared_ptr<simulator::collective::CollectiveFabric> fabric = nullptr);
  ~SimDevice() override;  // closes the memfds of shared allocations
  SimDevice(const SimDevice&) = delete;
  SimDevice& operator=(const SimDevice&) = delete;

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
  StatusOr<SharedMemory> ShareMemory(MemoryHandle handle) override;
  StatusOr<HbmUsage> GetHbmUsage(int chip, int hbm) override;

  using Device::LoadProgram;
  StatusOr<ProgramHandle> LoadProgram(const ProgramImage& image, const ModelOwner&) override;
  Status UnloadProgram(ProgramHandle program) override;
  StatusOr<ExecutionResult> Execute(std::span<const CoreExecution> cores,
                                    const ExecutionRequestOptions& options) override;
  StatusOr<std::vector<uint8_t>> HostCollective(const HostCollectiveCall& call,
                                                const HostCollectiveOptions& options) override;
  StatusOr<PeerReply> PointToPoint(const PeerCall& call) override;

  // Test seam: what executions and ReleaseCores are doing, reported with no lock held, with
  // the instance-wide physical cores concerned. kWaitingForCores: an execution found one of
  // its cores busy and is about to wait; kRunning: an execution holds its cores and is about to
  // run; kReleaseWaiting: ReleaseCores is about to wait for an execution on its cores;
  // kHanging: an injected hang holds its cores and is about to wait out its timeout.
  // Set it before any call that may report; it is not synchronised.
  enum class Event { kWaitingForCores, kRunning, kReleaseWaiting, kHanging };
  using Observer = std::function<void(Event, std::span<const int> cores)>;
  void SetObserverForTesting(Observer observer) { observer_ = std::move(observer); }

 private:
  struct LoadedProgram {
    // Validated at load (ProgramImage::decoded, or decoded here); null: the engine is idle.
    std::array<std::shared_ptr<const isa::ValidatedProgram>, isa::kEngineCount> programs;
    simulator::dma::DescriptorTable descriptors;
    std::string model_name;  // ModelOwner::name, for fault injection's model= globs
  };

  struct Allocation {
    AllocationInfo info;
    uint64_t hbm_offset;  // offset of the first byte inside the HBM stack
    int pins = 0;         // bindings of executions still running
    bool freed = false;   // Free came while pinned: the last unpin releases it
    // ShareMemory's memfd (owned; -1: private) and the stack range mapped from it.
    int shared_fd = -1;
    uint64_t shared_hbm_offset = 0;
    uint64_t shared_size = 0;
  };
  using AllocationMap = std::unordered_map<MemoryHandle, Allocation>;

  // What one execution holds until it ends (sim_device_execute.cc): pins, programs, cores.
  class Claim;

  // Finds `handle` (not freed) and checks [offset, offset+size) lies inside it. Caller holds
  // mutex_.
  StatusOr<const Allocation*> Lookup(MemoryHandle handle, uint64_t offset, uint64_t size) const;
  HbmAllocator& AllocatorFor(int chip, int hbm);
  // Discards the allocation's bytes and returns it to its pool. Caller holds mutex_ uniquely.
  Status ReleaseLocked(AllocationMap::iterator it);
  // Drops one pin of each handle, releasing freed allocations nobody pins any more.
  void Unpin(std::span<const MemoryHandle> handles);
  // Waits until none of `cores` (instance-wide) runs an execution, then marks them busy.
  // NRT_FAILURE if one is no longer held (released while this execution waited).
  Status ClaimCores(std::span<const int> cores);
  void UnclaimCores(std::span<const int> cores);
  void Notify(Event event, std::span<const int> cores) const;

  std::unique_ptr<simulator::Instance> instance_;
  const std::unique_ptr<faults::FaultPlan> faults_;  // null: no fault injection
  const bool host_threads_;                          // DeviceOptions::host_threads
  // Where every execution that is a collective rank meets the others (its own locking).
  const std::shared_ptr<simulator::collective::CollectiveFabric> collectives_;
  // Where point-to-point transfers meet; it copies with Copy (its own locking).
  simulator::collective::PeerExchange peers_;
  mutable std::shared_mutex mutex_;       // guards everything below
  std::vector<HbmAllocator> allocators_;  // chip * hbm_stacks + hbm
  AllocationMap allocations_;
  MemoryHandle next_handle_ = 1;
  std::vector<bool> core_owned_;
  std::unordered_map<ProgramHandle, std::shared_ptr<const LoadedProgram>> programs_;
  ProgramHandle next_program_ = 1;

  // Lock order: cores_mutex_ before mutex_.
  std::mutex cores_mutex_;  // guards core_busy_, and core_states_[c] while core c is not busy
  std::condition_variable cores_cv_;  // a core stopped being busy
  std::vector<bool> core_busy_;       // instance-wide physical core -> an execution runs on it
  // Instance-wide physical core -> its state (created at the core's first execution). Slot c
  // belongs to the execution that marked core c busy, else to holders of cores_mutex_.
  std::vector<std::unique_ptr<reference::CoreState>> core_states_;
  // The cores' device time (device_clock.h): each successful execution reports its start in
  // CoreStats::device_start_ps and advances its cores' counters.
  DeviceClock clock_;
  Observer observer_;
};

}  // namespace trnsim::driver::sim
