// Executor: runs loaded models on the Device (driver::Device::Execute, which runs the chip
// model where the device memory lives) — the engine behind nrt_execute. One per initialised
// Runtime.
//
// An execution of a model on vnc v (LNC = n) is one Device::Execute call with one
// driver::CoreExecution per physical core of v: subgraph k runs on physical core
// first_physical + k with the program the model loaded for it (Model::program_handle) and a
// VarBinding for every HBM variable (var_bindings.h). Host-side input/output tensors are staged
// in temporary device memory for the run (host_staging.h). Pointer and dge-table variables
// referencing inputs/outputs are rewritten first (io_address_tables.h).
//
// Core state (SBUF/PSUM persistence, semaphore and event reset) lives in the device back end
// (driver/sim/sim_device.h). Stochastic rounding: the seed of subgraph k's core in execution n
// of a model derives from (NEURON_RT_STOCHASTIC_ROUNDING_SEED, n, k) and is passed per core.
//
// Serialisation: the core's claim (runtime/core_claims.h) around every run on it (address
// rewriting, staging, Device::Execute): executions on distinct logical cores run concurrently —
// which collective ranks in one process need, as each waits in the device for the others. The
// caller keeps the model and the bound tensors alive for the run (the Runtime pins them).
//
// Statistics: the result of each model's last successful execution and its execution count are
// kept until Forget (nrt_unload). With `report` set (TRNSIM_EXEC_REPORT) every execution writes
// one INFO line (exec_report.h).
//
// Captures (executor_capture.cc): before a run the executor asks every device-profile capture
// whether it wants the run — the model's nrt_profile_start profile, the core's profile session
// (core_sessions()), continuous profiling (continuous()) and the inspect session's device
// profiles (SetInspectCapture) — and asks the device for a trace only if one does; after it,
// each gets the traced execution. The system trace gets the run's software span
// (runtime_execute) and its hardware events in device time (profiling/device_events.h).
//
// Errors: the device's (NRT_TIMEOUT / NRT_INVALID from the chip model, NRT_RESOURCE when a host
// tensor cannot be staged), each prefixed with the model's name and vnc; with check_numerics,
// NRT_EXEC_COMPLETED_WITH_NUM_ERR for a completed execution whose outputs hold NaN/Inf (it
// still counts as an execution). Thread safety: all
// methods.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "common/status.h"
#include "driver/device.h"
#include "runtime/core_claims.h"
#include "runtime/core_map.h"
#include "runtime/debug/debug_streams.h"
#include "runtime/execution/io_binding.h"
#include "runtime/model/model.h"
#include "runtime/model/shared_scratchpad.h"
#include "runtime/profiling/continuous_profiler.h"
#include "runtime/profiling/core_profile_sessions.h"
#include "runtime/profiling/device_events.h"
#include "runtime/profiling/format/profile_writer.h"
#include "runtime/profiling/inspect_device_selector.h"
#include "runtime/profiling/profile_sessions.h"
#include "runtime/profiling/sys_trace_recorder.h"
#include "simulator/core/trace.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::runtime::execution {

struct ExecutorOptions {
  std::chrono::milliseconds host_timeout{0};  // per execution (NEURON_RT_EXEC_TIMEOUT); 0: none
  bool report = false;                        // TRNSIM_EXEC_REPORT
  bool stochastic_rounding = false;           // NEURON_RT_STOCHASTIC_ROUNDING_EN
  uint64_t rounding_seed = 0;                 // NEURON_RT_STOCHASTIC_ROUNDING_SEED
  // NEURON_RT_NUMERICAL_ERRORS_VERBOSITY=critical / NEURON_FAIL_ON_NAN: scan the floating-point
  // outputs of every completed execution (numerical_check.h).
  bool check_numerics = false;
  std::string instance_name;  // for profile headers ("trn2.48xlarge")
  // The system trace each run records into (runtime_execute: the run's host time;
  // nc_exec_running: the simulated run on the device). Null: nothing recorded.
  profiling::SysTraceRecorder* sys_trace = nullptr;
  // Where the device prints of every successful execution go (debug/debug_streams.h), with
  // their prefixes from the model's NEFF; null: they are dropped. Failed executions deliver
  // none.
  debug::DebugStreams* debug_streams = nullptr;
  // The per-core run locks, shared with the model registry's loads and unloads; must outlive
  // the executor. Null: the executor keeps its own.
  CoreClaims* core_claims = nullptr;
};

// What an inspect session asks of executions (profiling/inspect_session.h): device profiles of
// the executions `mode` selects, and with `on_fail` of every execution that fails, written to
// `dir` as profile_nc_<vnc>_session_<n>.ntff (n = 1, 2, ... over the process's inspect
// profiles).
struct InspectDeviceCapture {
  std::string dir;
  profiling::DeviceProfileMode mode = profiling::DeviceProfileMode::kDisabled;
  uint64_t num_warmup = 0;  // model mode: executions skipped before the profiled one
  bool on_fail = false;
  int session_id = 0;  // recorded in each profile (nrt_inspect_config_set_session_id)
  bool any() const { return mode != profiling::DeviceProfileMode::kDisabled || on_fail; }
};

