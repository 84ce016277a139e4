// SharedRegion: a memfd mapped MAP_SHARED, the memory of neurond's shared-memory data plane
// (proto/neurond.proto, "Shared-memory data plane"; docs/architecture.md). A client on the
// daemon's host creates one (Create), registers it on the daemon's side socket
// (RegisterSharedRegion) and then moves tensor bytes through it with WriteShared / ReadShared,
// gRPC carrying only the requests; the daemon maps the descriptor it received (Map).
//
// Create: memfd_create (close-on-exec, sealing allowed), sized, then sealed with F_SEAL_SHRINK,
// F_SEAL_GROW and F_SEAL_SEAL, so neither side can ever change its size again.
// Map (the daemon's side) trusts nothing the client sent: the descriptor must be a memfd
// (F_GET_SEALS works only on those) sealed against shrinking — else a client could truncate it
// and the daemon's next access past the new end would be SIGBUS — of 1 byte to `max_bytes`
// (fstat), writable (no F_SEAL_WRITE / F_SEAL_FUTURE_WRITE); anything else is NRT_INVALID naming
// what is wrong. Its size is fixed at Map from fstat and every transfer is checked against it
// (CheckRange), never against a size the client states.
//
// Thread safety: a region's bytes are shared memory, read and written by both processes at
// once; the protocol gives each transfer a range only one side uses at a time. The object itself
// is immutable after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status_or.h"
#include "driver/remote/fd_passing.h"

namespace trnsim::driver::remote {

// Largest region a daemon maps (address space only: the pages are the client's memfd's).
inline constexpr uint64_t kMaxSharedRegionBytes = uint64_t{1} << 30;
// Largest SharedRegionResponse a client accepts (a status message of a few hundred bytes at
// most).
inline constexpr size_t kMaxSharedRegionReplyBytes = 4096;

class SharedRegion {
 public:
  static StatusOr<std::unique_ptr<SharedRegion>> Create(uint64_t size_bytes);
  static StatusOr<std::unique_ptr<SharedRegion>> Map(UniqueFd fd, uint64_t max_bytes);
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  // The memfd (Create only; Map closes the received one once mapped).
  int fd() const { return fd_.get(); }
  // NRT_INVALID unless [offset, offset + size) lies inside the region (end not wrapping).
  Status CheckRange(uint64_t offset, uint64_t size) const;

 private:
  SharedRegion(uint8_t* data, uint64_t size, UniqueFd fd)
      : data_(data), size_(size), fd_(std::move(fd)) {}

  uint8_t* const data_;
  const uint64_t size_;
  UniqueFd fd_;
};

// Registers `region` with the session of `session_key` on the daemon's side socket at
// `socket_path`, waiting at most `timeout_ms` for each step; returns the region id the daemon
// gave it. NRT_FAILURE when the socket cannot be reached, the daemon's refusal otherwise.
StatusOr<uint64_t> RegisterSharedRegion(const SharedRegion& region, const std::string& socket_path,
                                        const std::string& session_key, int timeout_ms);

// As RegisterSharedRegion, asking the daemon to serve the region's request ring
// (shared_ring.h) too; `ring` says whether it does (an older daemon, or a region smaller than
// kMinRingRegionBytes, gets none).
struct RegisteredRegion {
  uint64_t id = 0;
  bool ring = false;
  bool ring_execute = false;  // the ring runs executions too (asked for with the ring)
};
StatusOr<RegisteredRegion> RegisterSharedRegionWithRing(const SharedRegion& region,
                                                        const std::string& socket_path,
                                                        const std::string& session_key,
                                                        int timeout_ms);

// The side socket of a daemon listening on unix:`grpc_socket_path`: the same path + ".shm";
// empty when that does not fit a unix socket address.
std::string SharedMemorySocketPath(const std::string& grpc_socket_path);

// A connection to the side socket at `socket_path`, each send and receive limited to
// `timeout_ms`. NRT_FAILURE when it cannot be reached.
StatusOr<UniqueFd> ConnectSharedMemorySocket(const std::string& socket_path, int timeout_ms);

}  // namespace trnsim::driver::remote
