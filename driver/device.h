// Device: the emulated kernel driver, as the runtime sees it. One Device is one process's
// connection to one emulated instance — like the set of /dev/neuron* nodes a real process opens.
// The runtime talks only to this interface and never knows which back end serves it:
//   sim     the instance lives in this process (driver/sim/)
//   remote  the instance lives in neurond; each method is one RPC (issue: neurond)
// Back ends are listed in device_registry.cc and chosen by DeviceOptions::backend.
//
// Addresses: memory is named by an opaque MemoryHandle the back end allocates (never a host
// pointer), so every method can cross a process boundary unchanged. Programs likewise: the
// runtime loads a ProgramImage once (a ProgramHandle) and executes it against VarBindings of
// device memory (driver/execution_types.h); the chip model runs where the memory lives.
//
// Errors: every method validates its arguments against the back end's own state and returns
// NRT_INVALID_HANDLE for an unknown handle, NRT_INVALID for out-of-range offsets/sizes/indices,
// NRT_RESOURCE when memory is exhausted, NRT_FAILURE for cores already owned.
//
// Thread safety: all methods may be called concurrently from any thread. Executions on
// distinct cores may run at once (the sim back end runs them so: sim/sim_device.h); an
// execution on a core that is running another waits for it. Two executions, or an execution and
// Write/Read/Copy/Fill, on the same bytes at once race as on hardware. Freeing memory bound to a
// running execution succeeds; the memory is released when the execution ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "common/status_or.h"
#include "driver/collective_calls.h"
#include "driver/execution_result.h"
#include "driver/execution_types.h"
#include "driver/faults/fault_spec.h"
#include "simulator/collective/collective_fabric.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::driver {

using MemoryHandle = uint64_t;  // 0 is never a valid handle
inline constexpr MemoryHandle kInvalidMemoryHandle = 0;

// What a block of device memory holds; kept for memory reports (neuron-top, neuron-monitor).
enum class MemoryCategory : uint8_t { kTensor, kConstant, kScratchpad, kCode, kMisc };

struct AllocationRequest {
  int chip = 0;                // 0 .. chip_count-1
  int hbm = 0;                 // HBM stack on that chip
  uint64_t size_bytes = 0;     // > 0
  uint64_t alignment_bytes = 64;  // a power of two
  int owner_core = 0;          // instance-wide physical core charged for the memory
  MemoryCategory category = MemoryCategory::kTensor;
  // The runtime's id of the model the memory is for (ModelOwner::id); 0: no model. Only
  // reported (neurond's Status), never checked: the sim back end ignores it.
  uint64_t owner_model_id = 0;
};

// The model a loaded program belongs to, for reports only (neurond's Status: neuron-top and
// neuron-monitor list each process's models). No back end checks or uses it otherwise; the
// sim back end ignores it (one process, nothing to report to), the remote one sends it.
struct ModelOwner {
  uint64_t id = 0;   // the runtime's model id (model::Model::id); 0: no model
  std::string name;  // the NEFF's name
  std::string uuid;  // the NEFF header's uuid as 32 lowercase hex digits
  // The instance-wide physical core the program is loaded for; -1: unknown. Fault injection's
  // load_oom rules match it (docs/faults.md); nothing else reads it.
  int physical_core = -1;
};

struct AllocationInfo {
  MemoryHandle handle = kInvalidMemoryHandle;
  int chip = 0;
  int hbm = 0;
  uint64_t device_address = 0;  // physical address in the chip's address space
  uint64_t size_bytes = 0;      // the reserved size: the request rounded up
  int owner_core = 0;
  MemoryCategory category = MemoryCategory::kTensor;
};

struct HbmUsage {
  uint64_t used_bytes = 0;
  uint64_t capacity_bytes = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  // The instance this device emulates.
  virtual const simulator::InstanceSpec& instance_spec() const = 0;

