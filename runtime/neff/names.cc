#include "runtime/neff/neff.h"

namespace trnsim::neff {
namespace {

template <typename T>
struct Spelling {
  T value;
  std::string_view name;
};

constexpr Spelling<VariableType> kVariableTypes[] = {
    {VariableType::kStateBuffer, "state-buffer"}, {VariableType::kInput, "input"},
    {VariableType::kOutput, "output"},            {VariableType::kFile, "file"},
    {VariableType::kTmpBuf, "tmp-buf"},           {VariableType::kVirtual, "virtual"},
    {VariableType::kPointer, "pointer"},          {VariableType::kDgeTable, "dge-table"},
};

constexpr Spelling<DmaOp> kDmaOps[] = {
    {DmaOp::kCopy, "copy"}, {DmaOp::kCast, "cast"}, {DmaOp::kAdd, "add"},
    {DmaOp::kFma, "fma"},   {DmaOp::kMin, "min"},   {DmaOp::kMax, "max"},
    {DmaOp::kTranspose, "transpose"},
};

template <typename T, size_t N>
std::string_view NameOf(const Spelling<T> (&table)[N], T value) {
  for (const auto& s : table) {
    if (s.value == value) return s.name;
  }
  return "";
}

template <typename T, size_t N>
std::optional<T> ValueOf(const Spelling<T> (&table)[N], std::string_view name) {
  for (const auto& s : table) {
    if (s.name == name) return s.value;
  }
  return std::nullopt;
}

}  // namespace

std::string_view VariableTypeName(VariableType type) { return NameOf(kVariableTypes, type); }
std::optional<VariableType> VariableTypeFromName(std::string_view name) {
  return ValueOf(kVariableTypes, name);
}
std::string_view DmaOpName(DmaOp op) { return NameOf(kDmaOps, op); }
std::optional<DmaOp> DmaOpFromName(std::string_view name) { return ValueOf(kDmaOps, name); }

}  // namespace trnsim::neff
