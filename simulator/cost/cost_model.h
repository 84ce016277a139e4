// The per-instruction cost model: how long one engine instruction occupies its engine, from the
// opcode's cost class (isa/opcode.h, docs/isa.md §8), its operands and the chip's CostSpec. The
// formulas are those of trainium-hw-isa-facts.md §3, written out in docs/calibration.md.
//
// Definitions used throughout:
//   N  "elements per partition of the main operand": FreeElements() (the product of the free
//      sizes) of the main operand — slot 1 when it is an SBUF/PSUM operand, else slot 0 (memset,
//      iota, affine_select, read_accumulator). For multiply_moving N is the moving free size
//      (halved under double_row, whose moving is [K, 2, N]); for load_stationary the
//      stationary free size M (halved under double_row). The partition count never enters the
//      cost, except P in nc_transpose ([NKI-ARCH-V2]: cost is independent of partitions used).
//   cycles  issue-to-issue occupancy of the engine (the initiation interval), in the executing
//      engine's clock. Latencies that overlap with the next instruction are reported apart.
//
// Pure functions of their arguments; thread-safe. Callers convert cycles to time with
// simulator::Clock (sched/sim_time.h): Clock::FromHz(cost.clock_hz).CyclesToPs(cost.cycles).
#pragma once

#include <cstdint>

#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/sched/sim_time.h"
#include "simulator/spec/cost_spec.h"

namespace trnsim::simulator::cost {

struct InstructionCost {
  isa::Engine engine = isa::Engine::kSp;
  uint64_t clock_hz = 0;  // the executing engine's clock (CostSpec::*_clock_hz)
  uint64_t cycles = 0;    // engine occupancy, always >= 1
  // Latency until the results are visible, beyond `cycles`: the SBUF/PSUM access overhead of a
  // datapath instruction [NKI-ARCH-V2]; 0 for control/sync/dma.
  uint64_t access_latency_cycles = 0;
  // Extra cycles the chip model adds when this DVE instruction depends on (or tightly follows)
  // the previous one [NKI-ARCH-V2] "~100 cycles static overhead"; 0 on other engines.
  uint64_t dependent_overhead_cycles = 0;
  // True when the access latency is part of the instruction's own span — its busy time and its
  // profile duration — though not of its occupancy: ScalarE's fixed pipeline cost
  // (CostSpec::act_fixed_cycles), which the next instruction overlaps.
  bool latency_in_span = false;

  Clock clock() const { return Clock::FromHz(clock_hz); }
  DurationPs OccupancyPs() const { return clock().CyclesToPs(cycles); }
};

// Cost of `inst` executing on `engine` (one of the opcode's engines; tensor_copy, tensor_scalar,
// tensor_tensor, memset, iota and every control opcode run on several). The instruction is
// assumed valid (isa/validate.h); an opcode without a table row aborts (a caller bug).
InstructionCost EstimateCost(const isa::Instruction& inst, isa::Engine engine,
                             const CostSpec& spec);
// The issuing engine's occupancy for a DMA-class instruction (docs/calibration.md §3): a
// dma_copy with pre-built descriptors (no DGE flag) or a dma_trigger costs
// dma_static_issue_ps; hwdge costs dma_hwdge_issue_ps; swdge costs GpSimd's start plus
// dma_swdge_descriptor_ps per DMA engine; collective/sendrecv/debug_print cost the hwdge figure.
uint64_t DmaIssuePs(const isa::Instruction& inst, const CostSpec& spec);

// As above on the opcode's home engine: the lowest-numbered engine of its mask, except that
// control/sync/dma opcodes (legal everywhere) are costed on SP.
InstructionCost EstimateCost(const isa::Instruction& inst, const CostSpec& spec);
isa::Engine HomeEngine(isa::Opcode opcode);

// The clock of `engine` in `spec`.
uint64_t EngineClockHz(isa::Engine engine, const CostSpec& spec);

}  // namespace trnsim::simulator::cost
