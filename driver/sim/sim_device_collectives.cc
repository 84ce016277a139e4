// SimDevice::HostCollective and PointToPoint: the Device's collective calls
// (driver/collective_calls.h) converted to the instance's CollectiveHub and PeerExchange calls
// (simulator/collective/), and their replies back.
#include <string>

#include "driver/sim/sim_device.h"

namespace trnsim::driver::sim {
namespace {

namespace hub = simulator::collective;

hub::HostCollectiveCall ToHub(const HostCollectiveCall& call) {
  hub::HostCollectiveCall out;
  out.kind = call.kind == HostCollectiveKind::kAllGather ? hub::HostCollectiveKind::kAllGather
                                                         : hub::HostCollectiveKind::kBarrier;
  out.communicator = call.communicator;
  out.rank = call.rank;
  out.world_size = call.world_size;
  out.sequence = call.sequence;
  out.input = call.input;
  return out;
}

hub::PeerOp ToHub(PeerOp op) {
  switch (op) {
    case PeerOp::kOpen:
      return hub::PeerOp::kOpen;
    case PeerOp::kConnected:
      return hub::PeerOp::kConnected;
    case PeerOp::kPost:
      return hub::PeerOp::kPost;
    case PeerOp::kTest:
      return hub::PeerOp::kTest;
    case PeerOp::kClose:
      return hub::PeerOp::kClose;
  }
  return hub::PeerOp::kTest;  // not reached: every PeerOp is listed
}

hub::PeerCall ToHub(const PeerCall& call) {
  hub::PeerCall out;
  out.op = ToHub(call.op);
  out.side = call.side == PeerSide::kRecv ? hub::PeerSide::kRecv : hub::PeerSide::kSend;
  out.lnc = call.lnc;
  out.peer_lnc = call.peer_lnc;
  out.id = call.id;
  out.buffer = hub::PeerBuffer{call.buffer.memory, call.buffer.offset, call.buffer.length};
  out.force = call.force;
  out.owner = call.owner;
  return out;
}

PeerReply FromHub(const hub::PeerReply& reply) {
  PeerReply out;
  out.id = reply.id;
  out.connected = reply.connected;
  out.request.done = reply.request.done;
  out.request.bytes = reply.request.bytes;
  out.request.status = reply.request.status;
  return out;
}

}  // namespace

StatusOr<std::vector<uint8_t>> SimDevice::HostCollective(const HostCollectiveCall& call,
                                                         const HostCollectiveOptions& options) {
  if (call.world_size == 0 || call.rank >= call.world_size) {
    return InvalidError("rank " + std::to_string(call.rank) + " is not within a world of " +
                        std::to_string(call.world_size));
  }
  return collectives_->HostCollective(ToHub(call), {options.host_timeout, options.cancel});
}

StatusOr<PeerReply> SimDevice::PointToPoint(const PeerCall& call) {
  if (call.op == PeerOp::kPost) {
    std::shared_lock lock(mutex_);  // released before the exchange copies (Copy takes it)
    TRNSIM_RETURN_IF_ERROR(
        Lookup(call.buffer.memory, call.buffer.offset, call.buffer.length).status());
  }
  TRNSIM_ASSIGN_OR_RETURN(hub::PeerReply reply, peers_.Call(ToHub(call)));
  return FromHub(reply);
}

}  // namespace trnsim::driver::sim
