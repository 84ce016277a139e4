// The explicit async API (nrt/nrt_async.h, nrta_*, symbol version NRT_3.0.0): schedule calls
// check their arguments and handles here (so a bad request fails the call itself and nothing
// is queued), then queue a request on the runtime's execution-unit queues
// (runtime/async/execution_unit_queues.h) that performs the ordinary runtime call on the
// queue's thread and writes its status to *ret. nrta_cc_prepare builds a host-driven collective
// context (runtime/collectives/host_cc_context.h) that nrta_cc_schedule runs on a collectives
// queue.
#include <limits>
#include <optional>
#include <string>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_async.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::api::Unwrap;
using trnsim::api::UnwrapSet;
using trnsim::runtime::Tensor;
using trnsim::runtime::async::AsyncRequest;

namespace {

static_assert(NRTA_XU_TENSOR_OP == int(trnsim::runtime::async::XuType::kTensorOp) &&
                  NRTA_XU_COMPUTE == int(trnsim::runtime::async::XuType::kCompute) &&
                  NRTA_XU_COLLECTIVES == int(trnsim::runtime::async::XuType::kCollectives),
              "nrta_xu_t and the runtime's XuType number the units alike");

// NRT_INVALID unless [offset, offset + size) lies inside `tensor` (which must be live).
trnsim::Status CheckRange(const Tensor* tensor, uint64_t offset, uint64_t size,
                          const char* what) {
  TRNSIM_ASSIGN_OR_RETURN(uint64_t tensor_size, Rt().tensors().Size(tensor));
  if (offset > tensor_size || size > tensor_size - offset) {
    return trnsim::InvalidError(std::string(what) + " of bytes [" + std::to_string(offset) +
                                ", " + std::to_string(offset) + " + " + std::to_string(size) +
                                ") is outside the tensor's " + std::to_string(tensor_size) +
                                " bytes");
  }
  return trnsim::Status::Ok();
}

// Queues `run` on (lnc, xu, queue); on completion its status goes to *ret (and to the log
// when it failed, tagged with `function`), then the request counts as completed.
NRT_STATUS Schedule(const char* function, int64_t lnc, nrta_xu_t xu, int64_t queue,
                    std::function<trnsim::Status()> run, NRT_STATUS* ret,
                    nrta_seq_t* req_sequence) {
  AsyncRequest request;
  request.run = std::move(run);
  request.complete = [function, ret](uint64_t, const trnsim::Status& status) {
    *ret = Report(function, status);
  };
  trnsim::StatusOr<uint64_t> queued = Rt().async().Schedule(lnc, xu, queue, std::move(request));
  if (!queued.ok()) return Report(function, queued.status());
  *req_sequence = *queued;
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

NRT_STATUS nrta_tensor_write(nrt_tensor_t* tensor, const void* buf, uint64_t offset, uint64_t size,
                             int lnc_idx, int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  if (buf == nullptr) return NullArgument(__func__, "buf");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  Tensor* target = Unwrap(tensor);
  trnsim::Status valid = CheckRange(target, offset, size, "a write");
  if (!valid.ok()) return Report(__func__, valid);
  return Schedule(
      __func__, lnc_idx, NRTA_XU_TENSOR_OP, queue,
      [=] { return Rt().tensors().Write(target, buf, offset, size); }, ret, req_sequence);
}

NRT_STATUS nrta_tensor_read(void* buf, nrt_tensor_t* tensor, uint64_t offset, uint64_t size,
                            int lnc_idx, int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
  if (buf == nullptr) return NullArgument(__func__, "buf");
  if (tensor == nullptr) return NullArgument(__func__, "tensor");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  const Tensor* source = Unwrap(tensor);
  trnsim::Status valid = CheckRange(source, offset, size, "a read");
  if (!valid.ok()) return Report(__func__, valid);
  return Schedule(
      __func__, lnc_idx, NRTA_XU_TENSOR_OP, queue,
      [=] { return Rt().tensors().Read(source, buf, offset, size); }, ret, req_sequence);
}

NRT_STATUS nrta_tensor_copy(nrt_tensor_t* src, uint64_t src_offset, nrt_tensor_t* dst,
                            uint64_t dst_offset, uint64_t size, int lnc_idx, int queue,
                            NRT_STATUS* ret, nrta_seq_t* req_sequence) {
  if (src == nullptr) return NullArgument(__func__, "src");
  if (dst == nullptr) return NullArgument(__func__, "dst");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  const Tensor* from = Unwrap(src);
  Tensor* to = Unwrap(dst);
  trnsim::Status valid = CheckRange(from, src_offset, size, "a copy from src");
  if (valid.ok()) valid = CheckRange(to, dst_offset, size, "a copy into dst");
  if (!valid.ok()) return Report(__func__, valid);
  return Schedule(
      __func__, lnc_idx, NRTA_XU_TENSOR_OP, queue,
      [=] { return Rt().tensors().Copy(from, src_offset, to, dst_offset, size); }, ret,
      req_sequence);
}

NRT_STATUS nrta_execute_schedule(nrt_model_t* model, const nrt_tensor_set_t* input,
                                 nrt_tensor_set_t* output, int queue, NRT_STATUS* ret,
                                 nrta_seq_t* req_sequence) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (input == nullptr) return NullArgument(__func__, "input");
  if (output == nullptr) return NullArgument(__func__, "output");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  const auto* loaded = reinterpret_cast<const trnsim::runtime::model::Model*>(model);
  const trnsim::runtime::TensorSet* inputs = UnwrapSet(input);
  const trnsim::runtime::TensorSet* outputs = UnwrapSet(output);
  trnsim::Status valid = Rt().executions().Check(loaded, inputs, outputs);
  if (!valid.ok()) return Report(__func__, valid);
  trnsim::StatusOr<trnsim::runtime::ModelInfo> info = Rt().models().Info(loaded);
  if (!info.ok()) return Report(__func__, info.status());
  return Schedule(
      __func__, info->vnc, NRTA_XU_COMPUTE, queue,
      [=] { return Rt().executions().Execute(loaded, inputs, outputs, 1); }, ret, req_sequence);
}

NRT_STATUS nrta_cc_prepare(nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output,
                           nrt_dtype_t dtype, nrt_op_type_t op, nrt_cc_op_type_t cc_op,
                           nrt_cc_context_t** cc_ctx) {
  if (comm == nullptr) return NullArgument(__func__, "comm");
  if (input == nullptr) return NullArgument(__func__, "input");
  if (output == nullptr) return NullArgument(__func__, "output");
  if (cc_ctx == nullptr) return NullArgument(__func__, "cc_ctx");
  if (comm->replica_group == nullptr) return NullArgument(__func__, "comm->replica_group");
  if ((input->tensors == nullptr && input->num_tensors > 0) ||
      (output->tensors == nullptr && output->num_tensors > 0)) {
    return NullArgument(__func__, "tensor list");
  }
  trnsim::runtime::collectives::HostCcContext context;
  switch (cc_op) {
    case NRT_CC_ALLGATHER: context.kind = trnsim::isa::CollectiveKind::kAllGather; break;
    case NRT_CC_ALLREDUCE: context.kind = trnsim::isa::CollectiveKind::kAllReduce; break;
    case NRT_CC_REDUCESCATTER: context.kind = trnsim::isa::CollectiveKind::kReduceScatter; break;
    default:
      return Report(__func__, trnsim::InvalidError("cc_op " + std::to_string(cc_op) +
                                                   " is not an nrt_cc_op_type_t"));
  }
  switch (op) {
    case NRT_OP_ADD: context.op = trnsim::isa::AluOp::kAdd; break;
    case NRT_OP_MAX: context.op = trnsim::isa::AluOp::kMaximum; break;
    case NRT_OP_MIN: context.op = trnsim::isa::AluOp::kMinimum; break;
    default:
      return Report(__func__, trnsim::InvalidError("op " + std::to_string(op) +
                                                   " is not a reduction (add, max or min)"));
  }
  if (cc_op == NRT_CC_ALLGATHER) context.op = trnsim::isa::AluOp::kBypass;
  if (dtype <= NRT_DTYPE_UNKNOWN || dtype > NRT_DTYPE_FP8_E5) {
    return Report(__func__, trnsim::InvalidError("dtype " + std::to_string(dtype) +
                                                 " is not an element type"));
  }
  context.dtype = trnsim::isa::Dtype(dtype);  // nrt_dtype_t numbers the ISA's dtypes
  trnsim::Status ready = CheckInitializedVnc(comm->vnc);
  if (!ready.ok()) return Report(__func__, ready);
  context.vnc = int(comm->vnc);
  context.group.assign(comm->replica_group, comm->replica_group + comm->rank_n);
  context.position = comm->rank;
  for (size_t i = 0; i < input->num_tensors; ++i) {
    context.inputs.push_back(Unwrap(input->tensors[i]));
  }
  for (size_t i = 0; i < output->num_tensors; ++i) {
    context.outputs.push_back(Unwrap(output->tensors[i]));
  }
  trnsim::StatusOr<const trnsim::runtime::collectives::HostCcContext*> prepared =
      Rt().collectives().PrepareHost(std::move(context));
  if (!prepared.ok()) return Report(__func__, prepared.status());
  *cc_ctx = reinterpret_cast<nrt_cc_context_t*>(
      const_cast<trnsim::runtime::collectives::HostCcContext*>(*prepared));
  return NRT_SUCCESS;
}

NRT_STATUS nrta_cc_schedule(nrt_cc_context_t** cc_ctx, int queue, NRT_STATUS* ret,
                            nrta_seq_t* req_sequence) {
  if (cc_ctx == nullptr || *cc_ctx == nullptr) return NullArgument(__func__, "cc_ctx");
  if (ret == nullptr) return NullArgument(__func__, "ret");
  if (req_sequence == nullptr) return NullArgument(__func__, "req_sequence");
  const auto* context =
      reinterpret_cast<const trnsim::runtime::collectives::HostCcContext*>(*cc_ctx);
  trnsim::StatusOr<int> core = Rt().collectives().HostCore(context);
  if (!core.ok()) return Report(__func__, core.status());
  return Schedule(
      __func__, *core, NRTA_XU_COLLECTIVES, queue,
      [context] { return Rt().collectives().RunHost(context); }, ret, req_sequence);
}

NRT_STATUS nrta_is_completed(nrta_seq_t seq, bool* is_completed) {
  if (is_completed == nullptr) return NullArgument(__func__, "is_completed");
  trnsim::StatusOr<bool> completed = Rt().async().IsCompleted(seq);
  if (!completed.ok()) return Report(__func__, completed.status());
  *is_completed = *completed;
  return NRT_SUCCESS;
}

NRT_STATUS nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t* seq) {
  if (seq == nullptr) return NullArgument(__func__, "seq");
  trnsim::StatusOr<uint64_t> last = Rt().async().LastCompleted(lnc, xu, queue);
  if (!last.ok()) return Report(__func__, last.status());
  *seq = *last;
  return NRT_SUCCESS;
}

NRT_STATUS nrta_event_register_seq_id_completion(nrta_seq_t seq, int fd) {
  if (fd < -1) {
    return Report(__func__, trnsim::InvalidError("fd " + std::to_string(fd) +
                                                 " is neither a descriptor nor -1"));
  }
  return Report(__func__, Rt().async().WatchRequest(seq, fd));
}

NRT_STATUS nrta_event_register_xu_completion(int lnc, nrta_xu_t xu, int queue, int fd) {
  if (fd < -1) {
    return Report(__func__, trnsim::InvalidError("fd " + std::to_string(fd) +
                                                 " is neither a descriptor nor -1"));
  }
  return Report(__func__, Rt().async().WatchQueue(lnc, xu, queue, fd));
}

}  // extern "C"
