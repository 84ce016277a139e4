// DebugPrefixTable: one core's (NEFF subgraph's) table of debug_print prefixes, written to
// def.json "debug_prefixes" (docs/neff.md); a debug_print instruction names its prefix by its
// index here (docs/isa.md §7.10).
//
// A prefix is a C string of at most neff::kMaxDebugPrefixBytes (511) bytes without NUL — it
// fills the debug stream's 512-byte prefix field — and a table holds at most
// neff::kMaxDebugPrefixes entries. Errors are NRT_INVALID naming the rule.
//
// Thread safety: none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace trnsim::kb {

class DebugPrefixTable {
 public:
  // The index of `prefix`, appending it when the table does not hold it yet.
  StatusOr<uint32_t> Intern(std::string_view prefix);
  // Appends `prefix` as entry `id`, which must be the next index (size()): how the assembler's
  // `.debug_prefix ID "text"` directive fills the table in order. Duplicates are allowed here.
  Status Append(uint32_t id, std::string prefix);

  const std::vector<std::string>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  Status Check(std::string_view prefix) const;
  std::vector<std::string> entries_;
};

}  // namespace trnsim::kb
