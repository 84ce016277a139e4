// SendRecv: the process's part in AWS's experimental async send/recv (nrt_async_sendrecv_*,
// docs/collectives.md "Point-to-point send/recv"): per-core init state, the comm and request
// handles it gives out, AWS's limits, and deadlines. Every transfer is one operation of the
// instance's PeerExchange through driver::Device::PointToPoint, so peers are logical cores of
// this process or of other processes of the same neurond; the bytes move device memory to
// device memory where the memory lives.
//
// Cores: `lnc` is the absolute, instance-wide logical core id; the caller (api/src) has
// checked that it is one of this process's cores (NRT_INVALID otherwise). A core takes part
// only between Init and Close (else NRT_INVALID naming the missing init).
// Handles: Comm* and Request* are addresses of objects this class owns; every call checks them
// against the live sets (NRT_INVALID_HANDLE otherwise). Close invalidates the core's comms and
// requests; a request is forgotten once TestRequest reports it done.
// Limits: kMaxCommsPerLnc live comms per core and kMaxPendingRequests requests not yet
// reported done per core (NRT_RESOURCE beyond them).
// Deadlines: a comm not connected `timeout` after Connect tests NRT_TIMEOUT; a request not done
// `timeout` after it was posted tests NRT_TIMEOUT (both stay live: close fails on them).
//
// Thread safety: all methods, from any thread (one lock, held briefly; the device call runs
// under it, and never blocks).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"

namespace trnsim::runtime::collectives {

class SendRecv {
 public:
  static constexpr int kMaxCommsPerLnc = 16;
  static constexpr int kMaxPendingRequests = 64;

  struct Comm;     // what an nrt_async_sendrecv_comm_t* points at
  struct Request;  // what an nrt_async_sendrecv_request_t* points at

  struct Options {
    bool enabled = false;                        // NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED
    std::chrono::milliseconds timeout{600'000};  // > 0
    int total_lnc_count = 0;  // logical cores of the instance (peer ids are below it)
  };

  // `device` must outlive this.
  SendRecv(driver::Device* device, Options options);
  ~SendRecv();  // forgets every handle; the device keeps what CloseAll did not close

  // NRT_FAILURE when the experimental switch is off (naming it), when the core's previous
  // Close failed; NRT_INVALID when the core is already initialised.
  Status Init(int lnc);
  // Closes the core's comms (driver PeerExchange::Close). NRT_FAILURE, with everything kept,
  // while a comm is unconnected or a request is in flight; a later Close may succeed, and
  // Init fails until one does.
  Status Close(int lnc);
  // nrt_close: closes every initialised core whatever is in flight (one warning per core).
  void CloseAll();

  // connect (send) / accept (recv). `peer_ip` must name this host (IsThisHost) else
  // NRT_FAILURE; peer_lnc outside the instance or equal to lnc: NRT_INVALID; NRT_RESOURCE
  // beyond kMaxCommsPerLnc.
  StatusOr<Comm*> Connect(bool send, const std::string& peer_ip, int peer_lnc, int lnc);
  // Whether the comm is connected; NRT_TIMEOUT past the deadline.
  StatusOr<bool> TestComm(Comm* comm);
  // Posts a send or receive (per the comm's side) of bytes [offset, offset+length) of the
  // device allocation `memory` (the caller has checked the range against the tensor).
  // `pin` (the tensor's storage) is held until the request is reported done or forgotten, so a
  // tensor freed while its transfer is in flight keeps its memory until the exchange copied it.
  // NRT_INVALID for a comm not tested connected; NRT_RESOURCE beyond kMaxPendingRequests.
  StatusOr<Request*> Post(Comm* comm, driver::MemoryHandle memory, uint64_t offset,
                          uint64_t length, std::shared_ptr<const void> pin);
  struct RequestState {
    bool done = false;
    uint64_t bytes = 0;
  };
  // The request's state; once done it is forgotten, and a transfer that failed returns its
  // status (NRT_INVALID for mismatched lengths, NRT_FAILURE when the peer closed, ...).
  // NRT_TIMEOUT past the deadline.
  StatusOr<RequestState> TestRequest(Request* request);
  // Data of every request tested done has landed: the exchange copies when both sides are
  // posted, so this only checks the core is initialised.
  Status Flush(int lnc);

 private:
  struct Core {
    bool initialised = false;
    bool close_failed = false;
    int comms = 0;    // live comms
    int pending = 0;  // requests not yet reported done
  };
  Status CheckCore(int lnc, const char* what) const;  // holds mutex_
  Status CheckComm(const Comm* comm) const;           // holds mutex_
  // Forgets the core's comms and requests. Holds mutex_.
  void Forget(int lnc);

  driver::Device* device_;
  const Options options_;
  std::mutex mutex_;  // guards everything below
  std::unordered_map<int, Core> cores_;
  std::unordered_map<Comm*, std::unique_ptr<Comm>> comms_;
  std::unordered_map<Request*, std::unique_ptr<Request>> requests_;
};

}  // namespace trnsim::runtime::collectives
