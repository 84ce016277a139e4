// TensorTable: tensors, tensor sets, transfers, completions and pins (tensor_table.h).
#include "runtime/tensor_table.h"

#include <algorithm>
#include <new>

#include "runtime/async/execution_unit_queues.h"

namespace trnsim::runtime {
namespace {

constexpr uint64_t kDeviceAlignmentBytes = 64;
// A device tensor of kPageAlignedTensorBytes or more starts on a 4 KiB boundary, so all of it
// but its last partial page is whole host pages, which neurond can hand to a client on its host
// to map (driver/remote/mapped_memory.h): such a tensor's transfers then need no daemon round
// trip for a partial first page. The chip model's costs do not depend on addresses, so only
// where tensors lie changes (at most 4 KiB of padding before one of 64 KiB or more).
constexpr uint64_t kPageAlignedTensorBytes = 64 * 1024;
constexpr uint64_t kTensorPageBytes = 4096;

Status NotVisible(int vnc, const CoreMap& core_map) {
  return InvalidError("logical core " + std::to_string(vnc) + " is not one of this process's " +
                      std::to_string(core_map.visible_count()) + " visible cores");
}

}  // namespace

Status TensorTable::CheckTensorLocked(const Tensor* tensor) const {
  if (tensor == nullptr) return InvalidError("tensor is NULL");
  if (!tensors_.count(tensor)) {
    return InvalidHandleError("tensor handle is not live (freed, or freed by nrt_close)");
  }
  return Status::Ok();
}

Status TensorTable::CheckSetLocked(const TensorSet* set) const {
  if (set == nullptr) return InvalidError("tensor set is NULL");
  if (!sets_.count(const_cast<TensorSet*>(set))) {
    return InvalidHandleError("tensor set handle is not live (destroyed, or freed by nrt_close)");
  }
  return Status::Ok();
}

Tensor* TensorTable::Adopt(std::unique_ptr<Tensor> tensor) {
  Tensor* raw = tensor.get();
  std::unique_lock lock(mutex_);
  tensors_.emplace(raw, std::shared_ptr<Tensor>(std::move(tensor)));
  return raw;
}

void TensorTable::WaitUntilNotQueued(const Tensor* tensor) {
  // A completion callback runs on a queue's thread: waiting there for a later execution of the
  // same queue would never end. Without implicit async nothing is ever queued: no wait.
  if (async::OnQueueWorker()) return;
  queued_.WaitUntilUnused(tensor);
}

void TensorTable::Trace(bool allocate, const Tensor& tensor) {
  if (!trace_.traces_memory()) return;
  const DeviceStorage* device = tensor.device_storage();
  const Placement placement = tensor.placement();
  const char* where = placement == Placement::kDevice ? "device"
                      : placement == Placement::kHost ? "host"
                                                      : "virtual";
  const int64_t nc = device != nullptr ? int64_t(device->vnc()) : int64_t{-1};
  if (allocate) {
    trace_.RecordAllocation(&tensor, tensor.name(), where, nc, tensor.size());
  } else {
    trace_.RecordFree(&tensor, tensor.name(), where, nc, tensor.size());
  }
}

// --- Tensors ------------------------------------------------------------------------------------

StatusOr<Tensor*> TensorTable::Allocate(Placement placement, int vnc, uint64_t size,
                                        const std::string& name) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_ptr<TensorStorage> storage;
  switch (placement) {
    case Placement::kDevice: {
      if (!session->core_map->IsVisible(vnc)) return NotVisible(vnc, *session->core_map);
      if (size == 0) return InvalidError("a device tensor cannot be 0 bytes");
      CoreLocation where = session->core_map->Locate(vnc);
      driver::AllocationRequest request;
      request.chip = where.chip;
      request.hbm = where.hbm;
      request.size_bytes = size;
      request.alignment_bytes =
          size >= kPageAlignedTensorBytes ? kTensorPageBytes : kDeviceAlignmentBytes;
      request.owner_core = where.first_physical;
      request.category = driver::MemoryCategory::kTensor;
      StatusOr<std::unique_ptr<DeviceStorage>> device_storage =
          DeviceStorage::Create(session->device.get(), request, vnc, &session->vnc_bytes_used[vnc]);
      if (!device_storage.ok()) {
        const Status& s = device_storage.status();
        return Status(s.code(), "tensor '" + name + "' (" + std::to_string(size) +
                                    " bytes) on logical core " + std::to_string(vnc) + ": " +
                                    s.message());
      }
      storage = std::move(*device_storage);
      break;
    }
    case Placement::kHost:
    case Placement::kVirtual: {
      TRNSIM_ASSIGN_OR_RETURN(auto host, HostStorage::Create(placement, size));
      storage = std::move(host);
      break;
    }
    default:
      return InvalidError("placement " + std::to_string(static_cast<int>(placement)) +
                          " is not a valid nrt_tensor_placement_t");
  }
  Tensor* tensor = Adopt(std::make_unique<Tensor>(name, std::move(storage), 0, size));
  Trace(/*allocate=*/true, *tensor);
  return tensor;
}

