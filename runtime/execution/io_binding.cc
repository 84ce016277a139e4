#include "runtime/execution/io_binding.h"

namespace trnsim::runtime::execution {

StatusOr<IoBinding> IoBinding::Bind(const std::vector<neff::TensorDecl>& declared,
                                    const TensorSet& inputs, const TensorSet& outputs) {
  IoBinding binding;
  for (const neff::TensorDecl& decl : declared) {
    bool is_input = decl.usage == neff::TensorUsage::kInput;
    const char* kind = is_input ? "input" : "output";
    Tensor* tensor = (is_input ? inputs : outputs).Find(decl.name);
    if (tensor == nullptr) {
      return InvalidError(std::string(kind) + " tensor '" + decl.name + "' (" +
                          std::to_string(decl.size) + " bytes) is missing from the " + kind +
                          " tensor set");
    }
    if (!tensor->has_storage()) {
      return InvalidError(std::string(kind) + " tensor '" + decl.name +
                          "' is bound to an empty tensor (no buffer attached)");
    }
    if (tensor->size() != decl.size) {
      return InvalidError(std::string(kind) + " tensor '" + decl.name + "': expected " +
                          std::to_string(decl.size) + " bytes, the bound tensor has " +
                          std::to_string(tensor->size()));
    }
    binding.tensors_[decl.name] = tensor;
  }
  return binding;
}

}  // namespace trnsim::runtime::execution
