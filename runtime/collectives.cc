// Collectives: host-driven collectives, nrta_cc contexts and send/recv (collectives.h).
#include "runtime/collectives.h"

namespace trnsim::runtime {

Status Collectives::BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Entered session, lifecycle_.Enter());
  return session->host_collectives->BuildGlobalComm(vnc, rank, world_size);
}

Status Collectives::Barrier(int vnc, uint32_t rank, uint32_t world_size) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Entered session, lifecycle_.Enter());
  return session->host_collectives->Barrier(vnc, rank, world_size);
}

StatusOr<std::vector<uint8_t>> Collectives::AllGather(int vnc, uint32_t rank, uint32_t world_size,
                                                      std::span<const uint8_t> input) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Entered session, lifecycle_.Enter());
  return session->host_collectives->AllGather(vnc, rank, world_size, input);
}

bool Collectives::KnownLocked(const collectives::HostCcContext* context) const {
  for (const auto& known : contexts_) {
    if (known.get() == context) return true;
  }
  return false;
}

StatusOr<const collectives::HostCcContext*> Collectives::PrepareHost(
    collectives::HostCcContext context) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::vector<uint64_t> sizes_in, sizes_out;
  for (const Tensor* tensor : context.inputs) {
    TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<Tensor> pinned, tensors_.Pin(tensor));
    sizes_in.push_back(pinned->size());
  }
  for (const Tensor* tensor : context.outputs) {
    TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<Tensor> pinned, tensors_.Pin(tensor));
    sizes_out.push_back(pinned->size());
  }
  TRNSIM_RETURN_IF_ERROR(collectives::ValidateHostCc(context, sizes_in, sizes_out));
  TRNSIM_RETURN_IF_ERROR(
      session->host_collectives->CheckGroup(context.vnc, context.group, context.position));
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& known : contexts_) {
    if (*known == context) return known.get();
  }
  contexts_.push_back(std::make_unique<collectives::HostCcContext>(std::move(context)));
  return contexts_.back().get();
}

StatusOr<int> Collectives::HostCore(const collectives::HostCcContext* context) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  std::lock_guard<std::mutex> lock(mutex_);
  if (KnownLocked(context)) return context->vnc;
  return InvalidHandleError("not a collective context of nrta_cc_prepare (or freed by nrt_close)");
}

Status Collectives::RunHost(const collectives::HostCcContext* context) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Entered session, lifecycle_.Enter());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!KnownLocked(context)) {
      return InvalidHandleError(
          "not a collective context of nrta_cc_prepare (or freed by "
          "nrt_close)");
    }
  }
  // The tensors are pinned, so the group can meet without a lock (a free meanwhile returns at
  // once; the memory goes when this returns). Contexts live until nrt_close, which waits.
  std::vector<std::shared_ptr<Tensor>> inputs, outputs;
  std::vector<uint64_t> sizes_in, sizes_out;
  for (const Tensor* tensor : context->inputs) {
    TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<Tensor> pinned, tensors_.Pin(tensor));
    sizes_in.push_back(pinned->size());
    inputs.push_back(std::move(pinned));
  }
  for (const Tensor* tensor : context->outputs) {
    TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<Tensor> pinned, tensors_.Pin(tensor));
    sizes_out.push_back(pinned->size());
    outputs.push_back(std::move(pinned));
  }
  std::vector<uint8_t> input;
  for (const std::shared_ptr<Tensor>& tensor : inputs) {
    input.resize(input.size() + tensor->size());
    TRNSIM_RETURN_IF_ERROR(tensors_.ReadPinned(
        *tensor, 0, input.data() + input.size() - tensor->size(), tensor->size()));
  }
  TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> gathered,
                          session->host_collectives->GroupAllGather(context->vnc, context->group,
                                                                    context->position, input));
  std::vector<std::vector<uint8_t>> results =
      collectives::ComputeHostCc(*context, gathered, sizes_in, sizes_out);
  for (size_t i = 0; i < results.size(); ++i) {
    TRNSIM_RETURN_IF_ERROR(
        tensors_.WritePinned(*outputs[i], 0, results[i].data(), results[i].size()));
  }
  return Status::Ok();
}

// --- Async send/recv ----------------------------------------------------------------------------

Status Collectives::SendRecvInit(int lnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->send_recv->Init(lnc);
}

Status Collectives::SendRecvClose(int lnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->send_recv->Close(lnc);
}

StatusOr<collectives::SendRecv::Comm*> Collectives::SendRecvConnect(bool send,
                                                                    const std::string& peer_ip,
                                                                    int peer_lnc, int lnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->send_recv->Connect(send, peer_ip, peer_lnc, lnc);
}

StatusOr<bool> Collectives::SendRecvTestComm(collectives::SendRecv::Comm* comm) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->send_recv->TestComm(comm);
}

StatusOr<collectives::SendRecv::Request*> Collectives::SendRecvPost(
    const Tensor* tensor, uint64_t offset, uint64_t length, collectives::SendRecv::Comm* comm) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(DeviceSpan span,
                          tensors_.PinDeviceSpan(tensor, offset, length, "async send/recv"));
  return session->send_recv->Post(comm, span.handle, span.offset, span.length,
                                  std::move(span.storage));
}

StatusOr<collectives::SendRecv::RequestState> Collectives::SendRecvTestRequest(
    collectives::SendRecv::Request* request) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->send_recv->TestRequest(request);
}

Status Collectives::SendRecvFlush(int lnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->send_recv->Flush(lnc);
}

void Collectives::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  contexts_.clear();
}

}  // namespace trnsim::runtime
