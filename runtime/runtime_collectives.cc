// Runtime's collective entry points that need no model: the global communicator, host-driven
// barrier and all-gather (collectives/host_collectives.h) and AWS's point-to-point send/recv
// (collectives/send_recv.h). Each checks the lifecycle and holds the runtime shared for the
// call, so nrt_close waits for it. Collective models themselves load in runtime.cc
// (LoadCollectiveModel).
#include "runtime/runtime.h"

namespace trnsim::runtime {

Status Runtime::BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return host_collectives_->BuildGlobalComm(vnc, rank, world_size);
}

Status Runtime::Barrier(int vnc, uint32_t rank, uint32_t world_size) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return host_collectives_->Barrier(vnc, rank, world_size);
}

StatusOr<std::vector<uint8_t>> Runtime::AllGather(int vnc, uint32_t rank, uint32_t world_size,
                                                  std::span<const uint8_t> input) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return host_collectives_->AllGather(vnc, rank, world_size, input);
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
  TRNSIM_RETURN_IF_ERROR(CheckTensor(tensor));
  const DeviceStorage* storage = tensor->device_storage();
  if (storage == nullptr) {
    return InvalidError("tensor '" + tensor->name() +
                        "' is not in device memory: async send/recv moves device tensors only");
  }
  TRNSIM_RETURN_IF_ERROR(tensor->CheckRange(offset, length, "async send/recv"));
  return send_recv_->Post(comm, storage->device_allocation()->handle,
                          tensor->storage_offset() + offset, length);
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
