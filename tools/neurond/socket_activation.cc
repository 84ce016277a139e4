#include "tools/neurond/socket_activation.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

namespace trnsim::neurond {
namespace {

int SocketOption(int fd, int option, int* value) {
  socklen_t length = sizeof(*value);
  return getsockopt(fd, SOL_SOCKET, option, value, &length);
}

// The address `fd` listens on, as --listen spells it.
StatusOr<InheritedSocket> Describe(int fd) {
  sockaddr_storage storage = {};
  socklen_t length = sizeof(storage);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0) {
    return InvalidError("socket activation: getsockname on fd " + std::to_string(fd) + ": " +
                        std::strerror(errno));
  }
  InheritedSocket socket;
  socket.fd = fd;
  char text[INET6_ADDRSTRLEN] = {};
  switch (storage.ss_family) {
    case AF_UNIX: {
      const auto* address = reinterpret_cast<const sockaddr_un*>(&storage);
      const size_t path_bytes = length - offsetof(sockaddr_un, sun_path);
      if (path_bytes == 0) {
        return InvalidError("socket activation: fd " + std::to_string(fd) +
                            " is an unnamed unix socket");
      }
      if (address->sun_path[0] == '\0') {
        socket.address = "unix:@" + std::string(address->sun_path + 1, path_bytes - 1);
      } else {
        socket.address =
            "unix:" + std::string(address->sun_path, strnlen(address->sun_path, path_bytes));
      }
      socket.loopback = true;
      return socket;
    }
    case AF_INET: {
      const auto* address = reinterpret_cast<const sockaddr_in*>(&storage);
      inet_ntop(AF_INET, &address->sin_addr, text, sizeof(text));
      socket.address = std::string(text) + ":" + std::to_string(ntohs(address->sin_port));
      socket.loopback = (ntohl(address->sin_addr.s_addr) >> 24) == 127;
      return socket;
    }
    case AF_INET6: {
      const auto* address = reinterpret_cast<const sockaddr_in6*>(&storage);
      inet_ntop(AF_INET6, &address->sin6_addr, text, sizeof(text));
      socket.address = "[" + std::string(text) + "]:" + std::to_string(ntohs(address->sin6_port));
      socket.loopback = IN6_IS_ADDR_LOOPBACK(&address->sin6_addr);
      return socket;
    }
    default:
      return InvalidError("socket activation: fd " + std::to_string(fd) +
                          " is neither a unix nor a TCP socket");
  }
}

}  // namespace

StatusOr<std::optional<InheritedSocket>> InheritedListenSocket(const Environment& env, pid_t pid,
                                                               int first_fd) {
  if (env.Get(EnvVar::kListenPid).empty()) return std::optional<InheritedSocket>();
  TRNSIM_ASSIGN_OR_RETURN(int64_t listen_pid, env.GetInt(EnvVar::kListenPid));
  if (listen_pid != pid) return std::optional<InheritedSocket>();
  if (env.Get(EnvVar::kListenFds).empty()) {
    return InvalidError("socket activation: LISTEN_PID is this process but LISTEN_FDS is unset");
  }
  TRNSIM_ASSIGN_OR_RETURN(int64_t count, env.GetInt(EnvVar::kListenFds));
  if (count != 1) {
    return InvalidError("socket activation: LISTEN_FDS=" + std::to_string(count) +
                        "; neurond serves exactly one socket (one ListenStream= in its .socket)");
  }
  const std::string name = "socket activation: fd " + std::to_string(first_fd);
  int flags = fcntl(first_fd, F_GETFD);
  if (flags < 0) return InvalidError(name + " is not open");
  int type = 0, listening = 0;
  if (SocketOption(first_fd, SO_TYPE, &type) != 0) {
    return InvalidError(name + " is not a socket");
  }
  if (type != SOCK_STREAM) return InvalidError(name + " is not a stream socket");
  if (SocketOption(first_fd, SO_ACCEPTCONN, &listening) != 0 || listening == 0) {
    return InvalidError(name +
                        " is not listening (Accept=yes in the .socket unit? neurond "
                        "needs Accept=no)");
  }
  TRNSIM_ASSIGN_OR_RETURN(InheritedSocket socket, Describe(first_fd));
  fcntl(first_fd, F_SETFD, flags | FD_CLOEXEC);
  return std::optional<InheritedSocket>(std::move(socket));
}

}  // namespace trnsim::neurond
