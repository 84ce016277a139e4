// The chip model's entry point: runs one execution — one program per physical core, all cores
// of one chip starting together — on a cycle-approximate model of NeuronCore-v3/v4 and returns
// what each core did and how long it took (docs/chip-model.md), and what its debug_print
// instructions read (debug_output.h).
//
// Each core's five engine sequencers issue their streams in order and concurrently, stalling on
// semaphore/event waits; every instruction occupies its engine for the cost model's cycles
// (cost/cost_model.h) in that engine's clock. Its effect (functional, exact: reference/ and the
// fast paths of core/) is applied when it issues, its @read updates then, its @complete updates
// when its results are visible. DMA transfers (dma_copy, dma_trigger descriptors) run on the
// core's DMA queues: one transfer at a time per queue, in issue order; active queues share the
// core's DMA engines round-robin and the HBM stack's bandwidth with the other core on the stack.
// Time is integer picoseconds from one deterministic scheduler: same inputs, same outputs and
// same times, on every host.
//
// Errors (the execution stops; memory may be partly written, as on hardware):
//   NRT_TIMEOUT  deadlock (no engine can issue and nothing is in flight — the message names each
//                stuck engine, its instruction and the wait that cannot be met), the event
//                budget, or the host-time limit;
//   NRT_INVALID  an execution error (docs/isa.md §2.7), naming core, engine and instruction;
//   NRT_FAILURE  ExecuteOptions::cancel was set (checked between slices of scheduler events, so
//                within milliseconds of host time).
//
// Host parallelism (ExecuteOptions::host_threads): with two or more cores in the run, each core
// applies the data effects of its TensorE on-chip instructions on a host thread of its own while
// the one scheduler thread runs the timing model (effect_worker.h, effect_router.h). Outputs,
// simulated times, statistics, traces and errors are the serial run's, bit for bit.
//
// Thread safety: Execute is reentrant; the caller serialises executions that share a CoreState
// or memory.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/status_or.h"
#include "simulator/collective/collective_port.h"
#include "simulator/core/debug_output.h"
#include "simulator/core/trace.h"
#include "simulator/dma/descriptor.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/validated_program.h"
#include "simulator/reference/interpreter.h"
#include "simulator/sched/sim_time.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {

// What one physical core runs. Pointers must outlive Execute.
//
// An engine's program comes from one of two slots, never both: `validated` holds a program that
// was validated when it was loaded (isa::ValidatedProgram: the sim device's, decoded from a
// NEFF), which Execute does not validate again — it only checks that it was validated against
// this chip's limits; `programs` holds any other program (tests, tools, the golden model),
// which Execute validates first unless ExecuteOptions::validate is false.
struct CoreRun {
  int core = 0;  // chip-local physical core index (decides the HBM stack it shares)
  std::array<const isa::Program*, isa::kEngineCount> programs{};  // nullptr: engine idle
  std::array<const isa::ValidatedProgram*, isa::kEngineCount> validated{};  // nullptr: none
  const dma::DescriptorTable* descriptors = nullptr;              // for dma_trigger; may be null
  reference::CoreState* state = nullptr;  // SBUF/PSUM/semaphores, kept across executions
  reference::HbmView* hbm = nullptr;      // the core's view of HBM variables

  // True when engine `e` has a program in either slot.
  bool has_program(int e) const { return validated[e] != nullptr || programs[e] != nullptr; }
};

// The scheduler-event budget of one execution (ExecuteOptions::max_events), the deterministic
// bound on a program that never ends, whatever its host timeout (docs/decisions.md,
// "NEURON_RT_EXEC_TIMEOUT"). A scheduler event is one instruction's issue or completion, or one
// DMA step; the cheapest are a register or branch instruction's, so a `branch`-to-self loop is
// the fastest way to spend the budget: at kFastestEventsPerSecond (an idle modern host core;
// a loaded 2-core VM runs ~1.3 M/s) 2^28 events take ~34 s of host time. Real kernels stay far
// below: the largest sample NEFF (the 137-GFLOP matmul_bf16_4096) runs ~63,000 events, the
// others under 2,100 — the budget is over 4,000 times the largest.
inline constexpr uint64_t kDefaultMaxEvents = uint64_t{1} << 28;  // 268,435,456
inline constexpr uint64_t kFastestEventsPerSecond = 8'000'000;    // branch loop, idle host

