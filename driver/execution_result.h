// ExecutionResult: what one Device::Execute (driver/device.h) reports of a successful
// execution — how long it took in simulated time and what each core, engine and DMA queue did,
// and what its debug_print instructions read — as a plain, serialisable value (the remote back
// end receives it from neurond as neurond.proto's ExecutionResult, field for field).
//
// It is the driver's, not the chip model's: the sim back end converts the chip model's
// simulator::core::ExecutionResult (simulator/core/execution.h, docs/chip-model.md §5) to it at
// the seam (driver/sim/result_conversion.h) and adds what only the device knows (each core's
// device clock). What is above the driver — the runtime's reports and profiles, the C API's
// trnsim_get_execution_stats, neurond's counters — reads this type only.
//
// Times are integer picoseconds of simulated time, from the start of the execution unless said
// otherwise; nothing here is host (wall-clock) time.
//
// Thread safety: plain values.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "driver/debug_print.h"
#include "simulator/isa/engine.h"

namespace trnsim::driver {

// One engine's account of one core's part of the execution.
struct EngineStats {
  uint64_t busy_ps = 0;       // time the engine was occupied by instructions
  uint64_t wait_ps = 0;       // time it stalled on semaphore/event waits or barriers
  uint64_t instructions = 0;  // instructions it issued
  uint64_t flops = 0;         // PE: 2·K·M·N per matmul (floating-point operations); 0 elsewhere
};

// One DMA queue's account of one core's part of the execution.
struct QueueStats {
  uint64_t transfers = 0;  // transfers the queue ran
  uint64_t bytes = 0;      // payload bytes they moved
  uint64_t busy_ps = 0;    // time the queue had a transfer in flight
};

// One physical core's part of the execution.
struct CoreStats {
  int core = 0;              // the chip-local physical core (CoreExecution::physical_core)
  uint64_t duration_ps = 0;  // from the start to its last engine's end and last transfer landed
  // Indexed by isa::Engine.
  std::array<EngineStats, isa::kEngineCount> engines{};
  // One per DMA queue of the core (ChipSpec::dma_queues_per_engine), by queue number.
  std::vector<QueueStats> queues;
  // HBM bytes the core's DMA transfers, collectives and debug prints read, and wrote.
  uint64_t hbm_read_bytes = 0;
  uint64_t hbm_write_bytes = 0;
  uint64_t instructions = 0;  // over all its engines
  // The core's device clock when the execution started, in ps since the device was created
  // (docs/profiling.md §6: the system trace's nc_timestamp_ns). The sim back end keeps one
  // clock per physical core, advanced only by its executions (driver/sim/device_clock.h).
  uint64_t device_start_ps = 0;
};

struct ExecutionResult {
  uint64_t duration_ps = 0;      // the longest of the cores' duration_ps
  std::vector<CoreStats> cores;  // in the order of the request's CoreExecutions
  uint64_t events = 0;           // scheduler events the chip model ran (simulator speed)
  // What the execution's debug_print instructions read (docs/isa.md §7.10), in the device's
  // order: by issue time, then the core's index in the request, then engine (isa::Engine
  // order), then pc. The device keeps a bounded number per execution
  // (simulator::core::DebugPrintLimits); the ones past it are only counted, in
  // debug_prints_dropped.
  std::vector<DebugPrint> debug_prints;
  uint64_t debug_prints_dropped = 0;
};

}  // namespace trnsim::driver
