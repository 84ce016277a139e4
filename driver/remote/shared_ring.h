// The request ring of a shared-memory region (proto/neurond.proto, SharedRegionRequest.ring):
// the layout both processes agree on, and the futex calls that wake one side for the other.
//
// The region's first kRingControlBytes hold a RingControl; the rest is cut into kRingSlots data
// slots of RingSlotBytes() each (slot s starts at RingSlotOffset(s)). The client posts transfer
// k (k = 1, 2, ... modulo 2^32) in request slot (k - 1) % kRingSlots — for a write its bytes are
// already in the matching data slot — then stores k in `posted` and wakes the daemon. The daemon
// serves the requests in order, writes each one's status into the matching response slot —
// for a read its bytes are then in the data slot — stores k in `completed` and wakes the client.
// The client never has more than kRingSlots transfers posted and not completed.
//
// The daemon trusts nothing in the control page: it copies a request out once before checking
// it, takes a slot's data range from the slot's index (never from the client), and stops serving
// a ring whose `posted` runs more than kRingSlots ahead of what it served. Each side reads the
// other's fields with atomic loads, since the other process may write them at any time.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace trnsim::driver::remote {

inline constexpr uint64_t kRingControlBytes = 4096;
inline constexpr uint32_t kRingSlots = 4;
// Smallest region with a ring: the control page and a page per data slot.
inline constexpr uint64_t kMinRingRegionBytes = kRingControlBytes * (1 + kRingSlots);

// kWrite: data slot -> device. kExecute: the data slot holds a serialised ExecuteRequest of
// `size` bytes (handle and offset unused); once served, a serialised ExecuteResponse of the
// response's reply_bytes (proto/README.md "Shared-memory data plane"). Only on a ring
// registered with SharedRegionRequest.ring_execute.
enum class RingOp : uint32_t { kWrite = 1, kRead = 2, kExecute = 3 };

struct RingRequest {
  uint32_t op;  // a RingOp; anything else is refused with NRT_INVALID
  uint32_t reserved;
  uint64_t handle;  // the session's memory handle, as in SharedTransferRequest
  uint64_t offset;  // into that memory
  uint64_t size;    // at most RingSlotBytes()
};

// A status in a response slot: an NRT_STATUS code and the first message_bytes of its message;
// for kExecute served with code 0, the bytes of the reply in the data slot.
struct RingResponse {
  uint32_t code;
  uint32_t message_bytes;
  uint64_t reply_bytes;
  char message[240];
};

struct RingControl {
  alignas(64) std::atomic<uint32_t> posted;     // written by the client only
  alignas(64) std::atomic<uint32_t> completed;  // written by the daemon only
  alignas(64) RingRequest requests[kRingSlots];
  RingResponse responses[kRingSlots];
};
static_assert(sizeof(RingControl) <= kRingControlBytes);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// Bytes of each data slot of a region of `region_bytes` (>= kMinRingRegionBytes): an equal
// share of what follows the control page, in whole pages.
inline uint64_t RingSlotBytes(uint64_t region_bytes) {
  return (region_bytes - kRingControlBytes) / kRingSlots / kRingControlBytes * kRingControlBytes;
}
inline uint64_t RingSlotOffset(uint64_t region_bytes, uint32_t slot) {
  return kRingControlBytes + uint64_t{slot} * RingSlotBytes(region_bytes);
}

// Blocks while `*word` == `seen`, at most `timeout_ns`; returns early on a wake, a signal or a
// spurious wake-up, so callers re-check. Works across processes (not FUTEX_PRIVATE).
void FutexWait(std::atomic<uint32_t>* word, uint32_t seen, int64_t timeout_ns);
// Wakes every waiter on `word`.
void FutexWake(std::atomic<uint32_t>* word);

// A Status into / out of a response slot (the message cut to fit; an unknown code read back is
// NRT_INVALID, as StatusFromProto does).
void StoreRingStatus(const Status& status, RingResponse* out);
Status LoadRingStatus(const RingResponse& in);

}  // namespace trnsim::driver::remote
