// Async send/recv (nrt/nrt_async_sendrecv.h): point-to-point tensor transfer between hosts.
// It arrives with send/recv; until then every entry point validates its arguments and the
// lifecycle, then reports NotImplemented (docs/api-status.md). `lnc` here is an absolute,
// instance-wide core id, unlike everywhere else.
#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_async_sendrecv.h"

using trnsim::api::CheckInitializedAbsoluteVnc;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

namespace {

constexpr char kSendRecv[] = "async send/recv (arrives with send/recv)";

// The common tail: the lifecycle verdict `ready` if it is an error, else NotImplemented.
NRT_STATUS NotYet(const char* function, const trnsim::Status& ready) {
  if (!ready.ok()) return Report(function, ready);
  return NotImplemented(function, kSendRecv);
}

NRT_STATUS Connect(const char* function, const char* peer_ip, int peer_lnc, int lnc,
                   nrt_async_sendrecv_comm_t** comm) {
  if (peer_ip == nullptr) return NullArgument(function, "peer_ip");
  if (comm == nullptr) return NullArgument(function, "comm");
  if (peer_lnc < 0) {
    return Report(function,
                  trnsim::InvalidError("peer_lnc " + std::to_string(peer_lnc) + " is negative"));
  }
  return NotYet(function, CheckInitializedAbsoluteVnc(lnc));
}

NRT_STATUS Transfer(const char* function, const nrt_tensor_t* tensor,
                    const nrt_async_sendrecv_comm_t* comm, nrt_async_sendrecv_request_t** request) {
  if (tensor == nullptr) return NullArgument(function, "tensor");
  if (comm == nullptr) return NullArgument(function, "comm");
  if (request == nullptr) return NullArgument(function, "request");
  return NotYet(function, Rt().CheckInitialized());
}

}  // namespace

extern "C" {

// The two limits are constants of the implementation that does not exist yet.
NRT_STATUS nrt_async_sendrecv_get_max_num_communicators_per_lnc(int* num) {
  if (num == nullptr) return NullArgument(__func__, "num");
  return NotImplemented(__func__, kSendRecv);
}

NRT_STATUS nrt_async_sendrecv_get_max_num_pending_request(int* num) {
  if (num == nullptr) return NullArgument(__func__, "num");
  return NotImplemented(__func__, kSendRecv);
}

NRT_STATUS nrt_async_sendrecv_init(int lnc) {
  return NotYet(__func__, CheckInitializedAbsoluteVnc(lnc));
}

NRT_STATUS nrt_async_sendrecv_close(int lnc) {
  return NotYet(__func__, CheckInitializedAbsoluteVnc(lnc));
}

NRT_STATUS nrt_async_sendrecv_connect(const char* peer_ip, int peer_lnc, int lnc,
                                      nrt_async_sendrecv_comm_t** send_comm) {
  return Connect(__func__, peer_ip, peer_lnc, lnc, send_comm);
}

NRT_STATUS nrt_async_sendrecv_accept(const char* peer_ip, int peer_lnc, int lnc,
                                     nrt_async_sendrecv_comm_t** recv_comm) {
  return Connect(__func__, peer_ip, peer_lnc, lnc, recv_comm);
}

NRT_STATUS nrt_async_sendrecv_test_comm(nrt_async_sendrecv_comm_t* comm, bool* done) {
  if (comm == nullptr) return NullArgument(__func__, "comm");
  if (done == nullptr) return NullArgument(__func__, "done");
  return NotYet(__func__, Rt().CheckInitialized());
}

NRT_STATUS nrt_async_sendrecv_send_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t* send_comm,
                                          nrt_async_sendrecv_request_t** request) {
  return Transfer(__func__, tensor, send_comm, request);
}

NRT_STATUS nrt_async_sendrecv_recv_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t* recv_comm,
                                          nrt_async_sendrecv_request_t** request) {
  return Transfer(__func__, tensor, recv_comm, request);
}

NRT_STATUS nrt_async_sendrecv_test_request(nrt_async_sendrecv_request_t* request, bool* done,
                                           size_t* size) {
  if (request == nullptr) return NullArgument(__func__, "request");
  if (done == nullptr) return NullArgument(__func__, "done");
  if (size == nullptr) return NullArgument(__func__, "size");
  return NotYet(__func__, Rt().CheckInitialized());
}

NRT_STATUS nrt_async_sendrecv_flush(int lnc) {
  return NotYet(__func__, CheckInitializedAbsoluteVnc(lnc));
}

}  // extern "C"
