// DebugPrint: what one `debug_print` instruction (docs/isa.md §7.10) captures when it issues —
// the prefix id, the dtype and shape of its access pattern and the bytes of its elements — as
// both executors report it: the reference interpreter in program order (RunResult), the chip
// model in simulated-time order with the issuing core and time (core::ExecutionResult). The
// runtime turns each into one event of the core's debug stream (runtime/debug/).
//
// Thread safety: plain values; CaptureDebugPrint is as the interpreter (one caller per state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status_or.h"
#include "simulator/isa/instruction.h"

namespace trnsim::reference {

struct CoreState;  // interpreter.h, which includes this header
class HbmView;

struct DebugPrint {
  uint32_t prefix_id = 0;  // the instruction's `prefix`: an index into its subgraph's table
  isa::Dtype dtype = isa::Dtype::kUnknown;
  // [P, sizes[0], ..., sizes[num_dims - 1]]: the rows (partitions) and free sizes of src,
  // outermost first (§4); 2 to 5 entries.
  std::vector<uint64_t> shape;
  // The elements in §4 order, each DtypeSize(dtype) little-endian bytes, as in memory.
  std::vector<uint8_t> data;
  isa::Engine engine = isa::Engine::kSp;  // the engine that issued it
  uint32_t pc = 0;                        // its index in that engine's stream
  // Chip model only (0 from the reference interpreter): the index of the issuing core in the
  // execution (its CoreRun, i.e. the NEFF subgraph), and the issue time in picoseconds from
  // the start of the execution.
  uint32_t core = 0;
  uint64_t time_ps = 0;

  bool operator==(const DebugPrint&) const = default;
};

// Reads the src operand of debug_print `inst` (instruction `pc` of `engine`) as it issues now:
// its register offset resolved with the engine's register, every byte bounds-checked. Errors:
// NRT_INVALID for an instruction that is not a debug_print, an out-of-bounds or unknown
// operand (never UB).
StatusOr<DebugPrint> CaptureDebugPrint(isa::Engine engine, const isa::Instruction& inst, size_t pc,
                                       CoreState& state, HbmView& hbm);

}  // namespace trnsim::reference
