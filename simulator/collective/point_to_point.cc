#include "simulator/collective/point_to_point.h"

#include <utility>
#include <vector>

namespace trnsim::simulator::collective {
namespace {

std::string RouteText(int from, int to) {
  return "logical core " + std::to_string(from) + " -> " + std::to_string(to);
}

Status NotTheCallers(const char* what, uint64_t id) {
  return InvalidError(std::string("point-to-point: ") + what + " " + std::to_string(id) +
                      " belongs to another caller");
}

}  // namespace

PeerExchange::PeerExchange(Copier copier) : copier_(std::move(copier)) {}

StatusOr<uint64_t> PeerExchange::Open(PeerSide side, int lnc, int peer_lnc, uint64_t owner) {
  if (lnc < 0 || peer_lnc < 0) {
    return InvalidError("point-to-point: logical core " + std::to_string(lnc) + " or peer " +
                        std::to_string(peer_lnc) + " is negative");
  }
  if (lnc == peer_lnc) {
    return InvalidError("point-to-point: logical core " + std::to_string(lnc) +
                        " cannot be its own peer");
  }
  const int sender = side == PeerSide::kSend ? lnc : peer_lnc;
  const int receiver = side == PeerSide::kSend ? peer_lnc : lnc;
  std::lock_guard lock(mutex_);
  Opened& opened = opened_[{sender, receiver}];
  uint64_t& ordinal = side == PeerSide::kSend ? opened.sends : opened.recvs;
  ChannelKey key{sender, receiver, ordinal++};
  const uint64_t id = next_id_++;
  Channel& channel = channels_[key];
  (side == PeerSide::kSend ? channel.send_comm : channel.recv_comm) = id;
  comms_.emplace(id, Comm{side, lnc, key, owner});
  return id;
}

StatusOr<bool> PeerExchange::Connected(uint64_t comm, uint64_t owner) {
  std::lock_guard lock(mutex_);
  auto it = comms_.find(comm);
  if (it == comms_.end()) {
    return InvalidHandleError("point-to-point: comm " + std::to_string(comm) + " is not open");
  }
  if (it->second.owner != owner) return NotTheCallers("comm", comm);
  const Channel& channel = channels_.at(it->second.channel);
  const bool send_there = channel.send_comm != 0 || channel.send_closed;
  const bool recv_there = channel.recv_comm != 0 || channel.recv_closed;
  return send_there && recv_there;
}

StatusOr<uint64_t> PeerExchange::Post(uint64_t comm, const PeerBuffer& buffer,
                                      uint64_t owner) {
  std::lock_guard lock(mutex_);
  auto it = comms_.find(comm);
  if (it == comms_.end()) {
    return InvalidHandleError("point-to-point: comm " + std::to_string(comm) + " is not open");
  }
  if (it->second.owner != owner) return NotTheCallers("comm", comm);
  const Comm& c = it->second;
  Channel& channel = channels_.at(c.channel);
  const auto& [sender, receiver, ordinal] = c.channel;
  const bool sending = c.side == PeerSide::kSend;
  const bool partner_opened = sending ? (channel.recv_comm != 0 || channel.recv_closed)
                                      : (channel.send_comm != 0 || channel.send_closed);
  if (!partner_opened) {
    return FailureError("point-to-point: comm " + std::to_string(comm) + " (" +
                        RouteText(sender, receiver) + ") is not connected yet");
  }
  const uint64_t id = next_id_++;
  Request& request = requests_.emplace(id, Request{comm, c.lnc, owner, buffer, {}}).first->second;
  const bool partner_closed = sending ? channel.recv_closed : channel.send_closed;
  if (partner_closed) {
    Complete(request,
             FailureError("point-to-point: the peer of " + RouteText(sender, receiver) +
                          " closed its end"),
             0);
    return id;
  }
  std::deque<uint64_t>& theirs = sending ? channel.pending_recvs : channel.pending_sends;
  if (theirs.empty()) {
    (sending ? channel.pending_sends : channel.pending_recvs).push_back(id);
    return id;
  }
  Request& partner = requests_.at(theirs.front());
  theirs.pop_front();
  if (sending) {
    Transfer(request, partner);
  } else {
    Transfer(partner, request);
  }
  return id;
}

void PeerExchange::Transfer(Request& send, Request& recv) {
  if (send.buffer.length != recv.buffer.length) {
    Status mismatch =
        InvalidError("point-to-point: a send of " + std::to_string(send.buffer.length) +
                     " bytes met a receive of " + std::to_string(recv.buffer.length) +
                     " bytes (the n-th send and n-th receive of a comm must have the same length)");
    Complete(send, mismatch, 0);
    Complete(recv, mismatch, 0);
    return;
  }
  Status copied = send.buffer.length == 0
                      ? Status::Ok()
                      : copier_(send.buffer.memory, send.buffer.offset, recv.buffer.memory,
                                recv.buffer.offset, send.buffer.length);
  const uint64_t bytes = copied.ok() ? send.buffer.length : 0;
  Complete(send, copied, bytes);
  Complete(recv, copied, bytes);
}

void PeerExchange::Complete(Request& request, Status status, uint64_t bytes) {
  request.state.done = true;
  request.state.bytes = bytes;
  request.state.status = std::move(status);
}

StatusOr<PeerRequestState> PeerExchange::Test(uint64_t request, uint64_t owner) {
  std::lock_guard lock(mutex_);
  auto it = requests_.find(request);
  if (it == requests_.end()) {
    return InvalidHandleError("point-to-point: request " + std::to_string(request) +
                              " is not pending");
  }
  if (it->second.owner != owner) return NotTheCallers("request", request);
  PeerRequestState state = it->second.state;
  if (state.done) requests_.erase(it);
  return state;
}

Status PeerExchange::Close(int lnc, bool force, uint64_t owner) {
  std::lock_guard lock(mutex_);
  std::vector<uint64_t> mine;
  for (const auto& [id, comm] : comms_) {
    if (comm.lnc == lnc && comm.owner == owner) mine.push_back(id);
  }
  if (!force) {
    for (uint64_t id : mine) {
      const Comm& comm = comms_.at(id);
      const Channel& channel = channels_.at(comm.channel);
      const bool sending = comm.side == PeerSide::kSend;
      const bool partner_opened = sending ? (channel.recv_comm != 0 || channel.recv_closed)
                                          : (channel.send_comm != 0 || channel.send_closed);
      if (!partner_opened) {
        return FailureError("point-to-point: logical core " + std::to_string(lnc) +
                            " has a comm that is not connected");
      }
      if (!(sending ? channel.pending_sends : channel.pending_recvs).empty()) {
        return FailureError("point-to-point: logical core " + std::to_string(lnc) +
                            " has requests in flight");
      }
    }
  }
  for (uint64_t id : mine) {
    const Comm comm = comms_.at(id);
    comms_.erase(id);
    auto channel_it = channels_.find(comm.channel);
    Channel& channel = channel_it->second;
    const bool sending = comm.side == PeerSide::kSend;
    std::deque<uint64_t>& own = sending ? channel.pending_sends : channel.pending_recvs;
    for (uint64_t r : own) requests_.erase(r);
    own.clear();
    std::deque<uint64_t>& theirs = sending ? channel.pending_recvs : channel.pending_sends;
    for (uint64_t r : theirs) {
      const auto& [sender, receiver, ordinal] = comm.channel;
      Complete(requests_.at(r),
               FailureError("point-to-point: the peer of " + RouteText(sender, receiver) +
                            " closed its end"),
               0);
    }
    theirs.clear();
    if (sending) {
      channel.send_comm = 0;
      channel.send_closed = true;
    } else {
      channel.recv_comm = 0;
      channel.recv_closed = true;
    }
    if (channel.send_closed && channel.recv_closed) channels_.erase(channel_it);
  }
  // Done requests of the closed ends that were never tested.
  for (auto it = requests_.begin(); it != requests_.end();) {
    if (it->second.lnc == lnc && it->second.owner == owner && !comms_.count(it->second.comm)) {
      it = requests_.erase(it);
    } else {
      ++it;
    }
  }
  return Status::Ok();
}

StatusOr<PeerReply> PeerExchange::Call(const PeerCall& call) {
  PeerReply reply;
  switch (call.op) {
    case PeerOp::kOpen: {
      TRNSIM_ASSIGN_OR_RETURN(reply.id, Open(call.side, call.lnc, call.peer_lnc, call.owner));
      return reply;
    }
    case PeerOp::kConnected: {
      TRNSIM_ASSIGN_OR_RETURN(reply.connected, Connected(call.id, call.owner));
      return reply;
    }
    case PeerOp::kPost: {
      TRNSIM_ASSIGN_OR_RETURN(reply.id, Post(call.id, call.buffer, call.owner));
      return reply;
    }
    case PeerOp::kTest: {
      TRNSIM_ASSIGN_OR_RETURN(reply.request, Test(call.id, call.owner));
      return reply;
    }
    case PeerOp::kClose:
      TRNSIM_RETURN_IF_ERROR(Close(call.lnc, call.force, call.owner));
      return reply;
  }
  return InvalidError("point-to-point: operation " + std::to_string(int(call.op)) + " is unknown");
}

}  // namespace trnsim::simulator::collective
