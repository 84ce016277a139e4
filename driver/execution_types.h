// The data a Device needs to run programs where its memory lives — in-process for the sim back
// end, inside neurond for the remote one — as plain, serialisable values (no host pointers):
//   ProgramImage    one subgraph's code, loaded once per model (Device::LoadProgram)
//   CoreExecution   one physical core's part of one execution: the program and, for every HBM
//                   variable it names, the device memory window bound to it
//   ExecutionRequestOptions  budgets and rounding of one execution
// The result is the driver's ExecutionResult (execution_result.h: per core, engine, DMA queue
// and HBM figures, and device prints).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simulator/core/trace.h"
#include "simulator/dma/descriptor.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/validated_program.h"

namespace trnsim::driver {

namespace faults {
class FaultPlan;
}

using ProgramHandle = uint64_t;  // 0 is never a valid handle
inline constexpr ProgramHandle kInvalidProgramHandle = 0;

struct ProgramImage {
  // Per engine (isa::Engine order), the stream in trnsim's encoding (isa::EncodeStream); empty
  // when the engine has no stream. The device decodes and validates it for its chip.
  std::array<std::vector<uint8_t>, isa::kEngineCount> streams;
  simulator::dma::DescriptorTable descriptors;  // for dma_trigger
  // Optional, in-process only: per engine, `streams[e]` already decoded and validated by the
  // caller (the runtime's load does it once, isa::DecodeValidatedStream). The sim back end
  // keeps these instead of decoding the streams a second time when they were validated against
  // its chip's limits, sharing them with the caller (held once); it decodes any engine left
  // null. They must be the decoding of `streams` — the caller's promise, as for any in-process
  // pointer. The remote back end ignores them: only the stream bytes cross the wire.
  std::array<std::shared_ptr<const isa::ValidatedProgram>, isa::kEngineCount> decoded;
};

// An HBM variable (NEFF var_id) bound to `size` bytes at `offset` of device memory `memory`
// (a MemoryHandle of driver/device.h). The chip model sees exactly those `size` bytes as the
// variable; a var_id the program names but no binding gives is an execution error.
struct VarBinding {
  uint32_t var_id = 0;
  uint64_t memory = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  // The variable is one of the NEFF's outputs (a caller's output tensor or its staged copy).
  // Only fault injection reads it: `corrupt` overwrites output bytes (docs/faults.md).
  bool output = false;
};

struct CoreExecution {
  ProgramHandle program = kInvalidProgramHandle;
  int chip = 0;
  int physical_core = 0;  // chip-local; must be held by this connection (AcquireCores)
  std::vector<VarBinding> vars;
};

// The execution is one rank of a collective communicator: its `collective` instructions meet
// the other ranks' (simulator/collective/collective_hub.h; the device adds the chip).
struct CollectiveMembership {
  std::string communicator;  // NEURON_RT_ROOT_COMM_ID
  uint32_t rank = 0;
  uint32_t world_size = 1;
  uint64_t execution_sequence = 0;  // the model's n-th execution on this rank (from 0)
};

struct ExecutionRequestOptions {
  std::chrono::milliseconds host_timeout{0};  // 0: none
  bool stochastic_rounding = false;
  // Per core of the request, in order: the seed of its stochastic-rounding stream (the core's
  // reference::CoreState::rounding_seed). Empty: every seed is 0.
  std::vector<uint64_t> rounding_seeds;
  // Set for models loaded with nrt_load_collectives; unset, a `collective` instruction is an
  // execution error.
  std::optional<CollectiveMembership> collective;
  // Not sent over the wire: when set and it becomes true, the execution stops early with
  // NRT_FAILURE (neurond sets it when the session that asked for the execution ends).
  const std::atomic<bool>* cancel = nullptr;
  // Not sent over the wire: when set, the chip model records the execution's events into it
  // (simulator/core/trace.h); the remote back end asks neurond to record it
  // (ExecutionOptions.record_trace) and fills it from the reply.
  simulator::core::ExecutionTrace* trace = nullptr;
  // Not sent over the wire: the scheduler events the execution may run before NRT_TIMEOUT
  // (simulator::core::ExecuteOptions::max_events); 0: the chip model's default. neurond sets
  // its --max-exec-events.
  uint64_t max_events = 0;
  // Not sent over the wire: the longest the chip model may run in host time, whatever
  // host_timeout says (also when it is 0: none); 0: no ceiling. Only the simulation is bounded
  // by it — a collective's wait for other ranks keeps host_timeout. neurond sets its
  // --max-exec-ms.
  std::chrono::milliseconds max_host_time{0};
  // Not sent over the wire: the fault plan of the connection the execution belongs to
  // (driver/faults/fault_plan.h; neurond passes its session's). The back end applies it once
  // it has claimed the cores. Null: the device's own (DeviceOptions::faults), if any.
  faults::FaultPlan* faults = nullptr;
};

}  // namespace trnsim::driver
