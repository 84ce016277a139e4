#include "runtime/collectives/this_host.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>

namespace trnsim::runtime::collectives {
namespace {

bool IsLoopback(const std::string& address) {
  if (address == "localhost" || address == "::1") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  return false;
}

bool IsHostName(const std::string& address) {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return false;
  return address == name;
}

bool IsInterfaceAddress(const std::string& address) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* it = list; it != nullptr && !found; it = it->ifa_next) {
    if (it->ifa_addr == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = nullptr;
    if (it->ifa_addr->sa_family == AF_INET) {
      raw = &reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr;
    } else if (it->ifa_addr->sa_family == AF_INET6) {
      raw = &reinterpret_cast<const sockaddr_in6*>(it->ifa_addr)->sin6_addr;
    } else {
      continue;
    }
    if (inet_ntop(it->ifa_addr->sa_family, raw, text, sizeof(text)) != nullptr) {
      found = address == text;
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

bool IsThisHost(const std::string& address) {
  if (address.empty()) return false;
  return IsLoopback(address) || IsHostName(address) || IsInterfaceAddress(address);
}

}  // namespace trnsim::runtime::collectives
