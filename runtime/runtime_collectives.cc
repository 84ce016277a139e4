// Runtime's collective entry points that need no model: the global communicator, host-driven
// barrier and all-gather (collectives/host_collectives.h), nrta_cc_*'s contexts
// (collectives/host_cc_context.h) and AWS's point-to-point send/recv
// (collectives/send_recv.h). Each checks the lifecycle; the blocking ones (the group meets)
// hold no lock while they wait but enter the OperationGate, so nrt_close waits for them. Collective models themselves load in runtime.cc
// (LoadCollectiveModel).
#include "runtime/runtime.h"

namespace trnsim::runtime {

Status Runtime::BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size) {
  TRNSIM_ASSIGN_OR_RETURN(OperationGate::Ticket ticket, Enter());
  return host_collectives_->BuildGlobalComm(vnc, rank, world_size);
}

Status Runtime::Barrier(int vnc, uint32_t rank, uint32_t world_size) {
  TRNSIM_ASSIGN_OR_RETURN(OperationGate::Ticket ticket, Enter());
  return host_collectives_->Barrier(vnc, rank, world_size);
}

StatusOr<std::vector<uint8_t>> Runtime::AllGather(int vnc, uint32_t rank, uint32_t world_size,
                                                  std::span<const uint8_t> input) {
  TRNSIM_ASSIGN_OR_RETURN(OperationGate::Ticket ticket, Enter());
  return host_collectives_->AllGather(vnc, rank, world_size, input);
}

StatusOr<const collectives::HostCcContext*> Runtime::PrepareHostCollective(
    collectives::HostCcContext context) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::unique_lock objects(objects_mutex_);
  std::vector<uint64_t> sizes_in, sizes_out;
  for (const Tensor* tensor : context.inputs) {
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
    sizes_in.push_back(tensor->size());
  }
  for (const Tensor* tensor : context.outputs) {
    TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
    sizes_out.push_back(tensor->size());
  }
  TRNSIM_RETURN_IF_ERROR(collectives::ValidateHostCc(context, sizes_in, sizes_out));
  TRNSIM_RETURN_IF_ERROR(
      host_collectives_->CheckGroup(context.vnc, context.group, context.position));
  for (const auto& known : cc_contexts_) {
    if (*known == context) return known.get();
  }
  cc_contexts_.push_back(std::make_unique<collectives::HostCcContext>(std::move(context)));
  return cc_contexts_.back().get();
}

StatusOr<int> Runtime::HostCollectiveCore(const collectives::HostCcContext* context) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  for (const auto& known : cc_contexts_) {
    if (known.get() == context) return context->vnc;
  }
  return InvalidHandleError("not a collective context of nrta_cc_prepare (or freed by nrt_close)");
}

Status Runtime::RunHostCollective(const collectives::HostCcContext* context) {
  TRNSIM_ASSIGN_OR_RETURN(OperationGate::Ticket ticket, Enter());
  // The tensors are pinned, so the group can meet without a lock (a free meanwhile returns at
  // once; the memory goes when this returns).
  std::vector<std::shared_ptr<Tensor>> pinned;
  std::vector<uint64_t> sizes_in, sizes_out;
  std::vector<uint8_t> input;
  {
    std::shared_lock objects(objects_mutex_);
    bool known = false;
    for (const auto& prepared : cc_contexts_) known = known || prepared.get() == context;
    if (!known) {
      return InvalidHandleError("not a collective context of nrta_cc_prepare (or freed by "
                                "nrt_close)");
    }
    for (const Tensor* tensor : context->inputs) {
      TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
      sizes_in.push_back(tensor->size());
      input.resize(input.size() + tensor->size());
      TRNSIM_RETURN_IF_ERROR(tensor->Read(0, input.data() + input.size() - tensor->size(),
                                          tensor->size()));
    }
    for (const Tensor* tensor : context->outputs) {
      TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
      sizes_out.push_back(tensor->size());
      pinned.push_back(tensors_.at(tensor));
    }
  }
  TRNSIM_ASSIGN_OR_RETURN(
      std::vector<uint8_t> gathered,
      host_collectives_->GroupAllGather(context->vnc, context->group, context->position, input));
  std::vector<std::vector<uint8_t>> outputs =
      collectives::ComputeHostCc(*context, gathered, sizes_in, sizes_out);
  std::shared_lock objects(objects_mutex_);  // no attach replaces a storage during the write
  for (size_t i = 0; i < outputs.size(); ++i) {
    TRNSIM_RETURN_IF_ERROR(pinned[i]->Write(0, outputs[i].data(), outputs[i].size()));
  }
  return Status::Ok();
}

Status Runtime::SendRecvInit(int lnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return send_recv_->Init(lnc);
}

Status Runtime::SendRecvClose(int lnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return send_recv_->Close(lnc);
}

StatusOr<collectives::SendRecv::Comm*> Runtime::SendRecvConnect(bool send,
                                                                const std::string& peer_ip,
                                                                int peer_lnc, int lnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return send_recv_->Connect(send, peer_ip, peer_lnc, lnc);
}

StatusOr<bool> Runtime::SendRecvTestComm(collectives::SendRecv::Comm* comm) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return send_recv_->TestComm(comm);
}

StatusOr<collectives::SendRecv::Request*> Runtime::SendRecvPost(
    const Tensor* tensor, uint64_t offset, uint64_t length, collectives::SendRecv::Comm* comm) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  std::shared_lock objects(objects_mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckTensorLocked(tensor));
  const DeviceStorage* storage = tensor->device_storage();
  if (storage == nullptr) {
    return InvalidError("tensor '" + tensor->name() +
                        "' is not in device memory: async send/recv moves device tensors only");
  }
  TRNSIM_RETURN_IF_ERROR(tensor->CheckRange(offset, length, "async send/recv"));
  return send_recv_->Post(comm, storage->device_allocation()->handle,
                          tensor->storage_offset() + offset, length, tensor->shared_storage());
}

StatusOr<collectives::SendRecv::RequestState> Runtime::SendRecvTestRequest(
    collectives::SendRecv::Request* request) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return send_recv_->TestRequest(request);
}

Status Runtime::SendRecvFlush(int lnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return send_recv_->Flush(lnc);
}

}  // namespace trnsim::runtime
