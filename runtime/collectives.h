// Collectives: the runtime's collective calls that need no model — the global communicator
// and host-driven barrier and all-gather (collectives/host_collectives.h), the nrta_cc_*
// contexts (collectives/host_cc_context.h) and AWS's point-to-point send/recv
// (collectives/send_recv.h). Collective models load through Models::LoadCollective.
//
// The blocking calls (the group meets, for up to NEURON_RT_EXEC_TIMEOUT) hold no lock while
// they wait: they enter the lifecycle (nrt_close waits for them) and pin the tensors they
// write. A `vnc` or `lnc` argument is checked by the caller (a visible core; absolute for
// send/recv).
//
// Thread safety: every method. Calls return the lifecycle's statuses unless initialised. Its
// own lock guards the nrta_cc contexts.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "runtime/collectives/host_cc_context.h"
#include "runtime/collectives/send_recv.h"
#include "runtime/lifecycle.h"
#include "runtime/tensor_table.h"

namespace trnsim::runtime {

class Collectives {
 public:
  Collectives(Lifecycle& lifecycle, TensorTable& tensors)
      : lifecycle_(lifecycle), tensors_(tensors) {}
  Collectives(const Collectives&) = delete;
  Collectives& operator=(const Collectives&) = delete;

  // --- Host-driven collectives: block until every rank has made the same call ------------
  Status BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size);
  Status Barrier(int vnc, uint32_t rank, uint32_t world_size);
  StatusOr<std::vector<uint8_t>> AllGather(int vnc, uint32_t rank, uint32_t world_size,
                                           std::span<const uint8_t> input);

  // --- Host-driven collectives on the async queues (nrta_cc_*) ----------------------------
  // Validates `context` — live tensors (NRT_INVALID_HANDLE); the group against the vnc's
  // global communicator and the sizes (NRT_INVALID) — and returns the context equal to it,
  // creating it the first time. Contexts live until nrt_close.
  StatusOr<const collectives::HostCcContext*> PrepareHost(collectives::HostCcContext context);
  // The core of a context PrepareHost returned; NRT_INVALID_HANDLE for any other pointer.
  StatusOr<int> HostCore(const collectives::HostCcContext* context);
  // Performs it: reads the inputs, meets the group's other members (blocking until all have
  // run their n-th collective of this group, as nrt_barrier does), writes the outputs.
  Status RunHost(const collectives::HostCcContext* context);

  // --- Async send/recv: they never block --------------------------------------------------
  Status SendRecvInit(int lnc);
  Status SendRecvClose(int lnc);
  StatusOr<collectives::SendRecv::Comm*> SendRecvConnect(bool send, const std::string& peer_ip,
                                                         int peer_lnc, int lnc);
  StatusOr<bool> SendRecvTestComm(collectives::SendRecv::Comm* comm);
  // Posts bytes [offset, offset+length) of a device tensor (NRT_INVALID_HANDLE for a dead
  // tensor; NRT_INVALID for a host tensor or a range outside it); the request pins the
  // tensor's storage until it is reported done.
  StatusOr<collectives::SendRecv::Request*> SendRecvPost(const Tensor* tensor, uint64_t offset,
                                                         uint64_t length,
                                                         collectives::SendRecv::Comm* comm);
  StatusOr<collectives::SendRecv::RequestState> SendRecvTestRequest(
      collectives::SendRecv::Request* request);
  Status SendRecvFlush(int lnc);

  // nrt_close: forgets every nrta_cc context.
  void Clear();

 private:
  bool KnownLocked(const collectives::HostCcContext* context) const;  // mutex_ held

  Lifecycle& lifecycle_;
  TensorTable& tensors_;
  mutable std::mutex mutex_;  // guards contexts_
  std::vector<std::unique_ptr<collectives::HostCcContext>> contexts_;
};

}  // namespace trnsim::runtime
