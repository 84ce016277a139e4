// PeerExchange: where point-to-point transfers between logical cores of one emulated instance
// meet (AWS's experimental async send/recv, nrt/nrt_async_sendrecv.h; docs/collectives.md,
// "Point-to-point send/recv"). One lives next to the CollectiveHub in each instance
// (driver::sim::SimDevice), so cores of one process, or of processes sharing one neurond, meet.
//
// Logical cores are absolute, instance-wide ids. A comm is one end of a directed channel
// (sender lnc A -> receiver lnc B): Open(kSend, A, B) makes A's end, Open(kRecv, B, A) B's end.
// The k-th send end opened from A to B pairs with the k-th receive end opened on B from A
// (counted over the exchange's whole life), whichever comes first; a comm is connected once its
// partner exists. On a connected comm, the n-th Post of the send end matches the n-th Post of
// the receive end: when both are posted, `length` bytes move from the send buffer to the
// receive buffer through the Copier (device memory to device memory) and both requests
// complete. Lengths that differ complete both requests with NRT_INVALID and move nothing; a
// Copier error completes both with that error. A request whose partner end was closed
// completes with NRT_FAILURE.
//
// Ids: comm and request ids are exchange-wide, never reused, never 0. An unknown id is
// NRT_INVALID_HANDLE. Test forgets a request once it reports it done.
// Owners: every call names its caller (`owner`: 0 for the calls of one process; neurond passes
// the session id, tools/neurond/README.md "Security model"). A comm belongs to the owner that
// opened it and a request to the owner that posted it: Connected, Post and Test of an id of
// another owner are NRT_INVALID and change nothing, and Close closes only the caller's ends of
// the core. Ends of different owners still pair with each other (the two processes of a
// transfer); who may open an end on which core is the caller's to check.
// Limits: none here; the runtime (runtime/collectives/send_recv.h) applies AWS's per-core
// limits. Timeouts: none here either — nothing blocks; callers poll.
//
// Thread safety: all methods, from any thread. The Copier runs under the exchange's lock (a
// memmove of device memory), so it must not call back into the exchange.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>

#include "common/status_or.h"

namespace trnsim::simulator::collective {

enum class PeerSide : uint8_t { kSend, kRecv };

// Device memory a transfer reads or writes: an allocation handle of the device the exchange
// belongs to and a byte range of it.
struct PeerBuffer {
  uint64_t memory = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct PeerRequestState {
  bool done = false;
  uint64_t bytes = 0;  // moved (0 unless done with an OK status)
  Status status;       // the transfer's outcome once done
};

// One exchange operation as a value, so that it can cross a process boundary unchanged
// (driver::Device::PointToPoint, the neurond PointToPoint RPC). Which fields count depends on
// `op`: kOpen side/lnc/peer_lnc; kConnected id (a comm); kPost id (a comm) and buffer; kTest id
// (a request); kClose lnc and force.
enum class PeerOp : uint8_t { kOpen, kConnected, kPost, kTest, kClose };
struct PeerCall {
  PeerOp op = PeerOp::kOpen;
  PeerSide side = PeerSide::kSend;
  int lnc = 0;
  int peer_lnc = 0;
  uint64_t id = 0;
  PeerBuffer buffer;
  bool force = false;
  uint64_t owner = 0;  // the caller (see "Owners")
};
// kOpen and kPost: id; kConnected: connected; kTest: request; kClose: nothing.
struct PeerReply {
  uint64_t id = 0;
  bool connected = false;
  PeerRequestState request;
};

class PeerExchange {
 public:
  // Copies `size` bytes from (src, src_offset) to (dst, dst_offset).
  using Copier = std::function<Status(uint64_t src, uint64_t src_offset, uint64_t dst,
                                      uint64_t dst_offset, uint64_t size)>;

  explicit PeerExchange(Copier copier);

  // Opens `lnc`'s end of a channel with `peer_lnc` (send: lnc -> peer; recv: peer -> lnc) and
  // returns its comm id, owned by `owner`. NRT_INVALID for a negative core or lnc == peer_lnc.
  StatusOr<uint64_t> Open(PeerSide side, int lnc, int peer_lnc, uint64_t owner = 0);
  // Whether the comm's partner end has been opened. NRT_INVALID_HANDLE for an unknown comm,
  // NRT_INVALID for another owner's.
  StatusOr<bool> Connected(uint64_t comm, uint64_t owner = 0);
  // Posts the comm's next send (or receive) of `buffer` and returns the request id; the
  // transfer happens now if the partner's matching request is already posted.
  // NRT_INVALID_HANDLE for an unknown comm, NRT_INVALID for another owner's; NRT_FAILURE for a
  // comm not connected yet.
  StatusOr<uint64_t> Post(uint64_t comm, const PeerBuffer& buffer, uint64_t owner = 0);
  // The request's state; a request reported done is forgotten. NRT_INVALID_HANDLE if unknown,
  // NRT_INVALID (the request kept) if another owner's.
  StatusOr<PeerRequestState> Test(uint64_t request, uint64_t owner = 0);
  // Closes every comm end `owner` opened on `lnc` and forgets their requests. Unless `force`,
  // NRT_FAILURE (and nothing closed) while one of them is unconnected or has a request not yet
  // matched. The partner ends' unmatched requests complete with NRT_FAILURE.
  Status Close(int lnc, bool force, uint64_t owner = 0);
  // Dispatches `call` to the method its op names; NRT_INVALID for an unknown op.
  StatusOr<PeerReply> Call(const PeerCall& call);

 private:
  using Route = std::pair<int, int>;                  // (sender lnc, receiver lnc)
  using ChannelKey = std::tuple<int, int, uint64_t>;  // route and pairing ordinal
  struct Channel {
    uint64_t send_comm = 0;  // 0: not opened yet, or closed
    uint64_t recv_comm = 0;
    bool send_closed = false;
    bool recv_closed = false;
    std::deque<uint64_t> pending_sends;  // request ids posted and not yet matched, in order
    std::deque<uint64_t> pending_recvs;
  };
  struct Comm {
    PeerSide side;
    int lnc;
    ChannelKey channel;
    uint64_t owner;
  };
  struct Request {
    uint64_t comm;
    int lnc;
    uint64_t owner;
    PeerBuffer buffer;
    PeerRequestState state;
  };
  struct Opened {
    uint64_t sends = 0;  // send ends opened on this route so far
    uint64_t recvs = 0;
  };

  // Moves the bytes of matched requests `send` and `recv` and completes both. Holds mutex_.
  void Transfer(Request& send, Request& recv);
  // Completes `request` with `status`. Holds mutex_.
  static void Complete(Request& request, Status status, uint64_t bytes);

  Copier copier_;
  std::mutex mutex_;  // guards everything below
  std::map<Route, Opened> opened_;
  std::map<ChannelKey, Channel> channels_;
  std::unordered_map<uint64_t, Comm> comms_;
  std::unordered_map<uint64_t, Request> requests_;
  uint64_t next_id_ = 1;
};

}  // namespace trnsim::simulator::collective
