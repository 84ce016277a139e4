// The explicit async API (nrt/nrt_async.h, nrta_*, symbol version NRT_3.0.0). Execution-unit
// queues arrive with the async API; until then every entry point validates its arguments
// (NULL pointers, queue and XU ranges, the core) and the lifecycle, then reports
// NotImplemented (docs/api-status.md).
#include <optional>
#include <string>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_async.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

namespace {

constexpr char kAsync[] = "execution-unit queues (arrive with the async API)";

// Queues per XU type, indexed by nrta_xu_t (see the enum's comment in nrt/nrt_async.h).
constexpr int kQueuesPerXu[NRTA_XU_TYPE_NUM] = {2, 1, 3};

trnsim::Status CheckQueue(int64_t xu, int queue) {
  if (xu < 0 || xu >= NRTA_XU_TYPE_NUM) {
    return trnsim::InvalidError("execution unit " + std::to_string(xu) + " is not an nrta_xu_t");
  }
  if (queue < 0 || queue >= kQueuesPerXu[xu]) {
    return trnsim::InvalidError("queue " + std::to_string(queue) + " is not one of the " +
                                std::to_string(kQueuesPerXu[xu]) + " queues of XU " +
                                std::to_string(xu));
  }
  return trnsim::Status::Ok();
}

// The common tail of every call: the queue verdict, then the lifecycle (and the core, when the
// call names one), then NotImplemented.
NRT_STATUS NotYet(const char* function, const trnsim::Status& queue_ok,
                  std::optional<int64_t> lnc) {
  if (!queue_ok.ok()) return Report(function, queue_ok);
  trnsim::Status ready = lnc ? CheckInitializedVnc(*lnc) : Rt().CheckInitialized();
  if (!ready.ok()) return Report(function, ready);
  return NotImplemented(function, kAsync);
}

// Tensor reads, writes and copies: the tensor-op XU of core `lnc_idx`.
NRT_STATUS TensorOp(const char* function, int lnc_idx, int queue, const NRT_STATUS* ret,
                    const nrta_seq_t* req_sequence) {
  if (ret == nullptr) return NullArgument(function, "ret");
  if (req_sequence == nullptr) return NullArgument(function, "req_sequence");
  return NotYet(function, CheckQueue(NRTA_XU_TENSOR_OP, queue), lnc_idx);
}

}  // namespace

extern "C" {

NRT_STATUS nrta_tensor_write(nrt_tensor_t* tensor, const void* buf, uint64_t offset, uint64_t size,
                             int lnc_idx, int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  if (buf == nullptr) return NullArgument(__func__, "buf");
  return TensorOp(__func__, lnc_idx, queue, ret, req_sequence);
}

NRT_STATUS nrta_tensor_read(void* buf, nrt_tensor_t* tensor, uint64_t offset, uint64_t size,
                            int lnc_idx, int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
  if (buf == nullptr) return NullArgument(__func__, "buf");
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  return TensorOp(__func__, lnc_idx, queue, ret, req_sequence);
}

NRT_STATUS nrta_tensor_copy(nrt_tensor_t* src, uint64_t src_offset, nrt_tensor_t* dst,
                            uint64_t dst_offset, uint64_t size, int lnc_idx, int queue,
                            NRT_STATUS* ret, nrta_seq_t* req_sequence) {
  if (src == nullptr) return NullArgument(__func__, "src");
  if (dst == nullptr) return NullArgument(__func__, "dst");
  return TensorOp(__func__, lnc_idx, queue, ret, req_sequence);
}

NRT_STATUS nrta_execute_schedule(nrt_model_t* model, const nrt_tensor_set_t* input,
                                 nrt_tensor_set_t* output, int queue, NRT_STATUS* ret,
                                 nrta_seq_t* req_sequence) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (input == nullptr) return NullArgument(__func__, "input");
  if (output == nullptr) return NullArgument(__func__, "output");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  return NotYet(__func__, CheckQueue(NRTA_XU_COMPUTE, queue), std::nullopt);
}

NRT_STATUS nrta_cc_prepare(nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output,
                           nrt_dtype_t dtype, nrt_op_type_t op, nrt_cc_op_type_t cc_op,
                           nrt_cc_context_t** cc_ctx) {
  if (comm == nullptr) return NullArgument(__func__, "comm");
  if (input == nullptr) return NullArgument(__func__, "input");
  if (output == nullptr) return NullArgument(__func__, "output");
  if (cc_ctx == nullptr) return NullArgument(__func__, "cc_ctx");
  if (cc_op < NRT_CC_ALLGATHER || cc_op > NRT_CC_REDUCESCATTER) {
    return Report(__func__, trnsim::InvalidError("cc_op " + std::to_string(cc_op) +
                                                 " is not an nrt_cc_op_type_t"));
  }
  return NotYet(__func__, trnsim::Status::Ok(), comm->vnc);
}

NRT_STATUS nrta_cc_schedule(nrt_cc_context_t** cc_ctx, int queue, NRT_STATUS* ret,
                            nrta_seq_t* req_sequence) {
  if (cc_ctx == nullptr || *cc_ctx == nullptr) return NullArgument(__func__, "cc_ctx");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  return NotYet(__func__, CheckQueue(NRTA_XU_COLLECTIVES, queue), std::nullopt);
}

NRT_STATUS nrta_is_completed(nrta_seq_t seq, bool* is_completed) {
  if (is_completed == nullptr) return NullArgument(__func__, "is_completed");
  return NotYet(__func__, trnsim::Status::Ok(), std::nullopt);
}

NRT_STATUS nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t* seq) {
  if (seq == nullptr) return NullArgument(__func__, "seq");
  return NotYet(__func__, CheckQueue(xu, queue), lnc);
}

NRT_STATUS nrta_event_register_seq_id_completion(nrta_seq_t seq, int fd) {
  if (fd < -1) {
    return Report(__func__, trnsim::InvalidError("fd " + std::to_string(fd) +
                                                 " is neither a descriptor nor -1"));
  }
  return NotYet(__func__, trnsim::Status::Ok(), std::nullopt);
}

NRT_STATUS nrta_event_register_xu_completion(int lnc, nrta_xu_t xu, int queue, int fd) {
  if (fd < -1) {
    return Report(__func__, trnsim::InvalidError("fd " + std::to_string(fd) +
                                                 " is neither a descriptor nor -1"));
  }
  return NotYet(__func__, CheckQueue(xu, queue), lnc);
}

}  // extern "C"
