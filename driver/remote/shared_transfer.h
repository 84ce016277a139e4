// SharedTransfer: Device::Write and Device::Read of the remote back end through a registered
// SharedRegion (shared_region.h) instead of a chunked gRPC stream — the shared-memory data
// plane of a client on the daemon's host (docs/architecture.md, "Daemon data plane").
//
// The region is split into four slots. A transfer is cut into pieces of one slot each; each
// piece is one WriteShared or ReadShared RPC (gRPC carries only the request and the status)
// naming the slot and the device range, and up to four are in flight at once (gRPC's callback
// API), so the client's copy between the caller's buffer and one slot overlaps the daemon's
// copies between the other slots and device memory. A transfer of one piece is one blocking
// call. A Write copies a piece into its slot before its RPC is sent; a Read copies a piece out
// of its slot after its RPC has answered. A slot is reused only after its previous RPC answered.
// A refusal of any piece (the daemon's NrtStatus, or a transport failure through
// `transport_error`) stops the transfer after the pieces in flight have answered, and is
// returned; like a refused stream, it leaves the device range's contents unspecified.
//
// With a request ring (shared_ring.h; `ring` when the daemon accepted one at registration) no RPC
// is made at all: the region's first page holds the ring, the rest four data slots, and each
// piece is a ring request, up to four posted at once. A transfer is cut into four pieces (each
// of kMinRingPieceBytes to a data slot) so the client's copies overlap the daemon's even for a
// small transfer. A ring whose daemon does not answer within the hooks' deadline, or has dropped
// the session, is broken() from then on (NRT_TIMEOUT), as its slots may still be in use; the caller
// then uses the streams.
//
// Thread safety: one transfer at a time per object; TryLock lets the remote back end fall back
// to the stream for a transfer that finds the region busy.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "common/status_or.h"
#include "driver/device.h"
#include "driver/remote/shared_region.h"
#include "driver/remote/shared_ring.h"
#include "proto/neurond.grpc.pb.h"

namespace trnsim::driver::remote {

// How the remote back end makes each RPC of a transfer: `prepare` sets the deadline and the
// session key of a context; `transport_error` words a failed RPC's gRPC status.
struct SharedCallHooks {
  std::function<void(grpc::ClientContext*)> prepare;
  std::function<Status(const char* rpc, const grpc::Status&)> transport_error;
  // How long a ring transfer waits for the daemon (0 or less: no limit).
  std::chrono::milliseconds ring_deadline{0};
  // Polled while a ring transfer waits: not OK once the daemon has dropped the session (the
  // transfer then returns it, and the region is broken()). Unset: not polled.
  std::function<Status()> session_status;
};

// Smallest piece of a ring transfer cut in four (below it, the copies are too short to overlap).
inline constexpr uint64_t kMinRingPieceBytes = 64 * 1024;

class SharedTransfer {
 public:
  SharedTransfer(std::unique_ptr<SharedRegion> region, uint64_t region_id,
                 neurond::v1::Neurond::Stub* stub, bool ring = false, bool ring_execute = false)
      : region_(std::move(region)),
        region_id_(region_id),
        stub_(stub),
        // A region too small for the ring's layout uses the RPCs, whatever the daemon said.
        ring_(ring && region_->size() >= kMinRingRegionBytes),
        ring_execute_(ring_ && ring_execute) {}

  std::unique_lock<std::mutex> TryLock() {
    return std::unique_lock<std::mutex>(mutex_, std::try_to_lock);
  }

  // The caller holds TryLock's lock. `src` / `dst` may be null only when size is 0.
  Status Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size,
               const SharedCallHooks& hooks);
  Status Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size,
              const SharedCallHooks& hooks);

  uint64_t region_bytes() const { return region_->size(); }
  bool ring() const { return ring_; }
  // The daemon runs executions posted on the ring (RingOp kExecute).
  bool ring_execute() const { return ring_execute_; }
  // One execution through the ring: `request` (a serialised ExecuteRequest, at most a data slot:
  // NRT_INVALID otherwise, before anything is posted) posted as one request, the daemon's
  // serialised ExecuteResponse returned. The caller holds TryLock's lock and ring_execute() is
  // true. A daemon that does not answer within hooks.ring_deadline breaks the region, as for a
  // transfer.
  StatusOr<std::string> Execute(const std::string& request, const SharedCallHooks& hooks);
  // A ring transfer timed out: the region must not be used again. Read under TryLock's lock.
  bool broken() const { return broken_; }

 private:
  Status Run(bool write, MemoryHandle handle, uint64_t offset, uint8_t* host, uint64_t size,
             const SharedCallHooks& hooks);
  Status RunRing(bool write, MemoryHandle handle, uint64_t offset, uint8_t* host, uint64_t size,
                 const SharedCallHooks& hooks);
  // Waits until ring request `seq` has completed or `deadline` passes; false when it did not
  // complete, with *gone set when the daemon dropped the session meanwhile.
  bool WaitRing(uint32_t seq, std::chrono::steady_clock::time_point deadline,
                const SharedCallHooks& hooks, Status* gone);

  std::mutex mutex_;
  const std::unique_ptr<SharedRegion> region_;
  const uint64_t region_id_;
  neurond::v1::Neurond::Stub* const stub_;
  const bool ring_;
  const bool ring_execute_;
  uint32_t posted_ = 0;  // the ring's last request number (shared_ring.h)
  bool broken_ = false;
};

}  // namespace trnsim::driver::remote
