#include "tools/kernel_builder/debug_prefixes.h"

#include <algorithm>
#include <utility>

#include "runtime/neff/limits.h"

namespace trnsim::kb {

Status DebugPrefixTable::Check(std::string_view prefix) const {
  if (prefix.size() > neff::kMaxDebugPrefixBytes) {
    return InvalidError("debug prefix of " + std::to_string(prefix.size()) + " bytes: at most " +
                        std::to_string(neff::kMaxDebugPrefixBytes) +
                        " (the debug stream's prefix is 512 bytes with its NUL)");
  }
  if (prefix.find('\0') != std::string_view::npos) {
    return InvalidError("debug prefix holds a NUL character (a prefix is a C string)");
  }
  if (entries_.size() >= neff::kMaxDebugPrefixes) {
    return InvalidError("more than " + std::to_string(neff::kMaxDebugPrefixes) +
                        " debug prefixes in one subgraph");
  }
  return Status::Ok();
}

StatusOr<uint32_t> DebugPrefixTable::Intern(std::string_view prefix) {
  auto it = std::find(entries_.begin(), entries_.end(), prefix);
  if (it != entries_.end()) return static_cast<uint32_t>(it - entries_.begin());
  TRNSIM_RETURN_IF_ERROR(Check(prefix));
  entries_.emplace_back(prefix);
  return static_cast<uint32_t>(entries_.size() - 1);
}

Status DebugPrefixTable::Append(uint32_t id, std::string prefix) {
  if (id != entries_.size()) {
    return InvalidError("debug prefix " + std::to_string(id) + " out of order: the next is " +
                        std::to_string(entries_.size()));
  }
  TRNSIM_RETURN_IF_ERROR(Check(prefix));
  entries_.push_back(std::move(prefix));
  return Status::Ok();
}

}  // namespace trnsim::kb
