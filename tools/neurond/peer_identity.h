// PeerIdentity: who a client is for the per-peer session limit (--max-sessions-per-peer,
// README "Sessions, peers and threads"), from gRPC's peer string (ServerContext::peer()).
//
//   ipv4:A.B.C.D:PORT, ipv6:[ADDR]:PORT   the address without the port ("ipv4:A.B.C.D"): every
//                                         connection from one host is one peer, TLS or not
//   fd:N                                  a connection of the socket systemd passed (fd_acceptor.h):
//                                         for a Unix socket the client's uid ("uid:U", SO_PEERCRED
//                                         on fd N, which is open while the call on it is served),
//                                         for TCP the address as above; "fd:N" if neither works
//   unix:..., anything else               the string itself. gRPC 1.51 gives no way to a Unix
//                                         socket's credentials when it accepted the connection
//                                         itself, and a client's socket is unnamed ("unix:"), so
//                                         every local client of a daemon that binds its own
//                                         unix: address is one peer
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>

namespace trnsim::neurond {

std::string PeerIdentity(std::string_view grpc_peer);

}  // namespace trnsim::neurond
