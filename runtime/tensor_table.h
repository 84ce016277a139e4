// TensorTable: the process's live tensors and tensor sets — nrt_tensor_* and
// nrt_tensor_set_* behind the C API — with what each tensor's users need: data transfers
// (single and batched, every batch validated before any byte moves), attached buffers, slices,
// memory statistics, output completion counts, and pins for the long calls that use tensors
// without holding a lock (executions, host collectives, send/recv).
//
// Handles are the addresses of the Tensor and TensorSet objects the table owns. Every call
// checks the handle against the live set: a freed or foreign handle is NRT_INVALID_HANDLE
// rather than a crash (unless its address has been reused); NULL is NRT_INVALID. The table
// holds one reference to each tensor; Pin adds more, so a freed tensor's memory goes at the
// last unpin. Calls that need an initialised runtime return the lifecycle's statuses
// otherwise (output completions do not: AWS's are not gated).
//
// Implicit async execution (Executions::ExecuteAsync) marks the tensors of each queued
// execution in use; a read, write, copy, fill or free of one waits until no queued execution
// uses it (except on a queue's own thread, which would wait for itself).
//
// Thread safety: every method. Its own lock guards the table, the sets' contents and each
// tensor's storage during a transfer (so an attach or free cannot pull a storage from under
// it); it is never held across an execution or a wait for other ranks. Lock order: the
// lifecycle's, then this.
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/status.h"
#include "runtime/async/output_completions.h"
#include "runtime/async/tensor_use_tracker.h"
#include "runtime/execution/io_binding.h"
#include "runtime/lifecycle.h"
#include "runtime/neff/neff.h"
#include "runtime/profiling/runtime_trace.h"
#include "runtime/tensor.h"
#include "runtime/tensor_set.h"

namespace trnsim::runtime {

struct VncMemoryStats {
  uint64_t bytes_used = 0;   // device memory this process holds on the vnc
  uint64_t bytes_limit = 0;  // capacity of the vnc's HBM stack
};

struct TensorBatchOp {
  uint64_t offset = 0;
  uint64_t size = 0;
  void* buffer = nullptr;
};

// What an execution holds of its tensors from binding to end (TensorTable::Bind).
struct BoundTensors {
  execution::IoBinding binding;
  std::vector<std::shared_ptr<Tensor>> pins;  // each bound tensor once
  std::vector<const void*> executing;         // marked executing (TensorTable::Unmark)
};

// A live device tensor's bytes, named as the device names memory, with the storage pinned.
struct DeviceSpan {
  driver::MemoryHandle handle = 0;
  uint64_t offset = 0;  // within the allocation
  uint64_t length = 0;
  std::shared_ptr<const TensorStorage> storage;  // keeps the memory while the caller uses it
};

class TensorTable {
 public:
  // `trace` receives allocations and frees for nrt_trace_start(trace_mem).
  TensorTable(const Lifecycle& lifecycle, profiling::RuntimeTrace& trace)
      : lifecycle_(lifecycle), trace_(trace) {}
  TensorTable(const TensorTable&) = delete;
  TensorTable& operator=(const TensorTable&) = delete;

  // --- Tensors (nrt_tensor_*) ------------------------------------------------------------
  // Device: `vnc` a visible process-relative core, `size` > 0; NRT_RESOURCE when the HBM
  // stack is full. Host and virtual: host memory. NRT_INVALID for a bad placement.
  StatusOr<Tensor*> Allocate(Placement placement, int vnc, uint64_t size, const std::string& name);
  StatusOr<Tensor*> AllocateEmpty(const std::string& name);
  StatusOr<Tensor*> AllocateSlice(const Tensor* source, uint64_t offset, uint64_t size,
                                  const std::string& name);
  // Removes the tensor from every set; its memory goes now, or at the last pin's end.
  Status Free(Tensor* tensor);
  Status Read(const Tensor* tensor, void* dst, uint64_t offset, uint64_t size);
  Status Write(Tensor* tensor, const void* src, uint64_t offset, uint64_t size);
  Status Copy(const Tensor* src, uint64_t src_offset, Tensor* dst, uint64_t dst_offset,
              uint64_t size);
  Status Memset(Tensor* tensor, uint64_t offset, uint8_t value, uint64_t size);
  // Replaces the tensor's storage, once no running execution uses it.
  Status AttachBuffer(Tensor* tensor, void* buffer, uint64_t size);
  Status ReadBatch(
      const std::vector<std::pair<const Tensor*, std::vector<TensorBatchOp>>>& batches);
  Status WriteBatch(const std::vector<std::pair<Tensor*, std::vector<TensorBatchOp>>>& batches);
  StatusOr<uint64_t> Size(const Tensor* tensor);
  StatusOr<void*> HostAddress(const Tensor* tensor);
  StatusOr<DeviceAllocationInfo> DeviceAllocation(const Tensor* tensor);
  StatusOr<VncMemoryStats> MemoryStats(int vnc);

