// Models: load, unload and the model queries. NEFF loading arrives with the NEFF loader; until
// then these validate their arguments and the lifecycle, then report NotImplemented
// (docs/api-status.md).
#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

namespace {

constexpr char kLoader[] = "loading NEFFs (arrives with the NEFF loader)";
constexpr char kNoModels[] =
    "model queries; no model can be loaded yet (arrive with the NEFF loader)";

// Shared by nrt_load and nrt_load_collectives. `vnc` -1 lets the runtime pick a core.
NRT_STATUS Load(const char* function, const void* neff_bytes, size_t size, int32_t vnc,
                nrt_model_t** model) {
  if (neff_bytes == nullptr) return NullArgument(function, "neff_bytes");
  if (model == nullptr) return NullArgument(function, "model");
  if (size == 0) return Report(function, trnsim::InvalidError("the NEFF is 0 bytes"));
  trnsim::Status ready = vnc == -1 ? Rt().CheckInitialized() : CheckInitializedVnc(vnc);
  if (!ready.ok()) return Report(function, ready);
  return NotImplemented(function, kLoader);
}

// Shared by the queries that take a model and one out-pointer.
NRT_STATUS QueryModel(const char* function, const void* model, const void* out,
                      const char* out_name) {
  if (model == nullptr) return NullArgument(function, "model");
  if (out == nullptr) return NullArgument(function, out_name);
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(function, ready);
  return NotImplemented(function, kNoModels);
}

}  // namespace

extern "C" {

NRT_STATUS nrt_load(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                    nrt_model_t** model) {
  return Load(__func__, neff_bytes, size, vnc, model);
}

NRT_STATUS nrt_load_collectives(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                                uint32_t ctx_device_id, uint32_t ctx_device_count,
                                nrt_model_t** model) {
  if (ctx_device_count == 0 || ctx_device_id >= ctx_device_count) {
    return Report(__func__, trnsim::InvalidError("rank " + std::to_string(ctx_device_id) +
                                                 " is not within a world of " +
                                                 std::to_string(ctx_device_count)));
  }
  return Load(__func__, neff_bytes, size, vnc, model);
}

NRT_STATUS nrt_unload(nrt_model_t* model) {
  if (model == nullptr) return NullArgument(__func__, "model");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  return NotImplemented(__func__, kNoModels);
}

NRT_STATUS nrt_get_model_nc_count(const nrt_model_t* model, uint32_t* vnc_count) {
  return QueryModel(__func__, model, vnc_count, "vnc_count");
}

NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t* model, uint32_t* vnc_count) {
  return QueryModel(__func__, model, vnc_count, "vnc_count");
}

NRT_STATUS nrt_get_model_instance_count(nrt_model_t* model, uint32_t* instance_count) {
  return QueryModel(__func__, model, instance_count, "instance_count");
}

NRT_STATUS nrt_get_model_info(const nrt_model_t* model, nrt_model_info_t* info, size_t info_size_in,
                              size_t* info_size_out) {
  if (info_size_out == nullptr) return NullArgument(__func__, "info_size_out");
  return QueryModel(__func__, model, info, "info");
}

NRT_STATUS nrt_get_model_tensor_info(nrt_model_t* model, nrt_tensor_info_array_t** tensor_info) {
  return QueryModel(__func__, model, tensor_info, "tensor_info");
}

// NULL is the documented no-op. Any other pointer cannot have come from
// nrt_get_model_tensor_info, which cannot succeed yet, so it is refused rather than freed.
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t* tensor_info) {
  if (tensor_info == nullptr) return NRT_SUCCESS;
  return NotImplemented(__func__, kNoModels);
}

}  // extern "C"
