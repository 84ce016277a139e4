// Execution: nrt_execute, nrt_execute_repeat, the implicit-async helpers and the output
// completion counters. nrt_execute* check their arguments here, then Runtime::Execute checks
// the handles, the executability of the model and the tensor sets, and runs the model on the
// chip model (runtime/execution/). The implicit-async helpers and completion counters are not
// built yet (docs/api-status.md).
#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::api::UnwrapSet;
using trnsim::runtime::model::Model;

namespace {

constexpr char kCompletion[] =
    "output completion counters, which executions advance (arrive with the chip model)";

NRT_STATUS Execute(const char* function, const nrt_model_t* model,
                   const nrt_tensor_set_t* input_set, const nrt_tensor_set_t* output_set,
                   int repeat) {
  if (model == nullptr) return NullArgument(function, "model");
  if (input_set == nullptr) return NullArgument(function, "input_set");
  if (output_set == nullptr) return NullArgument(function, "output_set");
  return Report(function, Rt().Execute(reinterpret_cast<const Model*>(model), UnwrapSet(input_set),
                                       UnwrapSet(output_set), repeat));
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

NRT_STATUS nrt_register_async_exec_callback(NRT_ASYNC_EXEC_STATUS_CALLBACK callback, void* params) {
  if (callback == nullptr) return NullArgument(__func__, "callback");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  return NotImplemented(__func__, "implicit async execution (arrives with the chip model)");
}

NRT_STATUS nrt_async_drain_queued_execs(int32_t vnc) {
  trnsim::Status ready = CheckInitializedVnc(vnc);
  if (!ready.ok()) return Report(__func__, ready);
  return NotImplemented(__func__, "implicit async execution (arrives with the chip model)");
}

// Not gated on the lifecycle state, as AWS's.
NRT_STATUS nrt_tensor_check_output_completion(const nrt_tensor_t* output_tensor, int64_t timeout,
                                              uint64_t expected_completion_count) {
  if (output_tensor == nullptr) return NullArgument(__func__, "output_tensor");
  return NotImplemented(__func__, kCompletion);
}

NRT_STATUS nrt_tensor_reset_output_completion(nrt_tensor_t* output_tensor) {
  if (output_tensor == nullptr) return NullArgument(__func__, "output_tensor");
  return NotImplemented(__func__, kCompletion);
}

}  // extern "C"
