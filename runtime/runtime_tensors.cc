// Runtime: tensors and tensor sets — allocation, slices, attached buffers, data transfers
// (single and batched), memory statistics, and the name -> tensor sets nrt_execute binds by.
// Each holds the lifecycle lock shared and the object table's lock for the call; a free drops
// the table's reference (an execution pinning the tensor keeps its memory until it ends).
#include "runtime/runtime.h"

namespace trnsim::runtime {
namespace {

constexpr uint64_t kDeviceAlignmentBytes = 64;

}  // namespace

Status Runtime::CheckTensorLocked(const Tensor* tensor) const {
  if (tensor == nullptr) return InvalidError("tensor is NULL");
  if (!tensors_.count(tensor)) {
    return InvalidHandleError("tensor handle is not live (freed, or freed by nrt_close)");
  }
  return Status::Ok();
}

Status Runtime::CheckSetLocked(const TensorSet* set) const {
  if (set == nullptr) return InvalidError("tensor set is NULL");
  if (!tensor_sets_.count(const_cast<TensorSet*>(set))) {
    return InvalidHandleError("tensor set handle is not live (destroyed, or freed by nrt_close)");
  }
  return Status::Ok();
}

Tensor* Runtime::Adopt(std::unique_ptr<Tensor> tensor) {
  Tensor* raw = tensor.get();
  std::unique_lock objects(objects_mutex_);
  tensors_.emplace(raw, std::shared_ptr<Tensor>(std::move(tensor)));
  return raw;
}

StatusOr<Tensor*> Runtime::AllocateTensor(Placement placement, int vnc, uint64_t size,
                                          const std::string& name) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_ptr<TensorStorage> storage;
  switch (placement) {
    case Placement::kDevice: {
      if (!core_map_->IsVisible(vnc)) {
        return InvalidError("logical core " + std::to_string(vnc) +
                            " is not one of this process's " +
                            std::to_string(core_map_->visible_count()) + " visible cores");
      }
      if (size == 0) return InvalidError("a device tensor cannot be 0 bytes");
      CoreLocation where = core_map_->Locate(vnc);
      driver::AllocationRequest request;
      request.chip = where.chip;
      request.hbm = where.hbm;
      request.size_bytes = size;
      request.alignment_bytes = kDeviceAlignmentBytes;
      request.owner_core = where.first_physical;
      request.category = driver::MemoryCategory::kTensor;
      StatusOr<std::unique_ptr<DeviceStorage>> device_storage =
          DeviceStorage::Create(device_.get(), request, vnc, &vnc_bytes_used_[vnc]);
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
  TraceTensor(/*allocate=*/true, *tensor);
  return tensor;
}

StatusOr<Tensor*> Runtime::AllocateEmptyTensor(const std::string& name) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return Adopt(std::make_unique<Tensor>(name, nullptr, 0, 0));
}

StatusOr<Tensor*> Runtime::AllocateSlice(const Tensor* source, uint64_t offset, uint64_t size,
                                         const std::string& name) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::unique_ptr<Tensor> slice;
  {
    std::shared_lock objects(objects_mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(source));
    TRNSIM_ASSIGN_OR_RETURN(slice, source->Slice(offset, size, name));
  }
  return Adopt(std::move(slice));
}

Status Runtime::FreeTensor(Tensor* tensor) {
  WaitUntilTensorUnused(tensor);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_ptr<Tensor> reference;
  {
    std::unique_lock objects(objects_mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
    for (TensorSet* set : tensor_sets_) set->Forget(tensor);
    auto entry = tensors_.find(tensor);
    reference = std::move(entry->second);
    tensors_.erase(entry);
    output_completions_.Forget(tensor);
    TraceTensor(/*allocate=*/false, *tensor);
  }
  reference.reset();  // the memory goes now unless a running execution pins the tensor
  return Status::Ok();
}

Status Runtime::WaitOutputCompletion(const Tensor* tensor, int64_t timeout_us, uint64_t expected) {
  // Shared, and only until the wait is registered: FreeTensor (unique) cannot slip between the
  // check and the registration, and once registered its Forget wakes the wait.
  std::shared_lock lock(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return output_completions_.Wait(tensor, timeout_us, expected, [&] { lock.unlock(); });
}

Status Runtime::ResetOutputCompletion(Tensor* tensor) {
  std::shared_lock lock(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  output_completions_.Reset(tensor);
  return Status::Ok();
}

Status Runtime::ReadTensor(const Tensor* tensor, void* dst, uint64_t offset, uint64_t size) {
  WaitUntilTensorUnused(tensor);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->Read(offset, dst, size);
}

Status Runtime::WriteTensor(Tensor* tensor, const void* src, uint64_t offset, uint64_t size) {
  WaitUntilTensorUnused(tensor);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->Write(offset, src, size);
}

Status Runtime::CopyTensor(const Tensor* src, uint64_t src_offset, Tensor* dst, uint64_t dst_offset,
                           uint64_t size) {
  WaitUntilTensorUnused(src);
  WaitUntilTensorUnused(dst);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(src));
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(dst));
  return Tensor::Copy(*src, src_offset, *dst, dst_offset, size);
}

Status Runtime::MemsetTensor(Tensor* tensor, uint64_t offset, uint8_t value, uint64_t size) {
  WaitUntilTensorUnused(tensor);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->Fill(offset, value, size);
}

Status Runtime::AttachBuffer(Tensor* tensor, void* buffer, uint64_t size) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::unique_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  if (buffer == nullptr) return InvalidError("buffer is NULL");
  // The storage is replaced: wait until no running execution uses the tensor (they unmark
  // without this lock, and none can bind it while it is held).
  executing_.WaitUntilUnused(tensor);
  tensor->AttachBuffer(buffer, size);
  return Status::Ok();
}

