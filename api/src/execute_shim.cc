// Execution: nrt_execute, nrt_execute_repeat, implicit async mode and the output completion
// counters. nrt_execute* check their arguments here, then Executions::Execute checks the handles,
// the executability of the model and the tensor sets, and runs the model on the chip model
// (runtime/execution/). In implicit async mode (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS > 0)
// they queue the execution instead (Executions::ExecuteAsync) and its status goes to the callback
// of nrt_register_async_exec_callback (docs/async.md). Every execution request advances the
// completion counters of its output tensors when it finishes (TensorTable::WaitOutputCompletion).
#include <mutex>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::api::Unwrap;
using trnsim::api::UnwrapSet;
using trnsim::runtime::model::Model;

namespace {

// The implicit-async completion callback (nrt_register_async_exec_callback); none registered:
// failures are logged (AWS uses a default callback).
struct AsyncCallback {
  std::mutex mutex;
  NRT_ASYNC_EXEC_STATUS_CALLBACK callback = nullptr;
  void* params = nullptr;
};

AsyncCallback& Callback() {
  static AsyncCallback* callback = new AsyncCallback;  // never destroyed: workers may outlive main
  return *callback;
}

NRT_STATUS Execute(const char* function, const nrt_model_t* model,
                   const nrt_tensor_set_t* input_set, const nrt_tensor_set_t* output_set,
                   int repeat) {
  if (model == nullptr) return NullArgument(function, "model");
  if (input_set == nullptr) return NullArgument(function, "input_set");
  if (output_set == nullptr) return NullArgument(function, "output_set");
  const auto* loaded = reinterpret_cast<const Model*>(model);
  trnsim::StatusOr<uint32_t> depth = Rt().executions().ImplicitAsyncDepth();
  if (!depth.ok()) return Report(function, depth.status());
  if (*depth == 0) {
    return Report(function, Rt().executions().Execute(loaded, UnwrapSet(input_set),
                                                      UnwrapSet(output_set), repeat));
  }
  trnsim::StatusOr<trnsim::runtime::ModelInfo> info = Rt().models().Info(loaded);
  if (!info.ok()) return Report(function, info.status());
  const uint32_t model_id = uint32_t(info->model_id);
  const uint32_t vnc = uint32_t(info->vnc);
  auto done = [function, model_id, vnc](uint64_t job, const trnsim::Status& status) {
    const NRT_STATUS code = Report(function, status);
    AsyncCallback& registered = Callback();
    NRT_ASYNC_EXEC_STATUS_CALLBACK callback;
    void* params;
    {
      std::lock_guard lock(registered.mutex);
      callback = registered.callback;
      params = registered.params;
    }
    if (callback != nullptr) callback(params, model_id, vnc, job, code);
  };
  trnsim::StatusOr<uint64_t> job = Rt().executions().ExecuteAsync(
      loaded, UnwrapSet(input_set), UnwrapSet(output_set), repeat, done);
  return Report(function, job.status());
}

}  // namespace

extern "C" {

NRT_STATUS nrt_execute(nrt_model_t* model, const nrt_tensor_set_t* input_set,
                       nrt_tensor_set_t* output_set) {
  return Execute(__func__, model, input_set, output_set, 1);
}

// Runs the model repeat_count times with the same bindings (AWS feeds iteration n-1's outputs
// to iteration n only for NEFFs compiled for it; trnsim's NEFFs bind by name every time).
NRT_STATUS nrt_execute_repeat(nrt_model_t* model, const nrt_tensor_set_t* input_set,
                              nrt_tensor_set_t* output_set, int repeat_count) {
  if (repeat_count < 1) {
    return Report(__func__, trnsim::InvalidError("repeat_count " + std::to_string(repeat_count) +
                                                 " is not a positive number of runs"));
  }
  return Execute(__func__, model, input_set, output_set, repeat_count);
}

// Registering again replaces the callback; `params` comes back unchanged. Completions already
// being reported finish with the old one.
NRT_STATUS nrt_register_async_exec_callback(NRT_ASYNC_EXEC_STATUS_CALLBACK callback, void* params) {
  if (callback == nullptr) return NullArgument(__func__, "callback");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  AsyncCallback& registered = Callback();
  std::lock_guard lock(registered.mutex);
  registered.callback = callback;
  registered.params = params;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_async_drain_queued_execs(int32_t vnc) {
  trnsim::Status ready = CheckInitializedVnc(vnc);
  if (!ready.ok()) return Report(__func__, ready);
  return Report(__func__, Rt().executions().Drain(vnc));
}

// Not gated on the lifecycle state, as AWS's (a handle is only live while initialised).
// `timeout` is in microseconds; negative waits for ever.
NRT_STATUS nrt_tensor_check_output_completion(const nrt_tensor_t* output_tensor, int64_t timeout,
                                              uint64_t expected_completion_count) {
  if (output_tensor == nullptr) return NullArgument(__func__, "output_tensor");
  return Report(__func__, Rt().tensors().WaitOutputCompletion(Unwrap(output_tensor), timeout,
                                                              expected_completion_count));
}

NRT_STATUS nrt_tensor_reset_output_completion(nrt_tensor_t* output_tensor) {
  if (output_tensor == nullptr) return NullArgument(__func__, "output_tensor");
  return Report(__func__, Rt().tensors().ResetOutputCompletion(Unwrap(output_tensor)));
}

}  // extern "C"
