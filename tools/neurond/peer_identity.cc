#include "tools/neurond/peer_identity.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>

namespace trnsim::neurond {
namespace {

// "ipv4:A.B.C.D:PORT" -> "ipv4:A.B.C.D", "ipv6:[ADDR]:PORT" -> "ipv6:[ADDR]" (gRPC may write
// the brackets %5B and %5D); else empty.
std::string WithoutPort(std::string_view peer) {
  if (!peer.starts_with("ipv4:") && !peer.starts_with("ipv6:")) return {};
  const size_t colon = peer.rfind(':');
  if (colon <= 5 || colon + 1 == peer.size()) return {};
  for (char c : peer.substr(colon + 1)) {
    if (c < '0' || c > '9') return {};
  }
  const std::string_view address = peer.substr(0, colon);
  if (peer.starts_with("ipv6:") && !address.ends_with("]") && !address.ends_with("%5D")) {
    return {};
  }
  return std::string(address);
}

// The identity of the connected socket `fd`, or empty.
std::string OfSocket(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  if (address.ss_family == AF_UNIX) {
    ucred credentials{};
    socklen_t size = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return {};
    return "uid:" + std::to_string(credentials.uid);
  }
  length = sizeof(address);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) == nullptr) return {};
    return std::string("ipv4:") + text;
  }
  if (address.ss_family == AF_INET6) {
    const auto* in = reinterpret_cast<const sockaddr_in6*>(&address);
    if (inet_ntop(AF_INET6, &in->sin6_addr, text, sizeof(text)) == nullptr) return {};
    return std::string("ipv6:[") + text + "]";
  }
  return {};
}

}  // namespace

std::string PeerIdentity(std::string_view grpc_peer) {
  if (std::string address = WithoutPort(grpc_peer); !address.empty()) return address;
  if (grpc_peer.starts_with("fd:")) {
    int fd = -1;
    const std::string_view digits = grpc_peer.substr(3);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (error == std::errc() && end == digits.data() + digits.size() && fd >= 0) {
      if (std::string identity = OfSocket(fd); !identity.empty()) return identity;
    }
  }
  return std::string(grpc_peer);
}

}  // namespace trnsim::neurond
