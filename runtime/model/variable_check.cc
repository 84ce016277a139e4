#include "runtime/model/variable_check.h"

#include <string>
#include <unordered_map>

#include "runtime/neff/neff_io.h"

namespace trnsim::runtime::model {
namespace {

using neff::Variable;
using neff::VariableType;

constexpr uint64_t kAddressBytes = 8;

std::string Describe(const neff::Subgraph& subgraph, const Variable& var) {
  return subgraph.name + " variable '" + var.name + "' (" +
         std::string(neff::VariableTypeName(var.type)) + ", var_id " + std::to_string(var.var_id) +
         ")";
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// A pointer or dge-table entry must name an existing variable that has a device address.
Status CheckReference(const neff::Subgraph& subgraph, const Variable& var, int64_t target_id,
                      const std::unordered_map<int64_t, const Variable*>& by_id) {
  auto it = by_id.find(target_id);
  if (it == by_id.end()) {
    return InvalidError(Describe(subgraph, var) + " references var_id " +
                        std::to_string(target_id) + ", which the subgraph does not declare");
  }
  if (it->second->type == VariableType::kStateBuffer) {
    return InvalidError(Describe(subgraph, var) + " references state-buffer variable '" +
                        it->second->name + "', which has no device address");
  }
  return Status::Ok();
}

Status CheckFile(const neff::Subgraph& subgraph, const Variable& var) {
  StatusOr<std::span<const uint8_t>> data = neff::ConstantData(subgraph, var);
  if (!data.ok()) return InvalidError(Describe(subgraph, var) + ": " + data.status().message());
  return Status::Ok();
}

}  // namespace

Status CheckVariables(const neff::Subgraph& subgraph, uint64_t sbuf_bytes) {
  std::unordered_map<int64_t, const Variable*> by_id;
  for (const Variable& var : subgraph.variables) {
    auto [it, inserted] = by_id.emplace(var.var_id, &var);
    if (!inserted) {
      return InvalidError(Describe(subgraph, var) + " reuses the var_id of '" + it->second->name +
                          "'");
    }
    if (var.alignment != 0 && !IsPowerOfTwo(var.alignment)) {
      return InvalidError(Describe(subgraph, var) + " asks for alignment " +
                          std::to_string(var.alignment) + ", which is not a power of two");
    }
  }
  for (const Variable& var : subgraph.variables) {
    switch (var.type) {
      case VariableType::kStateBuffer:
        if (var.size > sbuf_bytes) {
          return InvalidError(Describe(subgraph, var) + " is " + std::to_string(var.size) +
                              " bytes; the core's SBUF holds " + std::to_string(sbuf_bytes));
        }
        break;
      case VariableType::kFile:
        TRNSIM_RETURN_IF_ERROR(CheckFile(subgraph, var));
        break;
      case VariableType::kPointer:
        if (!var.referenced_var_id) {
          return InvalidError(Describe(subgraph, var) + " has no referenced_var_id");
        }
        if (var.size < kAddressBytes) {
          return InvalidError(Describe(subgraph, var) + " is " + std::to_string(var.size) +
                              " bytes; a pointer needs 8");
        }
        TRNSIM_RETURN_IF_ERROR(CheckReference(subgraph, var, *var.referenced_var_id, by_id));
        break;
      case VariableType::kDgeTable:
        if (var.size / kAddressBytes < var.list.size()) {
          return InvalidError(Describe(subgraph, var) + " is " + std::to_string(var.size) +
                              " bytes; its " + std::to_string(var.list.size()) +
                              " entries need 8 each");
        }
        for (int64_t id : var.list) {
          TRNSIM_RETURN_IF_ERROR(CheckReference(subgraph, var, id, by_id));
        }
        break;
      case VariableType::kVirtual: {
        uint64_t end = var.backing_variable_off + var.size;
        if (end < var.size) {
          return InvalidError(Describe(subgraph, var) + ": backing_variable_off " +
                              std::to_string(var.backing_variable_off) + " + size overflows");
        }
        if (var.alignment > 1 && var.backing_variable_off % var.alignment != 0) {
          return InvalidError(Describe(subgraph, var) + " at scratchpad offset " +
                              std::to_string(var.backing_variable_off) + " cannot be " +
                              std::to_string(var.alignment) + "-byte aligned");
        }
        break;
      }
      case VariableType::kInput:
      case VariableType::kOutput:
      case VariableType::kTmpBuf:
        break;
    }
  }
  return Status::Ok();
}

}  // namespace trnsim::runtime::model