StatusOr<Tensor*> TensorTable::AllocateEmpty(const std::string& name) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return Adopt(std::make_unique<Tensor>(name, nullptr, 0, 0));
}

StatusOr<Tensor*> TensorTable::AllocateSlice(const Tensor* source, uint64_t offset, uint64_t size,
                                             const std::string& name) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::unique_ptr<Tensor> slice;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(source));
    TRNSIM_ASSIGN_OR_RETURN(slice, source->Slice(offset, size, name));
  }
  return Adopt(std::move(slice));
}

Status TensorTable::Free(Tensor* tensor) {
  WaitUntilNotQueued(tensor);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_ptr<Tensor> reference;
  {
    std::unique_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
    for (TensorSet* set : sets_) set->Forget(tensor);
    auto entry = tensors_.find(tensor);
    reference = std::move(entry->second);
    tensors_.erase(entry);
    output_completions_.Forget(tensor);
    Trace(/*allocate=*/false, *tensor);
  }
  reference.reset();  // the memory goes now unless a pin holds the tensor
  return Status::Ok();
}

Status TensorTable::Read(const Tensor* tensor, void* dst, uint64_t offset, uint64_t size) {
  WaitUntilNotQueued(tensor);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->Read(offset, dst, size);
}

Status TensorTable::Write(Tensor* tensor, const void* src, uint64_t offset, uint64_t size) {
  WaitUntilNotQueued(tensor);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->Write(offset, src, size);
}

Status TensorTable::Copy(const Tensor* src, uint64_t src_offset, Tensor* dst, uint64_t dst_offset,
                         uint64_t size) {
  WaitUntilNotQueued(src);
  WaitUntilNotQueued(dst);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(src));
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(dst));
  return Tensor::Copy(*src, src_offset, *dst, dst_offset, size);
}

Status TensorTable::Memset(Tensor* tensor, uint64_t offset, uint8_t value, uint64_t size) {
  WaitUntilNotQueued(tensor);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->Fill(offset, value, size);
}

Status TensorTable::AttachBuffer(Tensor* tensor, void* buffer, uint64_t size) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::unique_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  if (buffer == nullptr) return InvalidError("buffer is NULL");
  // The storage is replaced: wait until no running execution uses the tensor (they unmark
  // without this lock, and none can bind it while it is held).
  executing_.WaitUntilUnused(tensor);
  tensor->AttachBuffer(buffer, size);
  return Status::Ok();
}

namespace {

// Checks every tensor and range of `batches` before any byte moves (a zero-byte op validates
// its range without moving data); the table's lock held.
template <typename TensorPtr, typename CheckTensor>
Status CheckBatches(const std::vector<std::pair<TensorPtr, std::vector<TensorBatchOp>>>& batches,
                    const char* what, const CheckTensor& check_tensor) {
  for (const auto& [tensor, ops] : batches) {
    TRNSIM_RETURN_IF_ERROR(check_tensor(tensor));
    for (const TensorBatchOp& op : ops) {
      TRNSIM_RETURN_IF_ERROR(tensor->CheckRange(op.offset, op.size, what));
      if (op.size > 0 && op.buffer == nullptr) return InvalidError("batch buffer is NULL");
    }
  }
  return Status::Ok();
}

}  // namespace

Status TensorTable::ReadBatch(
    const std::vector<std::pair<const Tensor*, std::vector<TensorBatchOp>>>& batches) {
  for (const auto& batch : batches) WaitUntilNotQueued(batch.first);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckBatches(batches, "batch read",
                                      [this](const Tensor* t) { return CheckTensorLocked(t); }));
  for (const auto& [tensor, ops] : batches) {
    for (const TensorBatchOp& op : ops) {
      TRNSIM_RETURN_IF_ERROR(tensor->Read(op.offset, op.buffer, op.size));
    }
  }
  return Status::Ok();
}

Status TensorTable::WriteBatch(
    const std::vector<std::pair<Tensor*, std::vector<TensorBatchOp>>>& batches) {
  for (const auto& batch : batches) WaitUntilNotQueued(batch.first);
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckBatches(batches, "batch write",
                                      [this](const Tensor* t) { return CheckTensorLocked(t); }));
  for (const auto& [tensor, ops] : batches) {
    for (const TensorBatchOp& op : ops) {
      TRNSIM_RETURN_IF_ERROR(tensor->Write(op.offset, op.buffer, op.size));
    }
  }
  return Status::Ok();
}

StatusOr<uint64_t> TensorTable::Size(const Tensor* tensor) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->size();
}

StatusOr<void*> TensorTable::HostAddress(const Tensor* tensor) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->HostAddress();
}

StatusOr<DeviceAllocationInfo> TensorTable::DeviceAllocation(const Tensor* tensor) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->DeviceAllocation();
}

StatusOr<VncMemoryStats> TensorTable::MemoryStats(int vnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  if (!session->core_map->IsVisible(vnc)) return NotVisible(vnc, *session->core_map);
  VncMemoryStats stats;
  stats.bytes_used = session->vnc_bytes_used[vnc].load();
  stats.bytes_limit = session->config.instance->chip->hbm_bytes_per_stack;
  return stats;
}