Status Runtime::ReadTensorBatch(
    const std::vector<std::pair<const Tensor*, std::vector<TensorBatchOp>>>& batches) {
  for (const auto& batch : batches) WaitUntilTensorUnused(batch.first);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  for (const auto& [tensor, ops] : batches) {
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
    for (const TensorBatchOp& op : ops) {
      // A zero-byte read validates the range without moving data.
      TRNSIM_RETURN_IF_ERROR(tensor->CheckRange(op.offset, op.size, "batch read"));
      if (op.size > 0 && op.buffer == nullptr) return InvalidError("batch buffer is NULL");
    }
  }
  for (const auto& [tensor, ops] : batches) {
    for (const TensorBatchOp& op : ops) {
      TRNSIM_RETURN_IF_ERROR(tensor->Read(op.offset, op.buffer, op.size));
    }
  }
  return Status::Ok();
}

Status Runtime::WriteTensorBatch(
    const std::vector<std::pair<Tensor*, std::vector<TensorBatchOp>>>& batches) {
  for (const auto& batch : batches) WaitUntilTensorUnused(batch.first);
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  for (const auto& [tensor, ops] : batches) {
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
    for (const TensorBatchOp& op : ops) {
      TRNSIM_RETURN_IF_ERROR(tensor->CheckRange(op.offset, op.size, "batch write"));
      if (op.size > 0 && op.buffer == nullptr) return InvalidError("batch buffer is NULL");
    }
  }
  for (const auto& [tensor, ops] : batches) {
    for (const TensorBatchOp& op : ops) {
      TRNSIM_RETURN_IF_ERROR(tensor->Write(op.offset, op.buffer, op.size));
    }
  }
  return Status::Ok();
}

StatusOr<uint64_t> Runtime::TensorSize(const Tensor* tensor) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->size();
}

StatusOr<void*> Runtime::TensorHostAddress(const Tensor* tensor) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->HostAddress();
}

StatusOr<DeviceAllocationInfo> Runtime::TensorDeviceAllocation(const Tensor* tensor) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  return tensor->DeviceAllocation();
}

StatusOr<VncMemoryStats> Runtime::GetVncMemoryStats(int vnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  if (!core_map_->IsVisible(vnc)) {
    return InvalidError("logical core " + std::to_string(vnc) + " is not one of this process's " +
                        std::to_string(core_map_->visible_count()) + " visible cores");
  }
  VncMemoryStats stats;
  stats.bytes_used = vnc_bytes_used_[vnc].load();
  stats.bytes_limit = config_.instance->chip->hbm_bytes_per_stack;
  return stats;
}

StatusOr<TensorSet*> Runtime::AllocateTensorSet() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  auto* set = new TensorSet();
  std::unique_lock objects(objects_mutex_);
  tensor_sets_.insert(set);
  return set;
}

Status Runtime::DestroyTensorSet(TensorSet* set) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::unique_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(set));
  tensor_sets_.erase(set);
  delete set;
  return Status::Ok();
}

Status Runtime::AddToTensorSet(TensorSet* set, const std::string& name, Tensor* tensor) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::unique_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(set));
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  set->Add(name, tensor);
  return Status::Ok();
}

StatusOr<Tensor*> Runtime::GetFromTensorSet(TensorSet* set, const std::string& name) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(set));
  Tensor* tensor = set->Find(name);
  if (tensor == nullptr) {
    return FailureError("no tensor named '" + name + "' in the tensor set");
  }
  return tensor;
}

}  // namespace trnsim::runtime
