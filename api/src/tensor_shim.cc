// Tensors: allocation, I/O, copies, slices, attached buffers, batches, device info.
#include <cstring>
#include <vector>

#include "api/src/shim.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::api::Unwrap;
using trnsim::api::Wrap;
using trnsim::runtime::Placement;
using trnsim::runtime::Tensor;
using trnsim::runtime::TensorBatchOp;

namespace {

NRT_STATUS ReturnTensor(const char* function, trnsim::StatusOr<Tensor*> made,
                        nrt_tensor_t** out) {
  if (!made.ok()) return Report(function, made.status());
  *out = Wrap(*made);
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t tensor_placement, int vnc, size_t size,
                               const char* name, nrt_tensor_t** tensor) {
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  return ReturnTensor(__func__,
                      Rt().tensors().Allocate(static_cast<Placement>(tensor_placement), vnc, size,
                                              name ? name : ""),
                      tensor);
}

void nrt_tensor_free(nrt_tensor_t** tensor) {
  if (tensor == nullptr || *tensor == nullptr) return;  // freeing nothing is harmless
  Report(__func__, Rt().tensors().Free(Unwrap(*tensor)));
  *tensor = nullptr;
}

NRT_STATUS nrt_tensor_read(const nrt_tensor_t* tensor, void* buf, size_t offset, size_t size) {
  if (buf == nullptr) return NullArgument(__func__, "buf");
  return Report(__func__, Rt().tensors().Read(Unwrap(tensor), buf, offset, size));
}

NRT_STATUS nrt_tensor_write(nrt_tensor_t* tensor, const void* buf, size_t offset, size_t size) {
  if (buf == nullptr) return NullArgument(__func__, "buf");
  return Report(__func__, Rt().tensors().Write(Unwrap(tensor), buf, offset, size));
}

NRT_STATUS nrt_tensor_copy(const nrt_tensor_t* src, size_t src_offset, nrt_tensor_t* dst,
                           size_t dst_offset, size_t size) {
  return Report(__func__,
                Rt().tensors().Copy(Unwrap(src), src_offset, Unwrap(dst), dst_offset, size));
}

size_t nrt_tensor_get_size(const nrt_tensor_t* tensor) {
  auto size = Rt().tensors().Size(Unwrap(tensor));
  if (!size.ok()) {
    Report(__func__, size.status());
    return 0;
  }
  return *size;
}

NRT_STATUS nrt_tensor_memset(nrt_tensor_t* tensor, uint64_t offset, int value, size_t size) {
  // Like memset(3), only the low byte of `value` is used.
  return Report(__func__,
                Rt().tensors().Memset(Unwrap(tensor), offset, static_cast<uint8_t>(value), size));
}

NRT_STATUS nrt_tensor_allocate_empty(const char* name, nrt_tensor_t** tensor) {
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  return ReturnTensor(__func__, Rt().tensors().AllocateEmpty(name ? name : ""), tensor);
}

NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t* tensor, void* buffer, size_t size) {
  if (buffer == nullptr) return NullArgument(__func__, "buffer");
  return Report(__func__, Rt().tensors().AttachBuffer(Unwrap(tensor), buffer, size));
}

NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t* tensor_source, size_t offset,
                                     size_t size, const char* name,
                                     nrt_tensor_t** tensor_slice) {
  if (tensor_slice == nullptr) return NullArgument(__func__, "tensor_slice");
  return ReturnTensor(
      __func__, Rt().tensors().AllocateSlice(Unwrap(tensor_source), offset, size, name ? name : ""),
      tensor_slice);
}

void* nrt_tensor_get_va(const nrt_tensor_t* tensor) {
  auto va = Rt().tensors().HostAddress(Unwrap(tensor));
  if (!va.ok()) {
    Report(__func__, va.status());
    return nullptr;
  }
  return *va;
}

NRT_STATUS nrt_tensor_get_device_allocation_info(const nrt_tensor_t* tensor,
                                                 nrt_tensor_device_allocation_info_t* alloc_info) {
  if (alloc_info == nullptr) return NullArgument(__func__, "alloc_info");
  auto info = Rt().tensors().DeviceAllocation(Unwrap(tensor));
  if (!info.ok()) return Report(__func__, info.status());
  alloc_info->physical_address = info->physical_address;
  alloc_info->size = info->size_bytes;
  alloc_info->hbm_index = info->hbm_index;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t* batches, uint64_t num_batches,
                                 bool unsafe) {
  if (batches == nullptr && num_batches > 0) return NullArgument(__func__, "batches");
  // `unsafe` skips waiting for in-flight executions; trnsim's executions are synchronous.
  std::vector<std::pair<const Tensor*, std::vector<TensorBatchOp>>> work;
  for (uint64_t b = 0; b < num_batches; ++b) {
    const nrt_tensor_batch_t& batch = batches[b];
    if (batch.ops == nullptr && batch.num_ops > 0) return NullArgument(__func__, "batch ops");
    std::vector<TensorBatchOp> ops;
    for (uint32_t i = 0; i < batch.num_ops; ++i) {
      ops.push_back({batch.ops[i].offset, batch.ops[i].size, batch.ops[i].buffer});
    }
    work.emplace_back(Unwrap(batch.tensor), std::move(ops));
  }
  return Report(__func__, Rt().tensors().ReadBatch(work));
}

NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t* batches, uint64_t num_batches,
                                  bool unsafe) {
  if (batches == nullptr && num_batches > 0) return NullArgument(__func__, "batches");
  std::vector<std::pair<Tensor*, std::vector<TensorBatchOp>>> work;
  for (uint64_t b = 0; b < num_batches; ++b) {
    const nrt_tensor_batch_t& batch = batches[b];
    if (batch.ops == nullptr && batch.num_ops > 0) return NullArgument(__func__, "batch ops");
    std::vector<TensorBatchOp> ops;
    for (uint32_t i = 0; i < batch.num_ops; ++i) {
      ops.push_back({batch.ops[i].offset, batch.ops[i].size, batch.ops[i].buffer});
    }
    work.emplace_back(const_cast<Tensor*>(Unwrap(batch.tensor)), std::move(ops));
  }
  return Report(__func__, Rt().tensors().WriteBatch(work));
}

NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t* stats,
                                    size_t stats_size_in, size_t* stats_size_out) {
  if (stats == nullptr) return NullArgument(__func__, "stats");
  if (stats_size_out == nullptr) return NullArgument(__func__, "stats_size_out");
  auto got = Rt().tensors().MemoryStats(static_cast<int>(vnc));
  if (!got.ok()) return Report(__func__, got.status());
  nrt_vnc_memory_stats_t out = {};
  out.bytes_used = got->bytes_used;
  out.bytes_limit = got->bytes_limit;
  size_t n = stats_size_in < sizeof(out) ? stats_size_in : sizeof(out);
  std::memcpy(stats, &out, n);
  *stats_size_out = n;
  return NRT_SUCCESS;
}

}  // extern "C"
