// Executions: nrt_execute's checks, pins and run, implicit async nrt_execute and the
// last-execution record (executions.h).
#include "runtime/executions.h"

#include <utility>

#include "runtime/async/execution_unit_queues.h"

namespace trnsim::runtime {

Status Executions::Check(const model::Model* handle, const TensorSet* inputs,
                         const TensorSet* outputs) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, session->models->Pin(handle));
  TRNSIM_RETURN_IF_ERROR(tensors_.CheckSets(inputs, outputs));
  return model->CheckExecutable();
}

StatusOr<Executions::Pins> Executions::Pin(const model::Model* model, const TensorSet* inputs,
                                           const TensorSet* outputs, int repeat) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Entered entered, lifecycle_.Enter());
  Pins pins{std::move(entered), nullptr, {}};
  TRNSIM_ASSIGN_OR_RETURN(pins.model, pins.entered->models->Pin(model));
  TRNSIM_RETURN_IF_ERROR(tensors_.CheckSets(inputs, outputs));
  TRNSIM_RETURN_IF_ERROR(model->CheckExecutable());
  if (repeat < 1) {
    return InvalidError("repeat count " + std::to_string(repeat) + " is not a positive number");
  }
  StatusOr<BoundTensors> bound = tensors_.Bind(model->tensors(), inputs, outputs);
  if (!bound.ok()) {
    return Status(bound.status().code(), "model '" + model->name() + "' on logical core " +
                                             std::to_string(model->vnc()) + ": " +
                                             bound.status().message());
  }
  pins.tensors = std::move(*bound);
  return pins;
}

Status Executions::Execute(const model::Model* model, const TensorSet* inputs,
                           const TensorSet* outputs, int repeat) {
  const uint64_t started_ns = profiling::SysTraceRecorder::NowNs();
  // From here on no lock is held: the pins keep the runtime, the model and the tensors alive.
  TRNSIM_ASSIGN_OR_RETURN(Pins pins, Pin(model, inputs, outputs, repeat));
  Session& session = *pins.entered;
  // The nrt_execute span is recorded once the call is valid; its start time is the call's.
  const uint32_t core = uint32_t(model->vnc());
  const int64_t worker_gid =
      model->collective_rank() ? int64_t(model->collective_rank()->rank) : int64_t{-1};
  uint64_t tracking_id = 0;
  if (sys_trace_.Wants(profiling::SysTraceType::kNrtExecute, core)) {
    profiling::SysTraceData start;
    start.model_name = model->name();
    start.repeat = repeat;
    start.worker_gid = worker_gid;
    tracking_id = sys_trace_.RecordStart(profiling::SysTraceType::kNrtExecute, core, started_ns,
                                         std::move(start));
  }
  Status ran = session.executor->Execute(*pins.model, session.core_map->Locate(model->vnc()),
                                         session.models->scratchpad(model->vnc()),
                                         pins.tensors.binding, repeat);
  tensors_.Unmark(pins.tensors.executing);
  std::vector<const Tensor*> bound_outputs;
  for (const neff::TensorDecl& declared : pins.model->tensors()) {
    if (declared.usage != neff::TensorUsage::kOutput) continue;
    const Tensor* tensor = pins.tensors.binding.Find(declared.name);
    if (tensor != nullptr) bound_outputs.push_back(tensor);
  }
  tensors_.CompleteOutputs(bound_outputs);
  if (tracking_id != 0) {
    profiling::SysTraceData stop;
    stop.model_name = model->name();
    stop.status = StatusCodeName(ran.code());
    stop.worker_gid = worker_gid;
    sys_trace_.RecordStop(profiling::SysTraceType::kNrtExecute, core, tracking_id,
                          profiling::SysTraceRecorder::NowNs(), std::move(stop));
  }
  return ran;
}

StatusOr<execution::ExecutionRecord> Executions::Last(const model::Model* handle) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, session->models->Pin(handle));
  std::optional<execution::ExecutionRecord> record = session->executor->Last(model.get());
  if (!record) {
    return InvalidError("model '" + model->name() + "' has not been executed since it was loaded");
  }
  return *record;
}

// --- Implicit async nrt_execute -----------------------------------------------------------------

StatusOr<uint32_t> Executions::ImplicitAsyncDepth() const {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->config.implicit_async_depth;
}

StatusOr<uint64_t> Executions::ExecuteAsync(const model::Model* model, const TensorSet* inputs,
                                            const TensorSet* outputs, int repeat,
                                            std::function<void(uint64_t, const Status&)> done) {
  std::shared_ptr<async::ExecutionUnitQueues> queues;
  std::vector<const void*> used;
  {
    // Validation only: Execute pins again when the execution starts.
    TRNSIM_ASSIGN_OR_RETURN(Pins pins, Pin(model, inputs, outputs, repeat));
    tensors_.Unmark(pins.tensors.executing);
    if (pins.entered->implicit_queues == nullptr) {
      return FailureError(
          "implicit async mode is off (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS "
          "is 0)");
    }
    used = std::move(pins.tensors.executing);
    queues = pins.entered->implicit_queues;
  }
  tensors_.MarkQueued(used);
  async::AsyncRequest request;
  // Execute validates every handle again when the execution starts: a model unloaded or a set
  // destroyed while it waited fails it (NRT_INVALID_HANDLE) instead of crashing.
  request.run = [this, model, inputs, outputs, repeat] {
    return Execute(model, inputs, outputs, repeat);
  };
  request.complete = [this, used, done = std::move(done)](uint64_t sequence_id,
                                                          const Status& status) {
    tensors_.UnmarkQueued(used);  // first: the callback may read the outputs
    if (done) done(sequence_id & async::kSequenceNumberMask, status);
  };
  StatusOr<uint64_t> queued =
      queues->Submit({model->vnc(), async::XuType::kCompute, 0}, std::move(request));
  if (!queued.ok()) {
    tensors_.UnmarkQueued(used);
    return queued.status();
  }
  return *queued & async::kSequenceNumberMask;
}

Status Executions::Drain(int vnc) {
  std::shared_ptr<async::ExecutionUnitQueues> explicit_queues, implicit_queues;
  {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    explicit_queues = session->async_queues;
    implicit_queues = session->implicit_queues;
  }
  if (async::OnQueueWorker()) {
    return InvalidError(
        "cannot drain the queues from a completion callback (it runs on a "
        "queue's own thread)");
  }
  if (implicit_queues) implicit_queues->Drain(vnc);
  explicit_queues->Drain(vnc);
  return Status::Ok();
}

}  // namespace trnsim::runtime
