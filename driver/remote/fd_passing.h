// One datagram with at most one file descriptor attached (SCM_RIGHTS), on a connected
// SOCK_SEQPACKET unix socket: how a client hands neurond the memfd of a shared-memory region
// (proto/neurond.proto, "Shared-memory data plane"), which gRPC cannot carry.
//
// ReceiveWithFd trusts nothing: a datagram longer than `max_bytes` (MSG_TRUNC), ancillary data
// that did not fit (MSG_CTRUNC), or more than one descriptor is NRT_INVALID, and every
// descriptor that did arrive is closed; received descriptors are close-on-exec
// (MSG_CMSG_CLOEXEC). A peer that sends nothing within the socket's receive timeout
// (SO_RCVTIMEO, set by the caller) is NRT_TIMEOUT; one that closes is NRT_FAILURE.
//
// Thread safety: reentrant.
#pragma once

#include <unistd.h>

#include <string>
#include <string_view>
#include <utility>

#include "common/status_or.h"

namespace trnsim::driver::remote {

// Owns one file descriptor (-1: none) and closes it.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Sends `bytes` as one datagram, with `fd` attached unless it is negative.
Status SendWithFd(int socket, std::string_view bytes, int fd);

struct Datagram {
  std::string bytes;
  UniqueFd fd;  // invalid when none was attached
};
StatusOr<Datagram> ReceiveWithFd(int socket, size_t max_bytes);

}  // namespace trnsim::driver::remote
