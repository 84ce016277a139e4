// neff.json, the top-level graph (TVM/NNVM graph JSON): the source of the I/O tensors' names,
// order, dtypes and shapes. trnsim reads only the subset docs/neff.md ("neff.json") defines:
//   inputs  = the "null" nodes listed in "arg_nodes", in order (parameters excepted),
//   outputs = the "null" nodes "heads" refer to, in order,
// each with "name" and "attrs" {"dtype", "shape"}; everything else is ignored.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "runtime/neff/json_util.h"
#include "runtime/neff/neff.h"

namespace trnsim::neff {

// Appends the inputs, then the outputs, to *tensors (size left 0: sizes come from the
// variables). `file` names the member in errors.
Status ParseGraphJson(const Json& root, std::string_view file, std::vector<TensorDecl>* tensors);

// neff.json for `tensors` (inputs first) and `subgraph_count` subgraphs.
Json GraphJsonOf(const std::vector<TensorDecl>& tensors, size_t subgraph_count);

// A dtype as neff.json spells it: numpy/ml_dtypes ("float32", "bfloat16", "float8_e4m3fn"),
// the descriptor spelling ("float8e4") or the assembler's ("bf16", "fp8e4"); nullopt else.
std::optional<isa::Dtype> DtypeFromGraphName(std::string_view name);

}  // namespace trnsim::neff
