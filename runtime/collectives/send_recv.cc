#include "runtime/collectives/send_recv.h"

#include <utility>

#include "common/log.h"
#include "runtime/collectives/this_host.h"

namespace trnsim::runtime::collectives {

namespace p2p = driver;
using Clock = std::chrono::steady_clock;

struct SendRecv::Comm {
  bool send = true;
  int lnc = 0;
  int peer_lnc = 0;
  uint64_t id = 0;         // the exchange's
  bool connected = false;  // tested connected
  Clock::time_point opened;
};

struct SendRecv::Request {
  Comm* comm = nullptr;
  int lnc = 0;
  uint64_t id = 0;  // the exchange's
  Clock::time_point posted;
  std::shared_ptr<const void> pin;  // the posted tensor's storage, until done or forgotten
};

namespace {

std::string CommText(const SendRecv::Comm& comm);

}  // namespace

SendRecv::SendRecv(driver::Device* device, Options options)
    : device_(device), options_(std::move(options)) {}

SendRecv::~SendRecv() = default;

Status SendRecv::CheckCore(int lnc, const char* what) const {
  auto it = cores_.find(lnc);
  if (it == cores_.end() || !it->second.initialised) {
    return InvalidError(std::string(what) + ": logical core " + std::to_string(lnc) +
                        " has no async send/recv: call nrt_async_sendrecv_init(" +
                        std::to_string(lnc) + ") first");
  }
  return Status::Ok();
}

Status SendRecv::CheckComm(const Comm* comm) const {
  if (comm == nullptr || !comms_.count(const_cast<Comm*>(comm))) {
    return InvalidHandleError(
        "comm handle is not live (never returned, or closed by nrt_async_sendrecv_close)");
  }
  return Status::Ok();
}

Status SendRecv::Init(int lnc) {
  if (!options_.enabled) {
    return FailureError(
        "async send/recv is experimental: set NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED=1 "
        "before nrt_init to use it");
  }
  std::lock_guard lock(mutex_);
  Core& core = cores_[lnc];
  if (core.close_failed) {
    return FailureError("logical core " + std::to_string(lnc) +
                        ": the previous nrt_async_sendrecv_close failed; close it first");
  }
  if (core.initialised) {
    return InvalidError("logical core " + std::to_string(lnc) +
                        " already has async send/recv initialised");
  }
  core = Core{};
  core.initialised = true;
  return Status::Ok();
}

Status SendRecv::Close(int lnc) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckCore(lnc, "close"));
  p2p::PeerCall call;
  call.op = p2p::PeerOp::kClose;
  call.lnc = lnc;
  StatusOr<p2p::PeerReply> closed = device_->PointToPoint(call);
  if (!closed.ok()) {
    cores_[lnc].close_failed = true;
    return closed.status();
  }
  Forget(lnc);
  cores_.erase(lnc);
  return Status::Ok();
}

void SendRecv::CloseAll() {
  std::lock_guard lock(mutex_);
  for (auto& [lnc, core] : cores_) {
    if (!core.initialised) continue;
    TRNSIM_LOG(Warn, Nrt) << "nrt_close: logical core " << lnc
                          << " still had async send/recv initialised; closing it (" << core.comms
                          << " comms, " << core.pending << " requests not tested done are dropped)";
    p2p::PeerCall call;
    call.op = p2p::PeerOp::kClose;
    call.lnc = lnc;
    call.force = true;
    StatusOr<p2p::PeerReply> closed = device_->PointToPoint(call);
    if (!closed.ok()) {
      TRNSIM_LOG(Warn, Nrt) << "nrt_close: closing async send/recv of logical core " << lnc << ": "
                            << closed.status().ToString();
    }
    Forget(lnc);
  }
  cores_.clear();
}

void SendRecv::Forget(int lnc) {
  for (auto it = requests_.begin(); it != requests_.end();) {
    it = it->second->lnc == lnc ? requests_.erase(it) : std::next(it);
  }
  for (auto it = comms_.begin(); it != comms_.end();) {
    it = it->second->lnc == lnc ? comms_.erase(it) : std::next(it);
  }
}

