// systemd socket activation (sd_listen_fds(3)): systemd creates neurond's listening socket
// (neurond.socket), starts neurond at the first connection and passes it the socket as fd 3,
// with LISTEN_PID=<neurond's pid> and LISTEN_FDS=<count> in the environment. The protocol is
// parsed here rather than by libsystemd's sd_listen_fds: it is a few lines, it keeps the two
// variables in common/env.cc's table, and neurond needs no libsystemd (docs/decisions.md).
//
// InheritedListenSocket(env, pid, first_fd):
//   - nullopt when LISTEN_PID is unset or names another process (the variables were inherited
//     from an ancestor that was the activated one): neurond then binds --listen itself;
//   - the socket at first_fd (3 outside tests) when LISTEN_FDS is 1 and it is a listening
//     stream socket (AF_UNIX, AF_INET or AF_INET6), with the address it listens on;
//   - NRT_INVALID naming the problem otherwise: a malformed LISTEN_PID/LISTEN_FDS, a count
//     other than 1 (neurond serves one address), an fd that is not an open listening stream
//     socket of those families.
// The socket gets FD_CLOEXEC; it stays open for the process's life (systemd keeps its own copy
// and re-activates neurond on the next connection after it exits).
//
// Thread safety: reentrant.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/env.h"
#include "common/status_or.h"

namespace trnsim::neurond {

struct InheritedSocket {
  int fd = -1;
  // As neurond's --listen spells it: unix:PATH, 127.0.0.1:PORT, [::1]:PORT (any other IP as
  // A.B.C.D:PORT or [V6]:PORT); "unix:@NAME" for an abstract unix socket.
  std::string address;
  bool loopback = false;  // unix sockets, 127.0.0.0/8 and ::1
};

inline constexpr int kSdListenFdsStart = 3;

StatusOr<std::optional<InheritedSocket>> InheritedListenSocket(const Environment& env, pid_t pid,
                                                               int first_fd = kSdListenFdsStart);

}  // namespace trnsim::neurond
