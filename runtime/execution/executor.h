// Executor: runs loaded models on the chip model (simulator/core/execution.h) — the engine
// behind nrt_execute. One per initialised Runtime.
//
// An execution of a model on vnc v (LNC = n) is one core::Execute call with one CoreRun per
// physical core of v: subgraph k runs on physical core first_physical + k, with the model's
// decoded programs and DMA descriptor table for that subgraph, a SubgraphHbmView over its
// variables and bound tensors, and that physical core's reference::CoreState. Pointer and
// dge-table variables referencing inputs/outputs are rewritten first (io_address_tables.h).
//
// Core state: one reference::CoreState (SBUF, PSUM, semaphores, events) per physical core,
// created at the core's first execution and kept until the Executor is destroyed (nrt_close):
// SBUF and PSUM persist between executions as on hardware, and memory is spent only on cores
// that ran something. Semaphores and events are reset to 0 before every execution (the
// runtime's job on hardware too): a kernel's waits count its own execution's updates.
//
// Serialisation: one mutex around every core::Execute call, so at most one execution runs in
// the process at a time, whatever its core. Simple and safe (CoreStates and the shared
// scratchpad are never used by two executions at once); executions on distinct cores could run
// concurrently — the neurond milestone refines this to one lock per physical core.
//
// Statistics: the result of each model's last successful execution and its execution count are
// kept until Forget (nrt_unload). With `report` set (TRNSIM_EXEC_REPORT) every execution writes
// one INFO line (exec_report.h).
//
// Errors: the chip model's NRT_TIMEOUT / NRT_INVALID, and NRT_FAILURE when device memory is not
// host-addressable; each prefixed with the model's name and vnc. Thread safety: all methods.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/status.h"
#include "driver/device.h"
#include "runtime/core_map.h"
#include "runtime/execution/io_binding.h"
#include "runtime/model/model.h"
#include "runtime/model/shared_scratchpad.h"
#include "simulator/core/execution.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::runtime::execution {

struct ExecutorOptions {
  std::chrono::milliseconds host_timeout{0};  // per execution (NEURON_RT_EXEC_TIMEOUT); 0: none
  bool report = false;                        // TRNSIM_EXEC_REPORT
  bool stochastic_rounding = false;           // NEURON_RT_STOCHASTIC_ROUNDING_EN
  uint64_t rounding_seed = 0;                 // NEURON_RT_STOCHASTIC_ROUNDING_SEED
};

// What nrt_execute left behind for a model (trnsim_get_execution_stats).
struct ExecutionRecord {
  simulator::core::ExecutionResult last;  // the last successful execution
  uint64_t execution_count = 0;           // successful executions since load
  uint64_t host_ns = 0;                   // host time the last execution took
};

class Executor {
 public:
  // `device` and `chip` must outlive the executor.
  Executor(driver::Device* device, const simulator::ChipSpec& chip, ExecutorOptions options);
  ~Executor();

  // Runs `model` (loaded at `where`, using the vnc's `scratchpad`) `repeat` times with the
  // same bindings; stops at the first failing run.
  Status Execute(const model::Model& model, const CoreLocation& where,
                 const model::SharedScratchpad& scratchpad, const IoBinding& binding, int repeat);

  // The model's record; nullopt when it has not executed successfully since it was loaded.
  std::optional<ExecutionRecord> Last(const model::Model* model) const;
  // Drops the model's record (it is being unloaded).
  void Forget(const model::Model* model);

 private:
  Status RunOnce(const model::Model& model, const CoreLocation& where,
                 const model::SharedScratchpad& scratchpad, const IoBinding& binding);
  reference::CoreState* StateOf(int physical_core);

  driver::Device* device_;
  const simulator::ChipSpec& chip_;
  ExecutorOptions options_;

  std::mutex execute_mutex_;  // held across core::Execute; guards core_states_
  std::unordered_map<int, std::unique_ptr<reference::CoreState>> core_states_;
  mutable std::mutex records_mutex_;  // guards records_
  std::unordered_map<const model::Model*, ExecutionRecord> records_;
};

}  // namespace trnsim::runtime::execution
