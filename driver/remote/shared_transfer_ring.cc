// SharedTransfer's transfers through the region's request ring (shared_transfer.h,
// shared_ring.h): pieces posted to the daemon's ring thread, no RPC.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "driver/remote/shared_ring.h"
#include "driver/remote/shared_transfer.h"

namespace trnsim::driver::remote {
namespace {

using Clock = std::chrono::steady_clock;

// Longest single futex wait, so a deadline is noticed soon after it passes.
constexpr int64_t kWaitSliceNs = 10'000'000;

// Whether request `seq` has completed, modulo 2^32 (never more than kRingSlots apart).
bool Completed(const RingControl& control, uint32_t seq) {
  return static_cast<int32_t>(control.completed.load(std::memory_order_acquire) - seq) >= 0;
}

// A piece of a quarter of the transfer, in whole pages, between kMinRingPieceBytes and a slot.
uint64_t PieceBytes(uint64_t size, uint64_t slot_bytes) {
  const uint64_t quarter = (size + kRingSlots - 1) / kRingSlots;
  const uint64_t pages = (quarter + kRingControlBytes - 1) / kRingControlBytes * kRingControlBytes;
  return std::min(slot_bytes, std::max(pages, kMinRingPieceBytes));
}

}  // namespace

bool SharedTransfer::WaitRing(uint32_t seq, Clock::time_point deadline,
                              const SharedCallHooks& hooks, Status* gone) {
  auto* control = reinterpret_cast<RingControl*>(region_->data());
  while (!Completed(*control, seq)) {
    const int64_t left_ns =
        deadline == Clock::time_point::max()
            ? kWaitSliceNs
            : std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now())
                  .count();
    if (left_ns <= 0) return false;
    const uint32_t seen = control->completed.load(std::memory_order_acquire);
    FutexWait(&control->completed, seen, std::min(left_ns, kWaitSliceNs));
    if (control->completed.load(std::memory_order_acquire) == seen && hooks.session_status) {
      *gone = hooks.session_status();
      if (!gone->ok()) return false;
    }
  }
  return true;
}

StatusOr<std::string> SharedTransfer::Execute(const std::string& request,
                                              const SharedCallHooks& hooks) {
  auto* control = reinterpret_cast<RingControl*>(region_->data());
  const uint64_t slot_bytes = RingSlotBytes(region_->size());
  if (request.size() > slot_bytes) {
    return InvalidError("an execute request of " + std::to_string(request.size()) +
                        " bytes (a data slot holds " + std::to_string(slot_bytes) + ")");
  }
  const Clock::time_point deadline = hooks.ring_deadline.count() > 0
                                         ? Clock::now() + hooks.ring_deadline
                                         : Clock::time_point::max();
  const uint32_t seq = posted_ + 1;
  const uint32_t slot = (seq - 1) % kRingSlots;
  uint8_t* data = region_->data() + RingSlotOffset(region_->size(), slot);
  std::memcpy(data, request.data(), request.size());
  control->requests[slot] =
      RingRequest{static_cast<uint32_t>(RingOp::kExecute), 0, 0, 0, request.size()};
  posted_ = seq;
  control->posted.store(seq, std::memory_order_release);
  FutexWake(&control->posted);
  Status gone;
  if (!WaitRing(seq, deadline, hooks, &gone)) {
    broken_ = true;
    if (!gone.ok()) return gone;
    return TimeoutError("Execute: neurond did not complete the execution within " +
                        std::to_string(hooks.ring_deadline.count()) +
                        " ms; the shared-memory region is not used again");
  }
  TRNSIM_RETURN_IF_ERROR(LoadRingStatus(control->responses[slot]));
  const uint64_t reply_bytes = control->responses[slot].reply_bytes;
  if (reply_bytes > slot_bytes) {
    return FailureError("neurond's execute reply claims " + std::to_string(reply_bytes) +
                        " bytes, more than a data slot (" + std::to_string(slot_bytes) + ")");
  }
  return std::string(reinterpret_cast<const char*>(data), reply_bytes);
}

Status SharedTransfer::RunRing(bool write, MemoryHandle handle, uint64_t offset, uint8_t* host,
                               uint64_t size, const SharedCallHooks& hooks) {
  auto* control = reinterpret_cast<RingControl*>(region_->data());
  const uint64_t slot_bytes = RingSlotBytes(region_->size());
  const uint64_t piece_bytes = PieceBytes(size, slot_bytes);
  // A zero-byte transfer is one request of 0 bytes: the daemon still checks the range.
  const uint64_t pieces = size == 0 ? 1 : (size + piece_bytes - 1) / piece_bytes;
  const uint32_t first = posted_ + 1;  // request number of piece 0
  // A deadline of 0 or less is none (as for an RPC); `session_status` still notices a daemon that
  // has gone.
  const Clock::time_point deadline = hooks.ring_deadline.count() > 0
                                         ? Clock::now() + hooks.ring_deadline
                                         : Clock::time_point::max();
  Status result;
  Status gone;  // the daemon went away while a piece was in flight

  // Waits for piece `p`, folds its status into `result` and, for a Read that succeeded so far,
  // copies it out of its slot. False when the daemon did not answer in time.
  auto finish = [&](uint64_t p) {
    const uint32_t seq = first + static_cast<uint32_t>(p);
    if (!WaitRing(seq, deadline, hooks, &gone)) return false;
    const uint32_t slot = (seq - 1) % kRingSlots;
    if (!result.ok()) return true;
    result = LoadRingStatus(control->responses[slot]);
    const uint64_t done = p * piece_bytes;
    const uint64_t piece = size == 0 ? 0 : std::min(piece_bytes, size - done);
    if (result.ok() && !write && piece > 0) {  // a zero-size Read may pass a null `host`
      std::memcpy(host + done, region_->data() + RingSlotOffset(region_->size(), slot), piece);
    }
    return true;
  };

  uint64_t posted = 0, finished = 0;
  bool answered = true;
  for (; posted < pieces; ++posted) {
    if (posted >= kRingSlots) {
      answered = finish(finished++);
      if (!answered || !result.ok()) break;
    }
    const uint32_t seq = first + static_cast<uint32_t>(posted);
    const uint32_t slot = (seq - 1) % kRingSlots;
    const uint64_t done = posted * piece_bytes;
    const uint64_t piece = size == 0 ? 0 : std::min(piece_bytes, size - done);
    if (write && piece > 0) {
      std::memcpy(region_->data() + RingSlotOffset(region_->size(), slot), host + done, piece);
    }
    control->requests[slot] =
        RingRequest{static_cast<uint32_t>(write ? RingOp::kWrite : RingOp::kRead), 0, handle,
                    offset + done, piece};
    posted_ = seq;
    control->posted.store(seq, std::memory_order_release);
    FutexWake(&control->posted);
  }
  // The pieces still in flight, oldest first (a Read copies them out in order).
  while (answered && finished < posted) answered = finish(finished++);
  if (!answered) {
    broken_ = true;
    if (!gone.ok()) return gone;
    return TimeoutError(std::string(write ? "WriteShared" : "ReadShared") +
                        ": neurond did not complete a ring request within " +
                        std::to_string(hooks.ring_deadline.count()) +
                        " ms; the shared-memory region is not used again");
  }
  return result;
}

}  // namespace trnsim::driver::remote