  // --- Tensor sets (nrt_tensor_set_*) -----------------------------------------------------
  StatusOr<TensorSet*> AllocateSet();
  Status DestroySet(TensorSet* set);
  Status AddToSet(TensorSet* set, const std::string& name, Tensor* tensor);
  // NRT_FAILURE when the set has no tensor of that name.
  StatusOr<Tensor*> GetFromSet(TensorSet* set, const std::string& name);

  // --- Output completion (nrt_tensor_check/reset_output_completion) -----------------------
  // Every execution adds 1 to the count of each tensor bound to one of its model's outputs
  // when it finishes, whatever its status (async/output_completions.h). Wait: `timeout_us` 0
  // checks once, < 0 waits for ever; NRT_TIMEOUT when it runs out, NRT_INVALID_HANDLE when the
  // tensor is freed (or nrt_close) meanwhile.
  Status WaitOutputCompletion(const Tensor* tensor, int64_t timeout_us, uint64_t expected);
  Status ResetOutputCompletion(Tensor* tensor);

  // --- For the runtime's long calls -------------------------------------------------------
  // NRT_INVALID_HANDLE (NRT_INVALID for NULL) unless both sets are live.
  Status CheckSets(const TensorSet* inputs, const TensorSet* outputs) const;
  // Binds `declared` by name from the sets (execution/io_binding.h: NRT_INVALID for a missing
  // tensor or a size mismatch), pins the bound tensors and marks them executing: AttachBuffer
  // waits for them until Unmark. The sets must be live (CheckSets' statuses otherwise).
  StatusOr<BoundTensors> Bind(const std::vector<neff::TensorDecl>& declared,
                              const TensorSet* inputs, const TensorSet* outputs);
  void Unmark(const std::vector<const void*>& executing) { executing_.Release(executing); }
  // Adds 1 to the output completion count of each of `outputs` still live.
  void CompleteOutputs(const std::vector<const Tensor*>& outputs);
  // Implicit async: marks the tensors of a queued execution in use, and unmarks them.
  void MarkQueued(const std::vector<const void*>& tensors) { queued_.Acquire(tensors); }
  void UnmarkQueued(const std::vector<const void*>& tensors) { queued_.Release(tensors); }
  // A live tensor, pinned (the lifecycle is the caller's to check).
  StatusOr<std::shared_ptr<Tensor>> Pin(const Tensor* tensor) const;
  // Read from and write into a pinned tensor under the table's lock (no attach replaces its
  // storage meanwhile); the tensor may have been freed since it was pinned.
  Status ReadPinned(const Tensor& pinned, uint64_t offset, void* dst, uint64_t size) const;
  Status WritePinned(Tensor& pinned, uint64_t offset, const void* src, uint64_t size) const;
  // Bytes [offset, offset+length) of a live device tensor (NRT_INVALID for a host tensor or a
  // range outside it; `what` names the user in the message).
  StatusOr<DeviceSpan> PinDeviceSpan(const Tensor* tensor, uint64_t offset, uint64_t length,
                                     const char* what) const;

  // --- Lifecycle --------------------------------------------------------------------------
  // nrt_close: frees every tensor and set; waiters on completions get NRT_INVALID_HANDLE.
  void Clear();
  // A forked child: a fresh lock (a parent's thread may hold this one); the tables are
  // forgotten without freeing anything (they name the parent's memory).
  void AbandonAfterFork();

 private:
  // All: mutex_ held (any mode).
  Status CheckTensorLocked(const Tensor* tensor) const;
  Status CheckSetLocked(const TensorSet* set) const;
  Tensor* Adopt(std::unique_ptr<Tensor> tensor);
  // Implicit async: waits until no queued execution uses `tensor`.
  void WaitUntilNotQueued(const Tensor* tensor);
  void Trace(bool allocate, const Tensor& tensor);

  const Lifecycle& lifecycle_;
  profiling::RuntimeTrace& trace_;
  mutable std::shared_mutex mutex_;
  // The live tensors: the table holds one reference, pins more.
  std::unordered_map<const Tensor*, std::shared_ptr<Tensor>> tensors_;
  std::unordered_set<TensorSet*> sets_;
  async::OutputCompletions output_completions_;  // its own lock; waited on outside mutex_
  async::TensorUseTracker queued_;               // implicit async's queued executions
  async::TensorUseTracker executing_;            // running executions' (whatever the mode)
};

}  // namespace trnsim::runtime
