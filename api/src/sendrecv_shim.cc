// Async send/recv (nrt/nrt_async_sendrecv.h): point-to-point tensor transfer between logical
// cores of the emulated instance (runtime/collectives/send_recv.h; docs/collectives.md,
// "Point-to-point send/recv"). `lnc` here is an absolute, instance-wide core id, unlike
// everywhere else; it must be one of this process's cores (NRT_INVALID otherwise). Comm and
// request handles are the runtime's SendRecv::Comm / Request objects, checked against the live
// sets (NRT_INVALID_HANDLE otherwise).
#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_async_sendrecv.h"

using trnsim::api::CheckInitializedAbsoluteVnc;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::api::Unwrap;
using SendRecv = trnsim::runtime::collectives::SendRecv;

namespace {

SendRecv::Comm* UnwrapComm(nrt_async_sendrecv_comm_t* comm) {
  return reinterpret_cast<SendRecv::Comm*>(comm);
}
nrt_async_sendrecv_comm_t* WrapComm(SendRecv::Comm* comm) {
  return reinterpret_cast<nrt_async_sendrecv_comm_t*>(comm);
}
SendRecv::Request* UnwrapRequest(nrt_async_sendrecv_request_t* request) {
  return reinterpret_cast<SendRecv::Request*>(request);
}
nrt_async_sendrecv_request_t* WrapRequest(SendRecv::Request* request) {
  return reinterpret_cast<nrt_async_sendrecv_request_t*>(request);
}

NRT_STATUS Connect(const char* function, bool send, const char* peer_ip, int peer_lnc, int lnc,
                   nrt_async_sendrecv_comm_t** comm) {
  if (peer_ip == nullptr) return NullArgument(function, "peer_ip");
  if (comm == nullptr) return NullArgument(function, "comm");
  trnsim::Status core = CheckInitializedAbsoluteVnc(lnc);
  if (!core.ok()) return Report(function, core);
  auto made = Rt().collectives().SendRecvConnect(send, peer_ip, peer_lnc, lnc);
  if (!made.ok()) return Report(function, made.status());
  *comm = WrapComm(*made);
  return NRT_SUCCESS;
}

NRT_STATUS Transfer(const char* function, nrt_tensor_t* tensor, size_t offset, size_t length,
                    nrt_async_sendrecv_comm_t* comm, nrt_async_sendrecv_request_t** request) {
  if (tensor == nullptr) return NullArgument(function, "tensor");
  if (comm == nullptr) return NullArgument(function, "comm");
  if (request == nullptr) return NullArgument(function, "request");
  auto posted = Rt().collectives().SendRecvPost(Unwrap(tensor), offset, length, UnwrapComm(comm));
  if (!posted.ok()) return Report(function, posted.status());
  *request = WrapRequest(*posted);
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

NRT_STATUS nrt_async_sendrecv_get_max_num_communicators_per_lnc(int* num) {
  if (num == nullptr) return NullArgument(__func__, "num");
  *num = SendRecv::kMaxCommsPerLnc;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_async_sendrecv_get_max_num_pending_request(int* num) {
  if (num == nullptr) return NullArgument(__func__, "num");
  *num = SendRecv::kMaxPendingRequests;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_async_sendrecv_init(int lnc) {
  trnsim::Status core = CheckInitializedAbsoluteVnc(lnc);
  if (!core.ok()) return Report(__func__, core);
  return Report(__func__, Rt().collectives().SendRecvInit(lnc));
}

NRT_STATUS nrt_async_sendrecv_close(int lnc) {
  trnsim::Status core = CheckInitializedAbsoluteVnc(lnc);
  if (!core.ok()) return Report(__func__, core);
  return Report(__func__, Rt().collectives().SendRecvClose(lnc));
}

NRT_STATUS nrt_async_sendrecv_connect(const char* peer_ip, int peer_lnc, int lnc,
                                      nrt_async_sendrecv_comm_t** send_comm) {
  return Connect(__func__, true, peer_ip, peer_lnc, lnc, send_comm);
}

NRT_STATUS nrt_async_sendrecv_accept(const char* peer_ip, int peer_lnc, int lnc,
                                     nrt_async_sendrecv_comm_t** recv_comm) {
  return Connect(__func__, false, peer_ip, peer_lnc, lnc, recv_comm);
}

NRT_STATUS nrt_async_sendrecv_test_comm(nrt_async_sendrecv_comm_t* comm, bool* done) {
  if (comm == nullptr) return NullArgument(__func__, "comm");
  if (done == nullptr) return NullArgument(__func__, "done");
  auto connected = Rt().collectives().SendRecvTestComm(UnwrapComm(comm));
  if (!connected.ok()) return Report(__func__, connected.status());
  *done = *connected;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_async_sendrecv_send_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t* send_comm,
                                          nrt_async_sendrecv_request_t** request) {
  return Transfer(__func__, tensor, offset, length, send_comm, request);
}

NRT_STATUS nrt_async_sendrecv_recv_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t* recv_comm,
                                          nrt_async_sendrecv_request_t** request) {
  return Transfer(__func__, tensor, offset, length, recv_comm, request);
}

NRT_STATUS nrt_async_sendrecv_test_request(nrt_async_sendrecv_request_t* request, bool* done,
                                           size_t* size) {
  if (request == nullptr) return NullArgument(__func__, "request");
  if (done == nullptr) return NullArgument(__func__, "done");
  if (size == nullptr) return NullArgument(__func__, "size");
  auto state = Rt().collectives().SendRecvTestRequest(UnwrapRequest(request));
  if (!state.ok()) return Report(__func__, state.status());
  *done = state->done;
  *size = state->bytes;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_async_sendrecv_flush(int lnc) {
  trnsim::Status core = CheckInitializedAbsoluteVnc(lnc);
  if (!core.ok()) return Report(__func__, core);
  return Report(__func__, Rt().collectives().SendRecvFlush(lnc));
}

}  // extern "C"
