#include "driver/remote/fd_passing.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace trnsim::driver::remote {

Status SendWithFd(int socket, std::string_view bytes, int fd) {
  iovec data{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
  }
  ssize_t sent;
  do {
    sent = sendmsg(socket, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return FailureError(std::string("sendmsg: ") + std::strerror(errno));
  if (static_cast<size_t>(sent) != bytes.size()) return FailureError("sendmsg: short datagram");
  return Status::Ok();
}

StatusOr<Datagram> ReceiveWithFd(int socket, size_t max_bytes) {
  Datagram datagram;
  datagram.bytes.resize(max_bytes);
  iovec data{datagram.bytes.data(), max_bytes};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  // Room for a few descriptors, so that a peer sending several is detected (and each closed)
  // rather than silently cut to one.
  constexpr int kRoom = 8;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kRoom)] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  ssize_t received;
  do {
    received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  } while (received < 0 && errno == EINTR);
  if (received < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return TimeoutError("recvmsg: no request in time");
    return FailureError(std::string("recvmsg: ") + std::strerror(errno));
  }
  std::vector<UniqueFd> fds;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);  // owned from here: closed on every refusal below
    }
  }
  if (received == 0 && fds.empty()) return FailureError("the peer closed the connection");
  if (message.msg_flags & MSG_TRUNC) {
    return InvalidError("datagram longer than " + std::to_string(max_bytes) + " bytes");
  }
  if (message.msg_flags & MSG_CTRUNC) return InvalidError("too many file descriptors attached");
  if (fds.size() > 1) {
    return InvalidError(std::to_string(fds.size()) + " file descriptors attached, at most 1");
  }
  datagram.bytes.resize(static_cast<size_t>(received));
  if (!fds.empty()) datagram.fd = std::move(fds.front());
  return datagram;
}

}  // namespace trnsim::driver::remote
