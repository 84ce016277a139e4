// The semantic checks of a typed NEFF, shared by ReadNeff (after parsing) and WriteNeff (before
// writing, so that whatever it writes reads back equal). JSON types are the parsers' business;
// this checks values and cross-references (docs/neff.md, "What is validated"):
//   header fields; subgraph names sg00.. contiguous and their count against lnc_size;
//   member paths; per subgraph (ValidateSubgraph): names and var_ids unique, sizes and
//   offsets in range, constants present with the variable's size, pointer/dge-table
//   references, queue sets, engines and every DMA descriptor with its access patterns inside
//   the variables; tensors against the input/output variables.
// Errors are NRT_INVALID naming the member file and field.
#pragma once

#include <string>

#include "common/status.h"
#include "runtime/neff/neff.h"

namespace trnsim::neff {

Status ValidateNeff(const Neff& neff);

Status ValidateSubgraph(const Subgraph& sg);

// Checks that every byte the DMA access pattern touches lies inside a variable of `var_size`
// bytes (docs/neff.md, "Access patterns"): NRT_INVALID naming `where` when it reaches below 0
// or past the end, when steps and sizes differ in length or exceed 4 entries, when the
// innermost size is not a whole number of elements, or when the arithmetic overflows.
Status CheckAccessBounds(const DmaAccess& access, uint64_t var_size, const std::string& where);

}  // namespace trnsim::neff
