// The collective calls a Device carries besides executions, as plain, serialisable values (the
// remote back end sends them to neurond unchanged):
//   HostCollectiveCall  a host-driven collective (nrt_barrier, nrt_all_gather), for
//                       Device::HostCollective
//   PeerCall/PeerReply  one point-to-point operation (nrt_async_sendrecv_*), for
//                       Device::PointToPoint
// They are the driver's, not the chip model's: the sim back end converts them to its
// simulator::collective::CollectiveHub and PeerExchange calls (driver/sim/sim_device.h), whose
// semantics (simulator/collective/collective_hub.h, point_to_point.h) they carry.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace trnsim::driver {

enum class HostCollectiveKind : uint8_t { kBarrier, kAllGather };

struct HostCollectiveCall {
  HostCollectiveKind kind = HostCollectiveKind::kBarrier;
  std::string communicator;  // NEURON_RT_ROOT_COMM_ID of the job (ranks with equal ids meet)
  uint32_t rank = 0;
  uint32_t world_size = 1;
  uint64_t sequence = 0;       // this rank's n-th host collective on the communicator
  std::vector<uint8_t> input;  // all_gather: this rank's bytes (every rank the same size)
};

struct HostCollectiveOptions {
  // How long the call waits for the other ranks, in host time. Zero: the back end's default
  // (the sim hub's kDefaultCollectiveTimeout, 600 s).
  std::chrono::milliseconds host_timeout{0};
  // Not sent over the wire: when set and it becomes true, the wait gives up and fails the
  // rendezvous (neurond sets it when the session ends).
  const std::atomic<bool>* cancel = nullptr;
};

enum class PeerSide : uint8_t { kSend, kRecv };

// Device memory a transfer reads or writes: one of the connection's MemoryHandles and a byte
// range of it.
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

// One exchange operation. Which fields count depends on `op`: kOpen side/lnc/peer_lnc;
// kConnected id (a comm); kPost id (a comm) and buffer; kTest id (a request); kClose lnc and
// force.
enum class PeerOp : uint8_t { kOpen, kConnected, kPost, kTest, kClose };
struct PeerCall {
  PeerOp op = PeerOp::kOpen;
  PeerSide side = PeerSide::kSend;
  int lnc = 0;
  int peer_lnc = 0;
  uint64_t id = 0;
  PeerBuffer buffer;
  bool force = false;
  // Not sent over the wire: who makes the call (simulator/collective/point_to_point.h,
  // "Owners"). 0 for the calls of one process; neurond sets the caller's session id, so a comm
  // or request is usable, and a core's ends closable, only by the session that made them.
  uint64_t owner = 0;
};
// kOpen and kPost: id; kConnected: connected; kTest: request; kClose: nothing.
struct PeerReply {
  uint64_t id = 0;
  bool connected = false;
  PeerRequestState request;
};

}  // namespace trnsim::driver
