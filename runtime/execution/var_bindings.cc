#include "runtime/execution/var_bindings.h"

#include <string>

namespace trnsim::runtime::execution {
namespace {

std::string VarText(const neff::Variable& v) {
  return std::string(neff::VariableTypeName(v.type)) + " variable '" + v.name + "' (var_id " +
         std::to_string(v.var_id) + ")";
}

// The binding of one input or output variable to its caller tensor.
Status BindTensor(const neff::Variable& v, const IoBinding& binding, HostStaging& staging,
                  driver::VarBinding& out) {
  Tensor* tensor = binding.Find(v.name);
  if (tensor == nullptr) {
    return InvalidError(VarText(v) + " is not a declared tensor of the model");
  }
  if (tensor->size() < v.size) {
    return InvalidError(VarText(v) + " needs " + std::to_string(v.size) +
                        " bytes, the bound tensor has " + std::to_string(tensor->size()));
  }
  if (const DeviceStorage* storage = tensor->device_storage()) {
    out.memory = storage->device_allocation()->handle;
    out.offset = tensor->storage_offset();
    return Status::Ok();
  }
  StatusOr<driver::MemoryHandle> staged =
      staging.Stage(*tensor, v.type == neff::VariableType::kOutput);
  if (!staged.ok()) {
    return Status(staged.status().code(), VarText(v) + ": " + staged.status().message());
  }
  out.memory = *staged;
  out.offset = 0;
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<driver::VarBinding>> BindVariables(const neff::Subgraph& subgraph,
                                                        const model::SubgraphMemory& memory,
                                                        const model::SharedScratchpad& scratchpad,
                                                        const IoBinding& binding,
                                                        HostStaging& staging) {
  std::vector<driver::VarBinding> vars;
  for (const neff::Variable& v : subgraph.variables) {
    if (v.type == neff::VariableType::kStateBuffer) continue;
    driver::VarBinding out;
    out.var_id = static_cast<uint32_t>(v.var_id);
    out.size = v.size;
    out.output = v.type == neff::VariableType::kOutput;
    if (v.size == 0) {
      vars.push_back(out);  // no memory: the variable is empty
      continue;
    }
    switch (v.type) {
      case neff::VariableType::kInput:
      case neff::VariableType::kOutput:
        TRNSIM_RETURN_IF_ERROR(BindTensor(v, binding, staging, out));
        break;
      case neff::VariableType::kVirtual: {
        DeviceStorage* block = scratchpad.storage();
        if (block == nullptr || v.backing_variable_off + v.size > scratchpad.size_bytes()) {
          return FailureError(VarText(v) + " lies outside the shared scratchpad (" +
                              std::to_string(scratchpad.size_bytes()) + " bytes)");
        }
        out.memory = block->device_allocation()->handle;
        out.offset = v.backing_variable_off;
        break;
      }
      default: {
        const DeviceStorage* storage = memory.Storage(v.var_id);
        if (storage == nullptr) return FailureError(VarText(v) + " has no HBM allocation");
        out.memory = storage->device_allocation()->handle;
        out.offset = 0;
        break;
      }
    }
    vars.push_back(out);
  }
  return vars;
}

}  // namespace trnsim::runtime::execution
