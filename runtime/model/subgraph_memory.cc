#include "runtime/model/subgraph_memory.h"

#include <string>

#include "runtime/neff/neff_io.h"

namespace trnsim::runtime::model {
namespace {

using neff::Variable;
using neff::VariableType;

constexpr uint64_t kMinAlignmentBytes = 64;  // the driver's granule

// The category of a variable with its own allocation, or nullopt.
std::optional<driver::MemoryCategory> OwnAllocation(VariableType type) {
  switch (type) {
    case VariableType::kFile:
      return driver::MemoryCategory::kConstant;
    case VariableType::kTmpBuf:
      return driver::MemoryCategory::kScratchpad;
    case VariableType::kPointer:
    case VariableType::kDgeTable:
      return driver::MemoryCategory::kMisc;
    default:
      return std::nullopt;
  }
}

void PutLittleEndian64(uint64_t value, uint8_t* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace

StatusOr<std::unique_ptr<SubgraphMemory>> SubgraphMemory::Place(const neff::Subgraph& subgraph,
                                                                const SubgraphTarget& target) {
  std::unique_ptr<SubgraphMemory> memory(new SubgraphMemory(subgraph));
  TRNSIM_RETURN_IF_ERROR(memory->Allocate(target));  // on failure `memory` frees it all
  TRNSIM_RETURN_IF_ERROR(memory->WriteConstants());
  return memory;
}

Status SubgraphMemory::Allocate(const SubgraphTarget& target) {
  slots_.reserve(subgraph_.variables.size());
  for (const Variable& var : subgraph_.variables) {
    Slot slot{&var, nullptr};
    std::optional<driver::MemoryCategory> category = OwnAllocation(var.type);
    if (category && var.size > 0) {
      driver::AllocationRequest request;
      request.chip = target.chip;
      request.hbm = target.hbm;
      request.size_bytes = var.size;
      request.alignment_bytes =
          var.alignment > kMinAlignmentBytes ? var.alignment : kMinAlignmentBytes;
      request.owner_core = target.physical_core;
      request.category = *category;
      request.owner_model_id = target.model_id;
      StatusOr<std::unique_ptr<DeviceStorage>> storage =
          DeviceStorage::Create(target.device, request, target.vnc, target.bytes_used);
      if (!storage.ok()) {
        return Status(storage.status().code(),
                      subgraph_.name + " variable '" + var.name + "' (" +
                          std::string(neff::VariableTypeName(var.type)) + ", " +
                          std::to_string(var.size) + " bytes) on logical core " +
                          std::to_string(target.vnc) + ": " + storage.status().message());
      }
      slot.storage = std::move(*storage);
    }
    by_id_.emplace(var.var_id, slots_.size());
    slots_.push_back(std::move(slot));
  }
  return Status::Ok();
}

Status SubgraphMemory::WriteConstants() {
  for (const Slot& slot : slots_) {
    const Variable& var = *slot.variable;
    if (var.type != VariableType::kFile || !slot.storage) continue;
    // CheckVariables made sure the constant exists, parses and has the variable's size.
    TRNSIM_ASSIGN_OR_RETURN(std::span<const uint8_t> data, neff::ConstantData(subgraph_, var));
    if (!data.empty()) TRNSIM_RETURN_IF_ERROR(slot.storage->Write(0, data.data(), data.size()));
  }
  return Status::Ok();
}

const SubgraphMemory::Slot* SubgraphMemory::Find(int64_t var_id) const {
  auto it = by_id_.find(var_id);
  return it == by_id_.end() ? nullptr : &slots_[it->second];
}

std::optional<uint64_t> SubgraphMemory::DeviceAddress(int64_t var_id,
                                                      uint64_t scratchpad_address) const {
  const Slot* slot = Find(var_id);
  if (slot == nullptr) return std::nullopt;
  const Variable& var = *slot->variable;
  switch (var.type) {
    case VariableType::kStateBuffer:
      return std::nullopt;
    case VariableType::kInput:
    case VariableType::kOutput:
      return 0;  // bound at execution
    case VariableType::kVirtual:
      return scratchpad_address + var.backing_variable_off;
    default:
      return slot->storage ? slot->storage->device_allocation()->device_address : 0;
  }
}

Status SubgraphMemory::WriteAddressTables(uint64_t scratchpad_address) {
  for (const Slot& slot : slots_) {
    const Variable& var = *slot.variable;
    std::vector<int64_t> targets;
    if (var.type == VariableType::kPointer) {
      targets.push_back(*var.referenced_var_id);
    } else if (var.type == VariableType::kDgeTable) {
      targets = var.list;
    } else {
      continue;
    }
    if (!slot.storage || targets.empty()) continue;
    std::vector<uint8_t> table(targets.size() * 8);
    for (size_t i = 0; i < targets.size(); ++i) {
      std::optional<uint64_t> address = DeviceAddress(targets[i], scratchpad_address);
      if (!address) {  // CheckVariables refuses these; a broken invariant if reached
        return InvalidError(subgraph_.name + " variable '" + var.name + "' references var_id " +
                            std::to_string(targets[i]) + ", which has no device address");
      }
      PutLittleEndian64(*address, &table[i * 8]);
    }
    TRNSIM_RETURN_IF_ERROR(slot.storage->Write(0, table.data(), table.size()));
  }
  return Status::Ok();
}

const DeviceStorage* SubgraphMemory::Storage(int64_t var_id) const {
  const Slot* slot = Find(var_id);
  return slot ? slot->storage.get() : nullptr;
}

uint64_t SubgraphMemory::bytes_reserved() const {
  uint64_t total = 0;
  for (const Slot& slot : slots_) {
    if (slot.storage) total += slot.storage->device_allocation()->size_bytes;
  }
  return total;
}

}  // namespace trnsim::runtime::model
