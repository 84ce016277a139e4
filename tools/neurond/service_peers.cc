// The point-to-point RPC of NeurondService: one operation of the Device's PeerExchange
// (driver::Device::PointToPoint) for the async send/recv of the session's process. A POST's
// memory handle is the session's and is mapped to the Device's (unknown: NRT_INVALID_HANDLE;
// range outside the allocation: NRT_INVALID), so the bytes move inside the daemon. The daemon
// remembers the logical cores each session opened ends on, and when the session ends (its
// process exited or died) closes them with force: the peers' requests fail with NRT_FAILURE
// rather than wait for their deadline.
// Isolation (README "Security model"): an OPEN names a logical core the session holds (all of
// its LogicalCoreSize physical cores) and a peer core of the instance, else NRT_INVALID; every
// operation carries the session as the exchange's owner, so another session's comm and request
// ids are NRT_INVALID (nothing changes) and a CLOSE closes only the session's own ends.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "common/log.h"
#include "driver/remote/convert.h"
#include "tools/neurond/service.h"

namespace trnsim::neurond {

grpc::Status NeurondService::PointToPoint(grpc::ServerContext* context,
                                          const v1::PointToPointRequest* request,
                                          v1::PointToPointResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "PointToPoint", &denied);
  if (session == nullptr) return denied;
  using driver::PeerOp;
  auto run = [&]() -> trnsim::Status {
    driver::PeerCall call;
    switch (request->op()) {
      case v1::PEER_OPEN:
        call.op = PeerOp::kOpen;
        break;
      case v1::PEER_CONNECTED:
        call.op = PeerOp::kConnected;
        break;
      case v1::PEER_POST:
        call.op = PeerOp::kPost;
        break;
      case v1::PEER_TEST:
        call.op = PeerOp::kTest;
        break;
      case v1::PEER_CLOSE:
        call.op = PeerOp::kClose;
        break;
      default:
        return InvalidError("PointToPointRequest.op " + std::to_string(request->op()) +
                            " is not an operation");
    }
    switch (request->side()) {
      case v1::PEER_SEND:
        call.side = driver::PeerSide::kSend;
        break;
      case v1::PEER_RECV:
        call.side = driver::PeerSide::kRecv;
        break;
      default:
        return InvalidError("PointToPointRequest.side " + std::to_string(request->side()) +
                            " is not a side");
    }
    call.lnc = request->lnc();
    call.peer_lnc = request->peer_lnc();
    call.id = request->id();
    call.force = request->force();
    call.owner = session->identity().id;
    call.buffer.offset = request->offset();
    call.buffer.length = request->length();
    if (call.op == PeerOp::kOpen) {
      const int size = LogicalCoreSize();
      const int logical_cores = device_->instance_spec().PhysicalCores() / size;
      if (call.lnc < 0 || call.lnc >= logical_cores || call.peer_lnc < 0 ||
          call.peer_lnc >= logical_cores) {
        return InvalidError("point-to-point: logical core " + std::to_string(call.lnc) +
                            " or peer " + std::to_string(call.peer_lnc) + " is not one of the " +
                            std::to_string(logical_cores) + " logical cores of the instance (LNC " +
                            std::to_string(size) + ")");
      }
      for (int physical = call.lnc * size; physical < (call.lnc + 1) * size; ++physical) {
        if (!session->HoldsCore(physical)) {
          return InvalidError("point-to-point: logical core " + std::to_string(call.lnc) +
                              " (physical cores " + std::to_string(call.lnc * size) + "-" +
                              std::to_string((call.lnc + 1) * size - 1) + " at LNC " +
                              std::to_string(size) + ") is not held by this session");
        }
      }
    }
    if (call.op == PeerOp::kPost) {
      TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory memory,
                              session->Resolve(request->memory_handle()));
      const uint64_t limit = memory.info.size_bytes;
      if (call.buffer.offset > limit || call.buffer.length > limit - call.buffer.offset) {
        return InvalidError("range [" + std::to_string(call.buffer.offset) + ", +" +
                            std::to_string(call.buffer.length) + ") is outside the " +
                            std::to_string(limit) + "-byte allocation");
      }
      call.buffer.memory = memory.device_handle;
    }
    TRNSIM_ASSIGN_OR_RETURN(driver::PeerReply reply, device_->PointToPoint(call));
    if (call.op == PeerOp::kOpen) {
      {
        std::lock_guard lock(peers_mutex_);
        peer_cores_[session->identity().id].insert(call.lnc);
      }
      // Ended while opening: EndSession's ClosePeers may have run already; close it again.
      if (session->closed()) ClosePeers(session->identity().id);
    }
    response->set_id(reply.id);
    response->set_connected(reply.connected);
    response->set_done(reply.request.done);
    response->set_bytes(reply.request.bytes);
    if (reply.request.done) {
      driver::remote::ToProto(reply.request.status, response->mutable_transfer_status());
    }
    return trnsim::Status::Ok();
  };
  Reply(*session, "PointToPoint", run(), response->mutable_status());
  return grpc::Status::OK;
}

int NeurondService::LogicalCoreSize() const {
  return std::max(1, options_.lnc > 0 ? options_.lnc : device_->instance_spec().default_lnc);
}

void NeurondService::ClosePeers(uint64_t session_id) {
  std::set<int> cores;
  {
    std::lock_guard lock(peers_mutex_);
    auto it = peer_cores_.find(session_id);
    if (it == peer_cores_.end()) return;
    cores = std::move(it->second);
    peer_cores_.erase(it);
  }
  for (int lnc : cores) {
    driver::PeerCall call;
    call.op = driver::PeerOp::kClose;
    call.lnc = lnc;
    call.force = true;
    call.owner = session_id;
    trnsim::Status closed = device_->PointToPoint(call).status();
    if (!closed.ok()) {
      TRNSIM_LOG(Warn, Tool) << "session " << session_id
                             << " ended: closing the point-to-point ends of logical core " << lnc
                             << ": " << closed.ToString();
    }
  }
}

}  // namespace trnsim::neurond
