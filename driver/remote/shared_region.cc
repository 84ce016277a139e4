#include "driver/remote/shared_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "driver/remote/convert.h"
#include "proto/neurond.pb.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

namespace trnsim::driver::remote {
namespace {

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

StatusOr<std::unique_ptr<SharedRegion>> SharedRegion::Create(uint64_t size_bytes) {
  if (size_bytes == 0 || size_bytes > kMaxSharedRegionBytes) {
    return InvalidError("shared region of " + std::to_string(size_bytes) + " bytes");
  }
  UniqueFd fd(memfd_create("trnsim-neurond", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return FailureError(Errno("memfd_create"));
  if (ftruncate(fd.get(), static_cast<off_t>(size_bytes)) != 0) {
    return FailureError(Errno("ftruncate"));
  }
  if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return FailureError(Errno("F_ADD_SEALS"));
  }
  // Populated now, so no transfer pays the first touch of a page.
  void* data =
      mmap(nullptr, size_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (data == MAP_FAILED) return FailureError(Errno("mmap"));
  return std::unique_ptr<SharedRegion>(
      new SharedRegion(static_cast<uint8_t*>(data), size_bytes, std::move(fd)));
}

StatusOr<std::unique_ptr<SharedRegion>> SharedRegion::Map(UniqueFd fd, uint64_t max_bytes) {
  if (!fd.valid()) return InvalidError("no file descriptor attached");
  const int seals = fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0) return InvalidError("the descriptor is not a memfd that allows sealing");
  if ((seals & F_SEAL_SHRINK) == 0)
    return InvalidError("the memfd is not sealed against shrinking");
  if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
    return InvalidError("the memfd is sealed against writing");
  }
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) return InvalidError(Errno("fstat"));
  if (!S_ISREG(info.st_mode)) return InvalidError("the descriptor is not a memfd");
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (info.st_size <= 0 || size > max_bytes) {
    return InvalidError("a memfd of " + std::to_string(info.st_size) + " bytes (1 to " +
                        std::to_string(max_bytes) + " accepted)");
  }
  // Populated now (the client's Create allocated the pages), so no transfer faults them in.
  void* data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (data == MAP_FAILED) return InvalidError(Errno("mmap of the memfd"));
  // The mapping keeps the memory; the descriptor is not needed any more.
  return std::unique_ptr<SharedRegion>(
      new SharedRegion(static_cast<uint8_t*>(data), size, UniqueFd()));
}

SharedRegion::~SharedRegion() { munmap(data_, size_); }

Status SharedRegion::CheckRange(uint64_t offset, uint64_t size) const {
  if (offset > size_ || size > size_ - offset) {
    return InvalidError("range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                        ") is outside the " + std::to_string(size_) + "-byte shared region");
  }
  return Status::Ok();
}

std::string SharedMemorySocketPath(const std::string& grpc_socket_path) {
  std::string path = grpc_socket_path + ".shm";
  if (grpc_socket_path.empty() || path.size() >= sizeof(sockaddr_un::sun_path)) return {};
  return path;
}

StatusOr<UniqueFd> ConnectSharedMemorySocket(const std::string& socket_path, int timeout_ms) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof(address.sun_path)) {
    return FailureError("no usable shared-memory socket path");
  }
  std::memcpy(address.sun_path, socket_path.data(), socket_path.size());
  UniqueFd socket(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!socket.valid()) return FailureError(Errno("socket"));
  timeval timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(socket.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(socket.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  if (connect(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return FailureError(Errno(("connect " + socket_path).c_str()));
  }
  return socket;
}

namespace {

StatusOr<RegisteredRegion> Register(const SharedRegion& region, const std::string& socket_path,
                                    const std::string& session_key, int timeout_ms, bool ring) {
  TRNSIM_ASSIGN_OR_RETURN(UniqueFd socket, ConnectSharedMemorySocket(socket_path, timeout_ms));
  neurond::v1::SharedRegionRequest request;
  request.set_session_key(session_key);
  request.set_ring(ring);
  request.set_ring_execute(ring);
  TRNSIM_RETURN_IF_ERROR(SendWithFd(socket.get(), request.SerializeAsString(), region.fd()));
  TRNSIM_ASSIGN_OR_RETURN(Datagram datagram,
                          ReceiveWithFd(socket.get(), kMaxSharedRegionReplyBytes));
  neurond::v1::SharedRegionResponse reply;
  if (!reply.ParseFromString(datagram.bytes)) {
    return FailureError("the daemon's shared-region reply does not parse");
  }
  TRNSIM_RETURN_IF_ERROR(StatusFromProto(reply.status()));
  if (reply.region() == 0 || reply.size_bytes() != region.size()) {
    return FailureError("the daemon's shared-region reply names region " +
                        std::to_string(reply.region()) + " of " +
                        std::to_string(reply.size_bytes()) + " bytes");
  }
  return RegisteredRegion{reply.region(), reply.ring(), reply.ring() && reply.ring_execute()};
}

}  // namespace

StatusOr<uint64_t> RegisterSharedRegion(const SharedRegion& region, const std::string& socket_path,
                                        const std::string& session_key, int timeout_ms) {
  TRNSIM_ASSIGN_OR_RETURN(RegisteredRegion registered,
                          Register(region, socket_path, session_key, timeout_ms, false));
  return registered.id;
}

StatusOr<RegisteredRegion> RegisterSharedRegionWithRing(const SharedRegion& region,
                                                        const std::string& socket_path,
                                                        const std::string& session_key,
                                                        int timeout_ms) {
  return Register(region, socket_path, session_key, timeout_ms, true);
}

}  // namespace trnsim::driver::remote