  // Reserves physical cores [first, first+count) (instance-wide indices) for this connection.
  // NRT_FAILURE if any is held by another connection; NRT_INVALID if out of range.
  virtual Status AcquireCores(int first_physical_core, int count) = 0;
  // Releases cores this connection holds, dropping their on-chip state (SBUF/PSUM: the next
  // owner starts from zeroed memory); cores it does not hold are ignored.
  virtual void ReleaseCores(int first_physical_core, int count) = 0;

  // Device memory. A new allocation reads as zero.
  virtual StatusOr<AllocationInfo> Allocate(const AllocationRequest& request) = 0;
  virtual Status Free(MemoryHandle handle) = 0;
  virtual StatusOr<AllocationInfo> Describe(MemoryHandle handle) = 0;
  virtual Status Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size) = 0;
  virtual Status Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size) = 0;
  // Copies between two allocations (or within one; overlapping ranges behave like memmove).
  virtual Status Copy(MemoryHandle src, uint64_t src_offset, MemoryHandle dst,
                      uint64_t dst_offset, uint64_t size) = 0;
  virtual Status Fill(MemoryHandle handle, uint64_t offset, uint8_t value, uint64_t size) = 0;
  // Host address of byte `offset` of the allocation when the back end can map device memory
  // into this process (sim), else nullptr (remote). Valid until the memory is freed.
  virtual void* HostAddress(MemoryHandle handle, uint64_t offset) = 0;
  // Usage of one HBM stack across every connection.
  virtual StatusOr<HbmUsage> GetHbmUsage(int chip, int hbm) = 0;

  // Device memory another process of this host may map (neurond hands it to a client on its
  // host, README "Data plane"): a memfd holding bytes [offset, offset+size) of the allocation,
  // the whole host pages inside it; the bytes before and after stay private. `fd` belongs to
  // the caller. Mapping the descriptor reads and writes the allocation itself, until it is
  // freed: from then on the memfd's pages belong to its holders alone and never alias device
  // memory again. NRT_INVALID_HANDLE for an unknown handle, NRT_INVALID when no whole page lies
  // inside the allocation, NRT_EXEC_NC_BUSY while an execution is bound to it (ask again after),
  // NRT_RESOURCE when the host refuses; NRT_FAILURE for a back end that cannot (remote).
  struct SharedMemory {
    int fd = -1;
    uint64_t offset = 0;
    uint64_t size = 0;
  };
  virtual StatusOr<SharedMemory> ShareMemory(MemoryHandle handle) {
    (void)handle;
    return FailureError("this back end cannot share device memory with another process");
  }

  // Programs and execution.
  //
  // Decodes and validates every non-empty stream of `image` for the instance's chip
  // (isa::DecodeStream against its IsaLimits; the stream must be encoded for the engine whose
  // slot holds it) and checks the descriptors' queues, semaphores and events against the
  // chip. NRT_INVALID naming the engine (and, from the decoder, the instruction) on failure,
  // with nothing kept. The handle stays valid until UnloadProgram. `owner` names the model the
  // program is part of, for reports (ModelOwner); the one-argument form loads it for no model.
  // Back ends add `using Device::LoadProgram;` so both forms stay callable on them.
  // An injected load_oom fault (docs/faults.md) is NRT_RESOURCE, with nothing kept.
  virtual StatusOr<ProgramHandle> LoadProgram(const ProgramImage& image,
                                              const ModelOwner& owner) = 0;
  StatusOr<ProgramHandle> LoadProgram(const ProgramImage& image) {
    return LoadProgram(image, ModelOwner{});
  }
  // Forgets a loaded program. NRT_INVALID_HANDLE if `program` is not loaded.
  virtual Status UnloadProgram(ProgramHandle program) = 0;
  // Runs one execution on the chip model (simulator::core::Execute): cores[i] runs its program
  // against its bindings, all cores starting together. The result is the driver's account of
  // it (execution_result.h), its cores in the order of `cores`. Everything is validated before
  // anything runs, each failure with one message:
  //   NRT_INVALID_HANDLE  a program handle that is not loaded;
  //   NRT_INVALID         no cores; a chip or chip-local core out of range; cores of more than
  //                       one chip or the same core twice; a binding whose memory handle is
  //                       unknown or whose [offset, offset+size) leaves its allocation; a
  //                       var_id bound twice on one core; rounding_seeds neither empty nor
  //                       one per core;
  //   NRT_FAILURE         a core this connection has not acquired (AcquireCores).
  // A binding of 0 bytes may name no memory (kInvalidMemoryHandle): the variable is empty.
  // Each physical core keeps its SBUF and PSUM between executions (as on hardware); its
  // semaphores and events start at 0 in every execution. Execution errors are the chip
  // model's (NRT_TIMEOUT, NRT_INVALID; bound memory may be partly written), or an injected
  // fault's (DeviceOptions::faults, docs/faults.md: 1200-1205, NRT_TIMEOUT; the chip model
  // does not run, bound memory is untouched).
  virtual StatusOr<ExecutionResult> Execute(std::span<const CoreExecution> cores,
                                            const ExecutionRequestOptions& options) = 0;
  // Host-driven collectives (nrt_barrier, nrt_all_gather): joins `call` with the same call of
  // every other rank of its communicator on this instance (simulator/collective/collective_hub.h)
  // and returns all_gather's concatenation in rank order (barrier: empty). Waits at most
  // options.host_timeout (zero: the hub's default): NRT_TIMEOUT naming the missing ranks;
  // options.cancel (if set) ends the wait early (NRT_EXEC_HW_ERR_COLLECTIVES for every rank).
  virtual StatusOr<std::vector<uint8_t>> HostCollective(const HostCollectiveCall& call,
                                                        const HostCollectiveOptions& options) = 0;
  // Point-to-point transfers between logical cores of the instance (nrt_async_sendrecv_*):
  // one operation of the instance's PeerExchange (simulator/collective/point_to_point.h), whose
  // errors it returns. A kPost's buffer.memory is one of this connection's handles: unknown is
  // NRT_INVALID_HANDLE, [offset, offset+length) outside the allocation NRT_INVALID, both before
  // anything is posted. The bytes move inside the back end (never through the caller), when
  // both sides of a transfer are posted. Never blocks.
  virtual StatusOr<PeerReply> PointToPoint(const PeerCall& call) = 0;
};

