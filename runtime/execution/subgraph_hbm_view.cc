#include "runtime/execution/subgraph_hbm_view.h"

#include <string>

namespace trnsim::runtime::execution {
namespace {

std::string VarText(const neff::Variable& v) {
  return std::string(neff::VariableTypeName(v.type)) + " variable '" + v.name + "' (var_id " +
         std::to_string(v.var_id) + ")";
}

// The host bytes of one variable, or an error naming it.
StatusOr<std::span<uint8_t>> Resolve(const neff::Variable& v, const model::SubgraphMemory& memory,
                                     const model::SharedScratchpad& scratchpad,
                                     const IoBinding& binding, driver::Device* device) {
  if (v.size == 0) return std::span<uint8_t>();
  uint8_t* bytes = nullptr;
  switch (v.type) {
    case neff::VariableType::kInput:
    case neff::VariableType::kOutput: {
      Tensor* tensor = binding.Find(v.name);
      if (tensor == nullptr) {
        return InvalidError(VarText(v) + " is not a declared tensor of the model");
      }
      if (tensor->size() < v.size) {
        return InvalidError(VarText(v) + " needs " + std::to_string(v.size) +
                            " bytes, the bound tensor has " + std::to_string(tensor->size()));
      }
      bytes = static_cast<uint8_t*>(tensor->HostAddress());
      break;
    }
    case neff::VariableType::kVirtual: {
      DeviceStorage* block = scratchpad.storage();
      if (block == nullptr || v.backing_variable_off + v.size > scratchpad.size_bytes()) {
        return FailureError(VarText(v) + " lies outside the shared scratchpad (" +
                            std::to_string(scratchpad.size_bytes()) + " bytes)");
      }
      bytes = static_cast<uint8_t*>(block->HostAddress(v.backing_variable_off));
      break;
    }
    case neff::VariableType::kStateBuffer:
      return InvalidError(VarText(v) + " lives in SBUF, not HBM");
    default: {
      const DeviceStorage* storage = memory.Storage(v.var_id);
      if (storage == nullptr) return FailureError(VarText(v) + " has no HBM allocation");
      bytes = static_cast<uint8_t*>(device->HostAddress(storage->device_allocation()->handle, 0));
      break;
    }
  }
  if (bytes == nullptr) {
    return FailureError(VarText(v) +
                        " is not host-addressable: execution needs the in-process sim back end");
  }
  return std::span<uint8_t>(bytes, v.size);
}

}  // namespace

StatusOr<std::unique_ptr<SubgraphHbmView>> SubgraphHbmView::Create(
    const neff::Subgraph& subgraph, const model::SubgraphMemory& memory,
    const model::SharedScratchpad& scratchpad, const IoBinding& binding, driver::Device* device) {
  std::unique_ptr<SubgraphHbmView> view(new SubgraphHbmView(subgraph));
  for (const neff::Variable& v : subgraph.variables) {
    if (v.type == neff::VariableType::kStateBuffer) continue;
    TRNSIM_ASSIGN_OR_RETURN(std::span<uint8_t> bytes,
                            Resolve(v, memory, scratchpad, binding, device));
    view->vars_[static_cast<uint32_t>(v.var_id)] = bytes;
  }
  return view;
}

StatusOr<std::span<uint8_t>> SubgraphHbmView::Var(uint32_t var_id) {
  auto it = vars_.find(var_id);
  if (it != vars_.end()) return it->second;
  for (const neff::Variable& v : subgraph_.variables) {
    if (v.var_id == var_id) return InvalidError(VarText(v) + " lives in SBUF, not HBM");
  }
  return InvalidError("subgraph " + subgraph_.name + " has no variable with var_id " +
                      std::to_string(var_id));
}

}  // namespace trnsim::runtime::execution
