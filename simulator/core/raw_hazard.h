// RawHazard: the same-engine read-after-write latency of one engine. An engine issues in order,
// but an instruction's results land in SBUF/PSUM only `access latency` after its occupancy ends
// (cost::InstructionCost::access_latency_cycles: the SBUF/PSUM access overhead, on ScalarE its
// pipeline). An instruction that reads bytes an earlier instruction of the same engine wrote
// does not issue before those bytes have landed (docs/chip-model.md §2). Cross-engine
// dependencies are the program's semaphores; transfers (dma_copy, ...) are not recorded here.
//
// A write is the instruction's on-chip Write operands (OpcodeInfo::operands), each as its
// partitions x per-partition byte span, with the engine's register folded into the offset as
// at issue. Spans are conservative (the [lo, hi) hull of a strided pattern).
// Accumulating writes (a matmul into the PSUM its predecessor wrote) are not reads: only the
// Read operands of the later instruction are checked.
//
// Thread safety: none; owned by one CoreModel.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "simulator/isa/instruction.h"
#include "simulator/sched/sim_time.h"

namespace trnsim::simulator::core {

class RawHazard {
 public:
  // The earliest instant `inst` may issue: the latest landing of a recorded write that one of
  // its Read operands overlaps; 0 when none does. `regs` is the engine's register file.
  TimePs ReadyAt(const isa::Instruction& inst, const std::array<int32_t, 64>& regs) const;
  // Records `inst`'s on-chip writes as landing at `land_ps`; forgets writes landed by `now_ps`.
  void Record(const isa::Instruction& inst, const std::array<int32_t, 64>& regs, TimePs now_ps,
              TimePs land_ps);
  void Clear() { writes_.clear(); }

 private:
  struct Span {
    isa::Memory memory = isa::Memory::kNone;
    int partition_lo = 0;
    int partition_hi = 0;  // exclusive
    int64_t byte_lo = 0;
    int64_t byte_hi = 0;  // exclusive
    TimePs land_ps = 0;
  };
  static bool SpanOf(const isa::AccessPattern& ap, const std::array<int32_t, 64>& regs, Span& out);
  std::vector<Span> writes_;
};

}  // namespace trnsim::simulator::core
