#include "tools/neurond/ring_server.h"

#include <cstring>

#include "common/log.h"

namespace trnsim::neurond {

namespace remote = driver::remote;

RingServer::RingServer(std::shared_ptr<remote::SharedRegion> region, Serve serve, std::string name,
                       Execute execute)
    : region_(std::move(region)),
      control_(reinterpret_cast<remote::RingControl*>(region_->data())),
      serve_(std::move(serve)),
      name_(std::move(name)),
      execute_(std::move(execute)),
      thread_([this] { Loop(); }) {}

RingServer::~RingServer() {
  stop_ = true;
  remote::FutexWake(&control_->posted);  // a wake lost to the race is caught by the wait slice
  thread_.join();
}

void RingServer::Loop() {
  uint32_t served = 0;  // this side's count; the shared `completed` is only ever written here
  control_->completed.store(0, std::memory_order_release);
  while (!stop_.load(std::memory_order_relaxed)) {
    const uint32_t posted = control_->posted.load(std::memory_order_acquire);
    if (posted == served) {
      remote::FutexWait(&control_->posted, served, kWaitSliceNs);
      continue;
    }
    if (posted - served > remote::kRingSlots) {
      TRNSIM_LOG(Warn, Tool) << name_ << ": the client posted " << (posted - served)
                             << " requests ahead of the daemon (at most " << remote::kRingSlots
                             << "); the ring is served no more";
      return;
    }
    const uint32_t slot = served % remote::kRingSlots;
    remote::RingRequest request;
    // One copy out of the shared page: the checks below and the transfer see the same values
    // whatever the client writes meanwhile.
    std::memcpy(&request, &control_->requests[slot], sizeof(request));
    const StatusOr<uint64_t> served_bytes = ServeOne(request, slot);
    const Status& status = served_bytes.status();
    if (!status.ok()) {
      TRNSIM_LOG(Warn, Tool) << name_ << " ring request: " << StatusCodeName(status.code()) << ": "
                             << status.message();
    }
    remote::StoreRingStatus(status, &control_->responses[slot]);
    control_->responses[slot].reply_bytes = served_bytes.ok() ? *served_bytes : 0;
    ++served;
    control_->completed.store(served, std::memory_order_release);
    remote::FutexWake(&control_->completed);
  }
}

StatusOr<uint64_t> RingServer::ServeOne(const remote::RingRequest& request, uint32_t slot) {
  const auto op = static_cast<remote::RingOp>(request.op);
  const bool execute = op == remote::RingOp::kExecute && execute_ != nullptr;
  if (op != remote::RingOp::kWrite && op != remote::RingOp::kRead && !execute) {
    return InvalidError("unknown ring op " + std::to_string(request.op));
  }
  const uint64_t slot_bytes = remote::RingSlotBytes(region_->size());
  if (request.size > slot_bytes) {
    return InvalidError("a ring request of " + std::to_string(request.size) +
                        " bytes (a data slot holds " + std::to_string(slot_bytes) + ")");
  }
  uint8_t* data = region_->data() + remote::RingSlotOffset(region_->size(), slot);
  if (execute) {
    // Parsed from a private copy: the client may write the slot at any time.
    const std::string copy(reinterpret_cast<const char*>(data), request.size);
    return execute_(copy, data, slot_bytes);
  }
  TRNSIM_RETURN_IF_ERROR(serve_(op, request.handle, request.offset, request.size, data));
  return uint64_t{0};
}

}  // namespace trnsim::neurond