// What nrt_execute left behind for a model (trnsim_get_execution_stats).
struct ExecutionRecord {
  driver::ExecutionResult last;  // the last successful execution
  uint64_t execution_count = 0;  // successful executions since load
  uint64_t attempts = 0;         // executions started since load (failed included)
  uint64_t host_ns = 0;          // host time the last execution took
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
  // Drops the record of the model `model` pointed to, whose id was `model_id` (it has been
  // unloaded: `model` is only a key and may already be destroyed, so it is never dereferenced);
  // a profile of it stops capturing.
  void Forget(const model::Model* model, uint64_t model_id);

  // Device profiles (runtime/profiling/profile_sessions.h): capture every execution of `model`
  // from now until StopProfile(filename) writes them to `filename`.
  Status StartProfile(const model::Model& model, const std::string& filename);
  Status StopProfile(const std::string& filename);

  // Per-core profile sessions (nrt_profile_session_*) and continuous profiling: the executor
  // feeds them; the runtime starts, stops and writes them.
  profiling::CoreProfileSessions& core_sessions() { return core_sessions_; }
  profiling::ContinuousProfiler& continuous() { return continuous_; }

  // The inspect session's device profiles from the next execution on (an empty capture ends
  // them). Model-mode counts start afresh.
  void SetInspectCapture(InspectDeviceCapture capture);
  bool inspect_capturing() const;

 private:
  // Which captures want a run (decided before it).
  struct CaptureWants {
    bool model_profile = false;  // nrt_profile_start of the model
    bool core_session = false;   // a profile session on its core
    bool continuous = false;
    bool inspected = false;  // the inspect session's device-profile mode selects it
    bool inspect_on_fail = false;
    std::string inspect_dir;
    int inspect_session_id = 0;
    bool any() const {
      return model_profile || core_session || continuous || inspected || inspect_on_fail;
    }
  };
  // A run's outcome as the captures and the system trace see it.
  struct RunOutcome {
    uint64_t exec_id = 0;
    uint64_t run_started_ns = 0;  // host time the run began
    uint64_t sync_cpu_ns = 0;     // host time the device's result came back
    Status status;                // what the run returns (device, copy-out, numerics)
    std::optional<profiling::DeviceNumericalError> numerical_error;
  };

  Status RunOnce(const model::Model& model, const CoreLocation& where,
                 const model::SharedScratchpad& scratchpad, const IoBinding& binding);
  profiling::ProfileHeader HeaderFor(const model::Model& model) const;
  CaptureWants WantsCapture(const model::Model& model);
  // Hands a traced execution to every capture in `wants`.
  void Capture(const model::Model& model, const CaptureWants& wants,
               profiling::ProfiledExecution execution);
  // Hands the result's device prints to options_.debug_streams, then drops them from it.
  void DeliverDebugPrints(const model::Model& model, driver::ExecutionResult& result);
  // Records the system-trace events of a run: runtime_execute over [run_started_ns, now), and,
  // when the device ran it, its hardware events (profiling/device_events.h) on `cores`.
  void TraceRun(const model::Model& model, std::span<const driver::CoreExecution> cores,
                const StatusOr<driver::ExecutionResult>& result, const RunOutcome& outcome);

  driver::Device* device_;
  const simulator::ChipSpec& chip_;
  ExecutorOptions options_;

  // NRT_EXEC_COMPLETED_WITH_NUM_ERR naming the first floating-point output of `model` that
  // holds NaN or Inf after a run (numerical_check.h), described in `*found`; OK otherwise.
  Status CheckOutputs(const model::Model& model, const IoBinding& binding,
                      std::optional<profiling::DeviceNumericalError>* found) const;
  CoreClaims own_claims_;  // used when options_.core_claims is null
  CoreClaims* claims_;

  mutable std::mutex state_mutex_;  // guards runs_, inspect_*
  mutable std::mutex records_mutex_;  // guards records_
  std::unordered_map<const model::Model*, ExecutionRecord> records_;
  profiling::ProfileSessions profiles_;
  profiling::CoreProfileSessions core_sessions_;
  profiling::ContinuousProfiler continuous_;
  uint64_t inspect_sessions_ = 0;  // inspect profiles written; guarded by state_mutex_
  InspectDeviceCapture inspect_;   // guarded by state_mutex_
  profiling::InspectDeviceSelector inspect_selector_{profiling::DeviceProfileMode::kDisabled, 0};
  uint64_t runs_ = 0;  // runs started in the process (system trace exec_id); state_mutex_
};

}  // namespace trnsim::runtime::execution