StatusOr<SendRecv::Comm*> SendRecv::Connect(bool send, const std::string& peer_ip, int peer_lnc,
                                            int lnc) {
  if (!IsThisHost(peer_ip)) {
    return FailureError("peer '" + peer_ip +
                        "' is not this host: peers on other hosts are not emulated (use "
                        "127.0.0.1, localhost, ::1 or this host's name or addresses)");
  }
  if (peer_lnc < 0 || peer_lnc >= options_.total_lnc_count) {
    return InvalidError("peer_lnc " + std::to_string(peer_lnc) +
                        " is not a logical core of the instance (0.." +
                        std::to_string(options_.total_lnc_count - 1) + ")");
  }
  if (peer_lnc == lnc) {
    return InvalidError("logical core " + std::to_string(lnc) + " cannot be its own peer");
  }
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckCore(lnc, send ? "connect" : "accept"));
  Core& core = cores_[lnc];
  if (core.comms >= kMaxCommsPerLnc) {
    return ResourceError("logical core " + std::to_string(lnc) + " already has " +
                         std::to_string(kMaxCommsPerLnc) +
                         " comms (nrt_async_sendrecv_get_max_num_communicators_per_lnc)");
  }
  p2p::PeerCall call;
  call.op = p2p::PeerOp::kOpen;
  call.side = send ? p2p::PeerSide::kSend : p2p::PeerSide::kRecv;
  call.lnc = lnc;
  call.peer_lnc = peer_lnc;
  TRNSIM_ASSIGN_OR_RETURN(p2p::PeerReply reply, device_->PointToPoint(call));
  auto comm = std::make_unique<Comm>();
  comm->send = send;
  comm->lnc = lnc;
  comm->peer_lnc = peer_lnc;
  comm->id = reply.id;
  comm->opened = Clock::now();
  Comm* handle = comm.get();
  comms_.emplace(handle, std::move(comm));
  ++core.comms;
  return handle;
}

StatusOr<bool> SendRecv::TestComm(Comm* comm) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckComm(comm));
  if (comm->connected) return true;
  p2p::PeerCall call;
  call.op = p2p::PeerOp::kConnected;
  call.id = comm->id;
  TRNSIM_ASSIGN_OR_RETURN(p2p::PeerReply reply, device_->PointToPoint(call));
  if (reply.connected) {
    comm->connected = true;
    return true;
  }
  if (Clock::now() - comm->opened > options_.timeout) {
    return TimeoutError(CommText(*comm) + " was not connected within " +
                        std::to_string(options_.timeout.count()) +
                        " ms (NEURON_RT_EXEC_TIMEOUT): the peer never made the matching " +
                        (comm->send ? "accept" : "connect"));
  }
  return false;
}

StatusOr<SendRecv::Request*> SendRecv::Post(Comm* comm, driver::MemoryHandle memory,
                                            uint64_t offset, uint64_t length,
                                            std::shared_ptr<const void> pin) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckComm(comm));
  if (!comm->connected) {
    return InvalidError(CommText(*comm) +
                        " has not tested connected: poll nrt_async_sendrecv_test_comm first");
  }
  Core& core = cores_[comm->lnc];
  if (core.pending >= kMaxPendingRequests) {
    return ResourceError("logical core " + std::to_string(comm->lnc) + " already has " +
                         std::to_string(kMaxPendingRequests) +
                         " requests not tested done "
                         "(nrt_async_sendrecv_get_max_num_pending_request)");
  }
  p2p::PeerCall call;
  call.op = p2p::PeerOp::kPost;
  call.id = comm->id;
  call.buffer = p2p::PeerBuffer{memory, offset, length};
  TRNSIM_ASSIGN_OR_RETURN(p2p::PeerReply reply, device_->PointToPoint(call));
  auto request = std::make_unique<Request>();
  request->comm = comm;
  request->lnc = comm->lnc;
  request->id = reply.id;
  request->posted = Clock::now();
  request->pin = std::move(pin);
  Request* handle = request.get();
  requests_.emplace(handle, std::move(request));
  ++core.pending;
  return handle;
}

StatusOr<SendRecv::RequestState> SendRecv::TestRequest(Request* request) {
  std::lock_guard lock(mutex_);
  auto it = requests_.find(request);
  if (request == nullptr || it == requests_.end()) {
    return InvalidHandleError(
        "request handle is not live (never returned, already tested done, or closed by "
        "nrt_async_sendrecv_close)");
  }
  p2p::PeerCall call;
  call.op = p2p::PeerOp::kTest;
  call.id = request->id;
  TRNSIM_ASSIGN_OR_RETURN(p2p::PeerReply reply, device_->PointToPoint(call));
  if (!reply.request.done) {
    if (Clock::now() - request->posted > options_.timeout) {
      return TimeoutError("a request on " + CommText(*request->comm) + " was not matched within " +
                          std::to_string(options_.timeout.count()) +
                          " ms (NEURON_RT_EXEC_TIMEOUT): the peer never posted its side");
    }
    return RequestState{false, 0};
  }
  --cores_[request->lnc].pending;
  requests_.erase(it);
  if (!reply.request.status.ok()) return reply.request.status;
  return RequestState{true, reply.request.bytes};
}

Status SendRecv::Flush(int lnc) {
  std::lock_guard lock(mutex_);
  return CheckCore(lnc, "flush");
}

namespace {

std::string CommText(const SendRecv::Comm& comm) {
  return std::string(comm.send ? "send" : "receive") + " comm of logical core " +
         std::to_string(comm.lnc) + (comm.send ? " to " : " from ") + std::to_string(comm.peer_lnc);
}

}  // namespace

}  // namespace trnsim::runtime::collectives
