// RowView: an on-chip (SBUF/PSUM) float operand as the fast paths of core/ walk it — rows
// (partitions) of `free` elements, each row made of equal contiguous runs of `run` elements at
// the byte offsets in `runs`, relative to the row's first element, in the element order of
// docs/isa.md §4.
//
// MakeRowView succeeds exactly when reference::Operand::Bind would (same bounds rule) and the
// layout suits a fast path: SBUF or PSUM, a float dtype, no register offset, unit-stride
// innermost run (size-1 dims ignored; outer dims that continue the run merge into it), at most
// kMaxRuns runs per row and `max_elements` elements. Otherwise it returns false, and the caller
// leaves the instruction to the reference interpreter, which reports any error.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/isa/access_pattern.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

struct RowView {
  uint8_t* row0 = nullptr;  // the first row's element 0
  uint64_t pitch = 0;       // bytes between partitions
  int first_partition = 0;
  uint32_t rows = 0;
  uint64_t free = 0;
  int esize = 0;
  isa::Dtype dtype = isa::Dtype::kUnknown;
  uint64_t run = 0;
  std::vector<int64_t> runs;

  uint64_t elements() const { return rows * free; }
  uint8_t* Run(uint32_t row, size_t i) const { return row0 + row * pitch + runs[i]; }
};

// Rows made of more runs than this (tiny runs, e.g. broadcast outer dims) are left to the
// reference rather than listed.
inline constexpr uint64_t kMaxRuns = 4096;

bool MakeRowView(const isa::AccessPattern& ap, reference::CoreState& s, uint64_t max_elements,
                 RowView& v);

// Asks for row `r`'s cache lines ahead of use: rows are a partition pitch apart (224 KiB of
// SBUF on trn2), a stride the hardware prefetchers do not follow.
void PrefetchRow(const RowView& v, uint32_t r);

}  // namespace trnsim::simulator::core
