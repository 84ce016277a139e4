// DebugPrint: what one `debug_print` instruction (docs/isa.md §7.10) of an execution read, as a
// Device returns it in ExecutionResult::debug_prints (driver/execution_result.h) — a plain,
// serialisable value (neurond sends it as neurond.proto's DebugPrint). The runtime turns each
// into one event of its core's debug stream (runtime/debug/).
//
// It is the driver's, not the chip model's: the sim back end converts the chip model's
// reference::DebugPrint (simulator/reference/debug_print.h) to it at the seam
// (driver/sim/result_conversion.h), so what is above the driver does not name the chip model's
// types. The fields are the same; the driver's value always has `core` and `time_ps` (the
// reference interpreter, which leaves them 0, never answers a Device).
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/isa/dtype.h"
#include "simulator/isa/engine.h"

namespace trnsim::driver {

struct DebugPrint {
  // The instruction's `prefix`: an index into the debug-prefix table of the subgraph the
  // issuing core ran (neff::Subgraph::debug_prefixes).
  uint32_t prefix_id = 0;
  isa::Dtype dtype = isa::Dtype::kUnknown;  // of the elements in `data`
  // [P, sizes[0], ..., sizes[num_dims - 1]]: the rows (partitions) and free sizes of the
  // printed access pattern, outermost first (docs/isa.md §4); 2 to 5 entries, each >= 1.
  std::vector<uint64_t> shape;
  // The elements in §4 order, each DtypeSize(dtype) little-endian bytes, as in device memory;
  // exactly the product of `shape` elements.
  std::vector<uint8_t> data;
  isa::Engine engine = isa::Engine::kSp;  // the engine that issued it
  uint32_t pc = 0;                        // its index in that engine's stream
  // The index of the issuing core in the execution (its CoreExecution, i.e. the NEFF
  // subgraph), and the issue time in picoseconds from the start of the execution.
  uint32_t core = 0;
  uint64_t time_ps = 0;

  bool operator==(const DebugPrint&) const = default;
};

}  // namespace trnsim::driver
