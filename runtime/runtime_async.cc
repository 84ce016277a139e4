// Runtime: the explicit async API's queues and implicit async nrt_execute
// (runtime/async/execution_unit_queues.h, docs/async.md).
#include "runtime/runtime.h"

namespace trnsim::runtime {

StatusOr<uint64_t> Runtime::ScheduleAsync(int64_t lnc, int64_t xu, int64_t queue,
                                          async::AsyncRequest request) {
  std::shared_ptr<async::ExecutionUnitQueues> queues;
  async::QueueAddress address;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    TRNSIM_ASSIGN_OR_RETURN(address, async::MakeQueueAddress(lnc, xu, queue,
                                                             int(config_.visible_vnc_count)));
    queues = async_queues_;
  }
  return queues->Submit(address, std::move(request));
}

StatusOr<bool> Runtime::AsyncIsCompleted(uint64_t sequence_id) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return async_queues_->IsCompleted(sequence_id);
}

StatusOr<uint64_t> Runtime::AsyncLastCompleted(int64_t lnc, int64_t xu, int64_t queue) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(async::QueueAddress address,
                          async::MakeQueueAddress(lnc, xu, queue, int(config_.visible_vnc_count)));
  return async_queues_->LastCompleted(address);
}

Status Runtime::AsyncWatchRequest(uint64_t sequence_id, int fd) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return async_queues_->WatchRequest(sequence_id, fd);
}

Status Runtime::AsyncWatchQueue(int64_t lnc, int64_t xu, int64_t queue, int fd) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_ASSIGN_OR_RETURN(async::QueueAddress address,
                          async::MakeQueueAddress(lnc, xu, queue, int(config_.visible_vnc_count)));
  return async_queues_->WatchQueue(address, fd);
}

StatusOr<uint32_t> Runtime::ImplicitAsyncDepth() const {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return implicit_async_depth_.load();
}

StatusOr<uint64_t> Runtime::ExecuteAsync(const model::Model* model, const TensorSet* inputs,
                                         const TensorSet* outputs, int repeat,
                                         std::function<void(uint64_t, const Status&)> done) {
  std::shared_ptr<async::ExecutionUnitQueues> queues;
  std::vector<const void*> used;
  int vnc = 0;
  {
    // Validation only: Execute pins again when the execution starts.
    StatusOr<ExecutionPins> pins = PinExecution(model, inputs, outputs, repeat);
    if (!pins.ok()) return pins.status();
    executing_.Release(pins->executing);
    std::shared_lock lock(mutex_);
    if (implicit_queues_ == nullptr) {
      return FailureError("implicit async mode is off (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS "
                          "is 0)");
    }
    used = std::move(pins->executing);
    queues = implicit_queues_;
    vnc = model->vnc();
  }
  tensor_use_.Acquire(used);
  async::AsyncRequest request;
  // Execute validates every handle again when the execution starts: a model unloaded or a set
  // destroyed while it waited fails it (NRT_INVALID_HANDLE) instead of crashing.
  request.run = [this, model, inputs, outputs, repeat] {
    return Execute(model, inputs, outputs, repeat);
  };
  request.complete = [this, used, done = std::move(done)](uint64_t sequence_id,
                                                          const Status& status) {
    tensor_use_.Release(used);  // first: the callback may read the outputs
    if (done) done(sequence_id & async::kSequenceNumberMask, status);
  };
  StatusOr<uint64_t> queued =
      queues->Submit({vnc, async::XuType::kCompute, 0}, std::move(request));
  if (!queued.ok()) {
    tensor_use_.Release(used);
    return queued.status();
  }
  return *queued & async::kSequenceNumberMask;
}

Status Runtime::DrainAsync(int vnc) {
  std::shared_ptr<async::ExecutionUnitQueues> explicit_queues, implicit_queues;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    explicit_queues = async_queues_;
    implicit_queues = implicit_queues_;
  }
  if (async::OnQueueWorker()) {
    return InvalidError("cannot drain the queues from a completion callback (it runs on a "
                        "queue's own thread)");
  }
  if (implicit_queues) implicit_queues->Drain(vnc);
  explicit_queues->Drain(vnc);
  return Status::Ok();
}

void Runtime::WaitUntilTensorUnused(const Tensor* tensor) {
  // A completion callback runs on a queue's thread: waiting there for a later execution of the
  // same queue would never end.
  if (implicit_async_depth_.load() == 0 || async::OnQueueWorker()) return;
  tensor_use_.WaitUntilUnused(tensor);
}

void Runtime::ShutDownAsync() {
  std::shared_ptr<async::ExecutionUnitQueues> explicit_queues, implicit_queues;
  {
    std::shared_lock lock(mutex_);
    if (state_ != State::kInit) return;
    explicit_queues = async_queues_;
    implicit_queues = implicit_queues_;
  }
  if (implicit_queues) implicit_queues->Shutdown();
  if (explicit_queues) explicit_queues->Shutdown();
}

}  // namespace trnsim::runtime
