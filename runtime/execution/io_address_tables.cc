#include "runtime/execution/io_address_tables.h"

#include <unordered_map>

namespace trnsim::runtime::execution {
namespace {

// The bound tensor of an input/output variable, or nullptr for any other variable.
const Tensor* BoundTensor(const std::unordered_map<int64_t, const neff::Variable*>& by_id,
                          const IoBinding& binding, int64_t var_id) {
  auto it = by_id.find(var_id);
  if (it == by_id.end()) return nullptr;
  const neff::Variable& v = *it->second;
  if (v.type != neff::VariableType::kInput && v.type != neff::VariableType::kOutput) {
    return nullptr;
  }
  return binding.Find(v.name);
}

uint64_t AddressOf(const Tensor& tensor) {
  StatusOr<DeviceAllocationInfo> info = tensor.DeviceAllocation();
  return info.ok() ? info->physical_address : 0;
}

Status WriteWord(driver::Device* device, const DeviceStorage* storage, uint64_t offset,
                 uint64_t address) {
  uint8_t word[8];
  for (int b = 0; b < 8; ++b) word[b] = static_cast<uint8_t>(address >> (8 * b));
  return device->Write(storage->device_allocation()->handle, offset, word, sizeof(word));
}

}  // namespace

Status WriteIoAddresses(const neff::Subgraph& subgraph, const model::SubgraphMemory& memory,
                        const IoBinding& binding, driver::Device* device) {
  std::unordered_map<int64_t, const neff::Variable*> by_id;
  for (const neff::Variable& v : subgraph.variables) by_id[v.var_id] = &v;
  for (const neff::Variable& v : subgraph.variables) {
    if (v.type != neff::VariableType::kPointer && v.type != neff::VariableType::kDgeTable) {
      continue;
    }
    const DeviceStorage* storage = memory.Storage(v.var_id);
    if (storage == nullptr) continue;  // 0 bytes: nothing to hold an address
    if (v.type == neff::VariableType::kPointer) {
      if (!v.referenced_var_id) continue;
      const Tensor* tensor = BoundTensor(by_id, binding, *v.referenced_var_id);
      if (tensor != nullptr && v.size >= 8) {
        TRNSIM_RETURN_IF_ERROR(WriteWord(device, storage, 0, AddressOf(*tensor)));
      }
      continue;
    }
    for (size_t i = 0; i < v.list.size() && 8 * (i + 1) <= v.size; ++i) {
      const Tensor* tensor = BoundTensor(by_id, binding, v.list[i]);
      if (tensor != nullptr) {
        TRNSIM_RETURN_IF_ERROR(WriteWord(device, storage, 8 * i, AddressOf(*tensor)));
      }
    }
  }
  return Status::Ok();
}

}  // namespace trnsim::runtime::execution
