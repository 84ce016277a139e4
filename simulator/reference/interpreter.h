// The reference interpreter: a trivially correct functional model of one NeuronCore, used as
// the correctness oracle of the timed chip model. It executes one isa::Program per engine
// against explicit state, element by element, with no timing (docs/isa.md §2, §4, §6, §7).
//
// Execution: engines are visited round-robin by engine index; each visit issues at most one
// instruction, and only when all its waits hold. An instruction executes atomically: its @read
// updates, then its effect, then its @complete updates. DMA (dma_copy) lands at issue; so does
// dma_trigger desc=D count=N: descriptors D..D+N-1 of the engine's table (RunOptions::
// descriptors) run in id order, each followed at once by its completion (S[semaphore] +=
// semaphore_increment, E[event] = 1). debug_print reads its src at issue into
// RunResult::debug_prints (debug_print.h), in the order the instructions execute. The run ends
// when every engine with a program has
// executed notify_end. Deadlock, a step budget overrun, an out-of-bounds access, a dma_trigger
// id that is not in the table, or an opcode the interpreter does not execute yet is a non-OK
// Status (never UB, never a silent no-op).
//
// Thread safety: none; one Run at a time per CoreState/HbmView.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "common/status.h"
#include "common/status_or.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"
#include "simulator/memory/lazy_buffer.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/reference/debug_print.h"

namespace trnsim::simulator::dma {
struct DescriptorTable;  // simulator/dma/descriptor.h (which includes this header)
}  // namespace trnsim::simulator::dma

namespace trnsim::reference {

// HBM as the interpreter sees it: NEFF var_id -> the variable's bytes.
class HbmView {
 public:
  virtual ~HbmView() = default;
  // The variable's bytes, or a non-OK Status for an unknown var_id.
  virtual StatusOr<std::span<uint8_t>> Var(uint32_t var_id) = 0;
};

// An HbmView over plain vectors (tests).
class VectorHbm : public HbmView {
 public:
  std::map<uint32_t, std::vector<uint8_t>> vars;
  StatusOr<std::span<uint8_t>> Var(uint32_t var_id) override;
};

// The PE stationary buffer: [k, m] elements, kept as raw bits and as fp32.
struct Stationary {
  bool loaded = false;
  isa::Dtype dtype = isa::Dtype::kUnknown;
  uint32_t k = 0;  // rows (partitions); logical K' = 2k with double_row
  uint32_t m = 0;
  bool double_row = false;
  std::vector<float> value;    // [k][j][m], j in {0} or {0,1} with double_row
  std::vector<uint32_t> bits;  // raw element bits, same order
};

// Architectural state of one NeuronCore (docs/isa.md §3).
struct CoreState {
  explicit CoreState(const isa::IsaLimits& limits);

  isa::IsaLimits limits;
  // partitions x sbuf_bytes_per_partition / psum_bytes_per_partition, partition-major, zero at
  // creation. Backed lazily (simulator/memory/lazy_buffer.h): a page costs host memory from its
  // first write, so a core costs what its kernels touch, not 26 MiB at first use.
  simulator::LazyBuffer sbuf;
  simulator::LazyBuffer psum;
  std::array<float, 128> acc{};
  std::array<uint32_t, 256> sem{};
  std::array<uint8_t, 256> event{};
  std::array<std::array<int32_t, 64>, isa::kEngineCount> regs{};
  Stationary stationary;

  // Rounding of every engine write to a float dtype (docs/numerics.md §2-3): RNE, or stochastic
  // with NEURON_RT_STOCHASTIC_ROUNDING_EN. The random bits of element k of an instruction's
  // destination are numerics::StochasticBits(rounding_stream, k), where rounding_stream is
  // derived from (rounding_seed, engine, the engine's instruction count) by BeginInstruction —
  // so they depend only on the program, never on how engines interleave.
  numerics::Rounding::Mode rounding = numerics::Rounding::Mode::kNearestEven;
  uint64_t rounding_seed = 0;
  uint64_t rounding_stream = 0;                    // of the instruction executing now
  std::array<uint64_t, isa::kEngineCount> issued{};  // instructions per engine since start

  uint8_t* SbufAt(int partition, uint32_t byte) {
    return sbuf.data() + size_t(partition) * limits.sbuf_bytes_per_partition + byte;
  }
  uint8_t* PsumAt(int partition, uint32_t byte) {
    return psum.data() + size_t(partition) * limits.psum_bytes_per_partition + byte;
  }
};

struct RunOptions {
  uint64_t max_steps = uint64_t{1} << 26;  // instructions executed over all engines
  bool validate = true;                    // run isa::ValidateProgram on each program first
  // The NEFF's DMA descriptors, for dma_trigger; must outlive Run. Null: no descriptors, so any
  // dma_trigger is an execution error.
  const simulator::dma::DescriptorTable* descriptors = nullptr;
};

struct RunResult {
  uint64_t steps = 0;  // instructions executed
  std::array<uint64_t, isa::kEngineCount> executed{};
  // What each debug_print read, in execution order (engine, pc set; core and time_ps 0).
  std::vector<DebugPrint> debug_prints;
};

// Runs `programs` (at most one per engine) to completion. Registers, the ACT accumulators and
// the stationary buffer are reset at start (§3); SBUF, PSUM, semaphores and events are taken
// as they are in `state`.
StatusOr<RunResult> Run(std::span<const isa::Program> programs, CoreState& state, HbmView& hbm,
                        const RunOptions& options = {});

// Marks the start of the next instruction of `engine`: derives rounding_stream from the seed,
// the engine and issued[engine], then counts the instruction. Every executor calls it once per
// instruction issued, before its effect, whichever path applies the effect.
void BeginInstruction(CoreState& state, isa::Engine engine);
// The rounding_stream BeginInstruction derives for instruction `n` (counted from 0 at start) of
// `engine` under `seed`: a pure function, so a caller that applies effects on another thread
// can compute it where the instruction issues.
uint64_t RoundingStream(uint64_t seed, isa::Engine engine, uint64_t n);

// Applies one semaphore/event update to `state` (docs/isa.md §2.3): S[index] += / -= / = value
// (wrapping uint32), or E[index] = 1 / 0; indices wrap at 256.
void ApplySyncUpdate(CoreState& state, isa::UpdateOp op, uint32_t index, uint32_t value);

// Executes the effect of instruction `pc` of `engine` — control, synchronisation opcodes'
// own effect, dma_copy (its bytes land at once), datapath — but not its waits or @read/@complete
// updates: the chip model applies those on its own timeline. Sets `next` to the next pc and
// `ended` on notify_end. dma_trigger is the caller's (it needs the descriptor table), and so is
// debug_print (CaptureDebugPrint: the caller keeps what it read): both are NRT_INVALID here.
Status ExecuteInstruction(isa::Engine engine, const isa::Instruction& inst, size_t pc,
                          CoreState& state, HbmView& hbm, size_t& next, bool& ended);

// Executes the effect of one datapath instruction (not its waits/updates). Exposed for tests.
Status ExecuteDatapath(isa::Engine engine, const isa::Instruction& inst, CoreState& state,
                       HbmView& hbm);

}  // namespace trnsim::reference
