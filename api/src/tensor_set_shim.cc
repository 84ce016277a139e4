// Tensor sets: name -> tensor maps that bind a model's inputs and outputs.
#include "api/src/shim.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::api::Unwrap;
using trnsim::api::UnwrapSet;
using trnsim::api::Wrap;

extern "C" {

NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t** result) {
  if (result == nullptr) return NullArgument(__func__, "result");
  auto set = Rt().tensors().AllocateSet();
  if (!set.ok()) return Report(__func__, set.status());
  *result = *set;
  return NRT_SUCCESS;
}

void nrt_destroy_tensor_set(nrt_tensor_set_t** tensor_set) {
  if (tensor_set == nullptr || *tensor_set == nullptr) return;
  Report(__func__, Rt().tensors().DestroySet(UnwrapSet(*tensor_set)));
  *tensor_set = nullptr;
}

NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t* tensor_set, const char* tensor_name,
                                        nrt_tensor_t* tensor) {
  if (tensor_name == nullptr) return NullArgument(__func__, "tensor_name");
  return Report(__func__,
                Rt().tensors().AddToSet(UnwrapSet(tensor_set), tensor_name, Unwrap(tensor)));
}

NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t* tensor_set, const char* tensor_name,
                                          nrt_tensor_t** tensor) {
  if (tensor_name == nullptr) return NullArgument(__func__, "tensor_name");
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  auto found = Rt().tensors().GetFromSet(UnwrapSet(tensor_set), tensor_name);
  if (!found.ok()) return Report(__func__, found.status());  // *tensor untouched, as AWS
  *tensor = Wrap(*found);
  return NRT_SUCCESS;
}

}  // extern "C"