struct DeviceOptions {
  std::string backend = "sim";  // a name from device_registry.cc
  const simulator::InstanceSpec* instance = nullptr;  // sim: the instance to build
  std::string address;          // remote: the daemon address
  std::string token;            // remote: the daemon's token
  std::string tls_ca_file;      // remote: PEM roots to trust; empty: plaintext (remote_device.h)
  std::string tls_server_name;  // remote: the name the daemon's certificate must carry
  // Fault injection (docs/faults.md): rules naming instance-wide physical cores (core=; a rule
  // with nc= is refused, NRT_INVALID). sim: the device injects them itself; remote: sent in
  // Hello, neurond injects them into this connection's executions. Empty: none.
  faults::FaultSpec faults;
  // sim: simulate the physical cores of one execution on host threads of their own when the
  // host has more than one (simulator/core/execution.h, ExecuteOptions::host_threads); results
  // are identical either way. remote: unused (neurond's device decides for itself).
  bool host_threads = true;
  // sim: where the device's collective ranks meet the others of their jobs (neurond's cluster
  // fabric, docs/cluster.md); null: a CollectiveHub of the device's own instance.
  std::shared_ptr<simulator::collective::CollectiveFabric> collective_fabric;
};

// Opens a device with the named back end; NRT_INVALID names the known back ends.
StatusOr<std::unique_ptr<Device>> OpenDevice(const DeviceOptions& options);

}  // namespace trnsim::driver
