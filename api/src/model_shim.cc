// Models: load, unload and the model queries, over runtime::Runtime's models
// (runtime/model/). nrt_model_t* is the address of a runtime::model::Model.
#include <cstdlib>
#include <cstring>
#include <span>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::runtime::model::Model;

namespace {

const Model* UnwrapModel(const nrt_model_t* model) {
  return reinterpret_cast<const Model*>(model);
}

// Shared by nrt_load and nrt_load_collectives. `vnc` -1 lets the runtime pick a core.
NRT_STATUS Load(const char* function, const void* neff_bytes, size_t size, int32_t vnc,
                int32_t vnc_count, nrt_model_t** model) {
  if (neff_bytes == nullptr) return NullArgument(function, "neff_bytes");
  if (model == nullptr) return NullArgument(function, "model");
  if (size == 0) return Report(function, trnsim::InvalidError("the NEFF is 0 bytes"));
  trnsim::Status ready = vnc == -1 ? Rt().CheckInitialized() : CheckInitializedVnc(vnc);
  if (!ready.ok()) return Report(function, ready);
  auto loaded = Rt().models().Load(
      std::span<const uint8_t>(static_cast<const uint8_t*>(neff_bytes), size), vnc, vnc_count);
  if (!loaded.ok()) return Report(function, loaded.status());
  *model = reinterpret_cast<nrt_model_t*>(*loaded);
  return NRT_SUCCESS;
}

// Shared by the count queries: one uint32_t out of the model's info.
template <typename Field>
NRT_STATUS QueryCount(const char* function, const nrt_model_t* model, uint32_t* out,
                      const char* out_name, Field field) {
  if (model == nullptr) return NullArgument(function, "model");
  if (out == nullptr) return NullArgument(function, out_name);
  auto info = Rt().models().Info(UnwrapModel(model));
  if (!info.ok()) return Report(function, info.status());
  *out = field(*info);
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

NRT_STATUS nrt_load(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                    nrt_model_t** model) {
  return Load(__func__, neff_bytes, size, vnc, vnc_count, model);
}

// A collective NEFF: the model is rank ctx_device_id of ctx_device_count in the communicator
// NEURON_RT_ROOT_COMM_ID (docs/collectives.md).
NRT_STATUS nrt_load_collectives(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                                uint32_t ctx_device_id, uint32_t ctx_device_count,
                                nrt_model_t** model) {
  if (neff_bytes == nullptr) return NullArgument(__func__, "neff_bytes");
  if (model == nullptr) return NullArgument(__func__, "model");
  if (ctx_device_count == 0 || ctx_device_id >= ctx_device_count) {
    return Report(__func__, trnsim::InvalidError("rank " + std::to_string(ctx_device_id) +
                                                 " is not within a world of " +
                                                 std::to_string(ctx_device_count)));
  }
  if (size == 0) return Report(__func__, trnsim::InvalidError("the NEFF is 0 bytes"));
  trnsim::Status ready = vnc == -1 ? Rt().CheckInitialized() : CheckInitializedVnc(vnc);
  if (!ready.ok()) return Report(__func__, ready);
  auto loaded = Rt().models().LoadCollective(
      std::span<const uint8_t>(static_cast<const uint8_t*>(neff_bytes), size), vnc, vnc_count,
      ctx_device_id, ctx_device_count);
  if (!loaded.ok()) return Report(__func__, loaded.status());
  *model = reinterpret_cast<nrt_model_t*>(*loaded);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_unload(nrt_model_t* model) {
  if (model == nullptr) return NullArgument(__func__, "model");
  return Report(__func__, Rt().models().Unload(reinterpret_cast<Model*>(model)));
}

NRT_STATUS nrt_get_model_nc_count(const nrt_model_t* model, uint32_t* vnc_count) {
  return QueryCount(__func__, model, vnc_count, "vnc_count",
                    [](const trnsim::runtime::ModelInfo& i) { return i.vnc_count; });
}

NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t* model, uint32_t* vnc_count) {
  return QueryCount(__func__, model, vnc_count, "vnc_count",
                    [](const trnsim::runtime::ModelInfo& i) { return i.vnc_count; });
}

NRT_STATUS nrt_get_model_instance_count(nrt_model_t* model, uint32_t* instance_count) {
  return QueryCount(__func__, model, instance_count, "instance_count",
                    [](const trnsim::runtime::ModelInfo& i) { return i.instance_count; });
}

NRT_STATUS nrt_get_model_info(const nrt_model_t* model, nrt_model_info_t* info, size_t info_size_in,
                              size_t* info_size_out) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (info == nullptr) return NullArgument(__func__, "info");
  if (info_size_out == nullptr) return NullArgument(__func__, "info_size_out");
  auto got = Rt().models().Info(UnwrapModel(model));
  if (!got.ok()) return Report(__func__, got.status());
  nrt_model_info_t out = {};
  out.vnc = static_cast<uint32_t>(got->vnc);
  // Version-tolerant: an older (smaller) or newer (larger) caller struct gets the common part.
  size_t n = info_size_in < sizeof(out) ? info_size_in : sizeof(out);
  std::memcpy(info, &out, n);
  *info_size_out = n;
  return NRT_SUCCESS;
}

// One malloc'd block: the count, then one nrt_tensor_info_t per tensor (inputs first), each
// `shape` a separate malloc'd array of ndim uint32_t (NULL when ndim is 0).
NRT_STATUS nrt_get_model_tensor_info(nrt_model_t* model, nrt_tensor_info_array_t** tensor_info) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (tensor_info == nullptr) return NullArgument(__func__, "tensor_info");
  auto tensors = Rt().models().Tensors(UnwrapModel(model));
  if (!tensors.ok()) return Report(__func__, tensors.status());
  size_t count = tensors->size();
  auto* block = static_cast<nrt_tensor_info_array_t*>(
      std::calloc(1, sizeof(nrt_tensor_info_array_t) + count * sizeof(nrt_tensor_info_t)));
  if (block == nullptr) {
    return Report(__func__, trnsim::ResourceError("cannot allocate tensor info for " +
                                                  std::to_string(count) + " tensors"));
  }
  block->tensor_count = count;
  for (size_t i = 0; i < count; ++i) {
    const trnsim::neff::TensorDecl& decl = (*tensors)[i];
    nrt_tensor_info_t& entry = block->tensor_array[i];
    trnsim::api::CopyString(entry.name, decl.name);
    entry.usage = static_cast<nrt_tensor_usage_t>(decl.usage);
    entry.size = decl.size;
    entry.dtype = static_cast<nrt_dtype_t>(decl.dtype);  // hardware codes (isa::Dtype)
    entry.ndim = static_cast<uint32_t>(decl.shape.size());
    if (entry.ndim > 0) {
      entry.shape = static_cast<uint32_t*>(std::malloc(entry.ndim * sizeof(uint32_t)));
      if (entry.shape == nullptr) {
        nrt_free_model_tensor_info(block);  // frees the shapes made so far (the rest are NULL)
        return Report(__func__, trnsim::ResourceError("cannot allocate a tensor shape"));
      }
      std::memcpy(entry.shape, decl.shape.data(), entry.ndim * sizeof(uint32_t));
    }
  }
  *tensor_info = block;
  return NRT_SUCCESS;
}

// Passing NULL is the documented no-op (nrt_experimental.h). Callable at any time.
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t* tensor_info) {
  if (tensor_info == nullptr) return NRT_SUCCESS;
  for (uint64_t i = 0; i < tensor_info->tensor_count; ++i) {
    std::free(tensor_info->tensor_array[i].shape);
  }
  std::free(tensor_info);
  return NRT_SUCCESS;
}

}  // extern "C"