// ExecuteOptions::host_threads's default: on when the host has more than one hardware thread.
inline bool HostHasSeveralThreads() { return std::thread::hardware_concurrency() > 1; }

struct ExecuteOptions {
  uint64_t max_events = kDefaultMaxEvents;  // scheduler events before NRT_TIMEOUT
  // Host time before NRT_TIMEOUT (NEURON_RT_EXEC_TIMEOUT); zero: unlimited.
  std::chrono::milliseconds host_timeout{0};
  bool validate = true;  // isa::ValidateProgram each CoreRun::programs entry first
  // When set and it becomes true (from another thread), the execution stops: NRT_FAILURE.
  const std::atomic<bool>* cancel = nullptr;
  // When set, every instruction, DMA transfer and semaphore/event update is recorded into it
  // (trace.h; cleared first). Recording changes no result, time or statistic; unset, it costs a
  // pointer test per instruction and transfer. Left with what ran so far when Execute fails.
  ExecutionTrace* trace = nullptr;
  // Where `collective` instructions go (collective/collective_port.h). Null: a `collective`
  // instruction is an execution error (NRT_INVALID: the model was not loaded as a rank).
  collective::CollectivePort* collectives = nullptr;
  // The device's debug buffer: what the execution's debug_print instructions may keep
  // (debug_output.h); prints past it are counted in ExecutionResult::debug_prints_dropped.
  DebugPrintLimits debug_limits;
  // With two or more cores in the run: simulate them in parallel on the host (one effect thread
  // per core, see above; TRNSIM_HOST_THREADS). Off: everything on the calling thread. Either
  // way the results are identical; only host time differs.
  bool host_threads = HostHasSeveralThreads();
};

struct EngineStats {
  DurationPs busy_ps = 0;     // time the engine was occupied by instructions
  DurationPs wait_ps = 0;     // time stalled on semaphore/event waits or barriers
  uint64_t instructions = 0;  // instructions issued
  uint64_t flops = 0;         // PE: 2·K·M·N per matmul; 0 elsewhere
};

struct QueueStats {
  uint64_t transfers = 0;
  uint64_t bytes = 0;      // payload bytes moved
  DurationPs busy_ps = 0;  // time with a transfer in flight
};

struct CoreStats {
  int core = 0;
  DurationPs duration_ps = 0;  // start to the last engine's end and last transfer landed
  std::array<EngineStats, isa::kEngineCount> engines{};
  std::vector<QueueStats> queues;  // one per DMA queue (ChipSpec::dma_queues_per_engine)
  uint64_t hbm_read_bytes = 0;
  uint64_t hbm_write_bytes = 0;
  uint64_t instructions = 0;
  // The core's device clock at the start is the device's, not the chip model's: the driver's
  // CoreStats carries it (driver/execution_result.h, driver/sim/device_clock.h).
};

struct ExecutionResult {
  DurationPs duration_ps = 0;    // longest core
  std::vector<CoreStats> cores;  // in the order of `runs`
  uint64_t events = 0;           // scheduler events run (simulator speed)
  // What the debug_print instructions read (docs/isa.md §7.10), in DebugOutput's order;
  // DebugPrint::core is the index in `runs`. Past ExecuteOptions::debug_limits they are not
  // kept but counted.
  std::vector<reference::DebugPrint> debug_prints;
  uint64_t debug_prints_dropped = 0;
  // Host work, not simulation: effects applied on the cores' effect threads (host_threads; 0
  // when off). Every other field is the same either way.
  uint64_t deferred_effects = 0;
};

// Runs `runs` (distinct cores of one chip described by `chip`) to completion.
StatusOr<ExecutionResult> Execute(const ChipSpec& chip, std::span<const CoreRun> runs,
                                  const ExecuteOptions& options = {});

}  // namespace trnsim::simulator::core
