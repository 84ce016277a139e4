// Runtime: execution — binding and pinning (PinExecution), nrt_execute's run with no lock held,
// output completions, and the last-execution record (execution/executor.h does the run).
#include <algorithm>

#include "runtime/runtime.h"

namespace trnsim::runtime {

Status Runtime::CheckExecution(const model::Model* handle, const TensorSet* inputs,
                               const TensorSet* outputs) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, models_->Pin(handle));
  {
    std::shared_lock objects(objects_mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckSetLocked(inputs));
    TRNSIM_RETURN_IF_ERROR(CheckSetLocked(outputs));
  }
  return model->CheckExecutable();
}

StatusOr<Runtime::ExecutionPins> Runtime::PinExecution(const model::Model* model,
                                                       const TensorSet* inputs,
                                                       const TensorSet* outputs, int repeat) {
  ExecutionPins pins;
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(pins.model, models_->Pin(model));
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(inputs));
  TRNSIM_RETURN_IF_ERROR(CheckSetLocked(outputs));
  TRNSIM_RETURN_IF_ERROR(model->CheckExecutable());
  if (repeat < 1) {
    return InvalidError("repeat count " + std::to_string(repeat) + " is not a positive number");
  }
  StatusOr<execution::IoBinding> binding =
      execution::IoBinding::Bind(model->tensors(), *inputs, *outputs);
  if (!binding.ok()) {
    return Status(binding.status().code(), "model '" + model->name() + "' on logical core " +
                                               std::to_string(model->vnc()) + ": " +
                                               binding.status().message());
  }
  pins.binding = std::move(*binding);
  for (Tensor* tensor : pins.binding.tensors()) {
    pins.executing.push_back(tensor);
    // A set names live tensors only (FreeTensor removes them from every set).
    std::shared_ptr<Tensor>& reference = tensors_.at(tensor);
    if (std::find(pins.tensors.begin(), pins.tensors.end(), reference) == pins.tensors.end()) {
      pins.tensors.push_back(reference);
    }
  }
  executing_.Acquire(pins.executing);  // under objects_mutex_: AttachBuffer sees it
  pins.ticket = gate_.Enter();
  return pins;
}

void Runtime::CompleteOutputs(const ExecutionPins& pins) {
  std::vector<const void*> outputs;
  std::shared_lock objects(objects_mutex_);
  for (const neff::TensorDecl& declared : pins.model->tensors()) {
    if (declared.usage != neff::TensorUsage::kOutput) continue;
    const Tensor* tensor = pins.binding.Find(declared.name);
    // A tensor freed during the run has no completion count any more.
    if (tensor != nullptr && tensors_.count(tensor)) outputs.push_back(tensor);
  }
  output_completions_.Complete(outputs);
}

Status Runtime::Execute(const model::Model* model, const TensorSet* inputs,
                        const TensorSet* outputs, int repeat) {
  const uint64_t started_ns = profiling::SysTraceRecorder::NowNs();
  // From here on no lock is held: the pins keep the runtime, the model and the tensors alive.
  TRNSIM_ASSIGN_OR_RETURN(ExecutionPins pins, PinExecution(model, inputs, outputs, repeat));
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
  Status ran = executor_->Execute(*pins.model, core_map_->Locate(model->vnc()),
                                  models_->scratchpad(model->vnc()), pins.binding, repeat);
  executing_.Release(pins.executing);
  CompleteOutputs(pins);
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

StatusOr<execution::ExecutionRecord> Runtime::GetLastExecution(const model::Model* handle) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, models_->Pin(handle));
  std::optional<execution::ExecutionRecord> record = executor_->Last(model.get());
  if (!record) {
    return InvalidError("model '" + model->name() +
                        "' has not been executed since it was "
                        "loaded");
  }
  return *record;
}

}  // namespace trnsim::runtime