// --- Tensor sets --------------------------------------------------------------------------------

StatusOr<TensorSet*> TensorTable::AllocateSet() {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  auto* set = new TensorSet();
  std::unique_lock lock(mutex_);
  sets_.insert(set);
  return set;
}

Status TensorTable::DestroySet(TensorSet* set) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::unique_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(set));
  sets_.erase(set);
  delete set;
  return Status::Ok();
}

Status TensorTable::AddToSet(TensorSet* set, const std::string& name, Tensor* tensor) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::unique_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(set));
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  set->Add(name, tensor);
  return Status::Ok();
}

StatusOr<Tensor*> TensorTable::GetFromSet(TensorSet* set, const std::string& name) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(set));
  Tensor* tensor = set->Find(name);
  if (tensor == nullptr) {
    return FailureError("no tensor named '" + name + "' in the tensor set");
  }
  return tensor;
}

// --- Output completion --------------------------------------------------------------------------

Status TensorTable::WaitOutputCompletion(const Tensor* tensor, int64_t timeout_us,
                                         uint64_t expected) {
  // Shared, and only until the wait is registered: Free (unique) cannot slip between the
  // check and the registration, and once registered its Forget wakes the wait.
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return output_completions_.Wait(tensor, timeout_us, expected, [&] { lock.unlock(); });
}

Status TensorTable::ResetOutputCompletion(Tensor* tensor) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  output_completions_.Reset(tensor);
  return Status::Ok();
}

// --- For the runtime's long calls ---------------------------------------------------------------

Status TensorTable::CheckSets(const TensorSet* inputs, const TensorSet* outputs) const {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(inputs));
  return CheckSetLocked(outputs);
}

StatusOr<BoundTensors> TensorTable::Bind(const std::vector<neff::TensorDecl>& declared,
                                         const TensorSet* inputs, const TensorSet* outputs) {
  BoundTensors bound;
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(inputs));
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(outputs));
  TRNSIM_ASSIGN_OR_RETURN(bound.binding, execution::IoBinding::Bind(declared, *inputs, *outputs));
  for (Tensor* tensor : bound.binding.tensors()) {
    bound.executing.push_back(tensor);
    // A set names live tensors only (Free removes them from every set).
    std::shared_ptr<Tensor>& reference = tensors_.at(tensor);
    if (std::find(bound.pins.begin(), bound.pins.end(), reference) == bound.pins.end()) {
      bound.pins.push_back(reference);
    }
  }
  executing_.Acquire(bound.executing);  // under the lock: AttachBuffer sees it
  return bound;
}

void TensorTable::CompleteOutputs(const std::vector<const Tensor*>& outputs) {
  std::vector<const void*> live;
  std::shared_lock lock(mutex_);
  // A tensor freed during the run has no completion count any more.
  for (const Tensor* tensor : outputs) {
    if (tensors_.count(tensor)) live.push_back(tensor);
  }
  output_completions_.Complete(live);
}

StatusOr<std::shared_ptr<Tensor>> TensorTable::Pin(const Tensor* tensor) const {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensors_.at(tensor);
}

Status TensorTable::ReadPinned(const Tensor& pinned, uint64_t offset, void* dst,
                               uint64_t size) const {
  std::shared_lock lock(mutex_);
  return pinned.Read(offset, dst, size);
}

Status TensorTable::WritePinned(Tensor& pinned, uint64_t offset, const void* src,
                                uint64_t size) const {
  std::shared_lock lock(mutex_);
  return pinned.Write(offset, src, size);
}

StatusOr<DeviceSpan> TensorTable::PinDeviceSpan(const Tensor* tensor, uint64_t offset,
                                                uint64_t length, const char* what) const {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  const DeviceStorage* storage = tensor->device_storage();
  if (storage == nullptr) {
    return InvalidError("tensor '" + tensor->name() + "' is not in device memory: " + what +
                        " moves device tensors only");
  }
  TRNSIM_RETURN_IF_ERROR(tensor->CheckRange(offset, length, what));
  DeviceSpan span;
  span.handle = storage->device_allocation()->handle;
  span.offset = tensor->storage_offset() + offset;
  span.length = length;
  span.storage = tensor->shared_storage();
  return span;
}

// --- Lifecycle ----------------------------------------------------------------------------------

void TensorTable::Clear() {
  {
    std::unique_lock lock(mutex_);
    for (TensorSet* set : sets_) delete set;
    sets_.clear();
    tensors_.clear();  // device memory goes back with the storage
  }
  output_completions_.Clear();  // waiters on those tensors return NRT_INVALID_HANDLE
}

void TensorTable::AbandonAfterFork() {
  // A parent's thread may have held the lock (executions take it without the lifecycle's).
  new (&mutex_) std::shared_mutex();
  // Leaked: destroying the tensors would free the parent's memory.
  new std::unordered_map<const Tensor*, std::shared_ptr<Tensor>>(std::move(tensors_));
  tensors_.clear();
  sets_.clear();
}

}  // namespace trnsim::runtime
