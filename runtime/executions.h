// Executions: nrt_execute and its relatives — the checks nrt_execute makes before running, the
// run itself (execution/executor.h does the work), implicit async nrt_execute
// (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS) on its own queues, and the last-execution
// record. An execution holds no lock for its run: it pins what it uses — the runtime
// (Lifecycle::Enter), the model and the bound tensors (reference counts) — so nrt_tensor_free,
// nrt_load and nrt_unload return while it runs (say, waiting in a collective), and a freed
// tensor's or an unloaded model's memory goes at its end. Executions on one logical core are
// serialised by the core's claim; on distinct cores they run at once.
//
// Thread safety: every method. Calls return the lifecycle's statuses unless initialised.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "common/status.h"
#include "runtime/execution/executor.h"
#include "runtime/lifecycle.h"
#include "runtime/model/model.h"
#include "runtime/profiling/sys_trace_recorder.h"
#include "runtime/tensor_set.h"
#include "runtime/tensor_table.h"

namespace trnsim::runtime {

class Executions {
 public:
  // Each valid nrt_execute is an nrt_execute span of `sys_trace` on its core.
  Executions(Lifecycle& lifecycle, TensorTable& tensors, profiling::SysTraceRecorder& sys_trace)
      : lifecycle_(lifecycle), tensors_(tensors), sys_trace_(sys_trace) {}
  Executions(const Executions&) = delete;
  Executions& operator=(const Executions&) = delete;

  // What nrt_execute can check before running: the model and both tensor-set handles, and that
  // the model is executable (NRT_INVALID with model::kForeignModelMessage when foreign).
  Status Check(const model::Model* model, const TensorSet* inputs, const TensorSet* outputs);
  // Runs `model` `repeat` (>= 1) times on its vnc, binding the NEFF's declared inputs and
  // outputs by name from `inputs` and `outputs` (execution/io_binding.h: a missing tensor or a
  // size mismatch is NRT_INVALID before anything runs; extra names are ignored). Errors: those
  // of Check; NRT_TIMEOUT (deadlock, or longer than NEURON_RT_EXEC_TIMEOUT) and NRT_INVALID
  // (an execution error), prefixed with the model's name and vnc. When it ends, whatever its
  // status, each bound output tensor's completion count goes up by 1.
  Status Execute(const model::Model* model, const TensorSet* inputs, const TensorSet* outputs,
                 int repeat);
  // The model's last successful execution and its count; NRT_INVALID when it has not executed
  // since it was loaded.
  StatusOr<execution::ExecutionRecord> Last(const model::Model* model);

  // --- Implicit async nrt_execute --------------------------------------------------------
  // The in-flight cap per logical core; 0 when nrt_execute blocks (the default).
  StatusOr<uint32_t> ImplicitAsyncDepth() const;
  // Validates as Execute does (so a bad binding fails here, synchronously), marks the bound
  // tensors in use (reads and writes of them wait until the execution completes), queues the
  // execution on the model's core and returns its job id (the core's running count of queued
  // executions, from 1). `done` receives the job id and the execution's status on the queue's
  // thread. NRT_QUEUE_FULL when the core already has the cap in flight; NRT_FAILURE when
  // implicit async is off.
  StatusOr<uint64_t> ExecuteAsync(const model::Model* model, const TensorSet* inputs,
                                  const TensorSet* outputs, int repeat,
                                  std::function<void(uint64_t job, const Status&)> done);
  // Blocks until every execution queued on process-relative core `vnc` — nrt_execute's and
  // the nrta_* queues' — has completed. NRT_INVALID from a completion callback (it runs on a
  // queue's own thread).
  Status Drain(int vnc);

 private:
  // What an execution holds from its binding to its end instead of a lock (members are
  // released in reverse order: the lifecycle's pass last).
  struct Pins {
    Lifecycle::Entered entered;
    std::shared_ptr<const model::Model> model;
    BoundTensors tensors;
  };
  // Execute's checks (the handles, the executability, the repeat count), then the binding,
  // whose errors name the model and its vnc; then the pins.
  StatusOr<Pins> Pin(const model::Model* model, const TensorSet* inputs, const TensorSet* outputs,
                     int repeat);

  Lifecycle& lifecycle_;
  TensorTable& tensors_;
  profiling::SysTraceRecorder& sys_trace_;
};

}  // namespace trnsim::runtime
