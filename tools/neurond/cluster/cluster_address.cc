#include "tools/neurond/cluster/cluster_address.h"

#include <unistd.h>

#include <cctype>
#include <climits>

#include "runtime/collectives/this_host.h"

namespace trnsim::neurond::cluster {
namespace {

bool IsWildcard(const std::string& host) { return host == "0.0.0.0" || host == "::"; }

bool IsHostText(const std::string& host) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '_') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<HostPort> ParseHostPort(const std::string& text) {
  HostPort out;
  std::string port;
  if (text.starts_with("[")) {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return std::nullopt;
    }
    out.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    out.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (out.host.find(':') != std::string::npos) return std::nullopt;  // v6 needs brackets
  }
  if (!IsHostText(out.host) || port.empty() || port.size() > 5) return std::nullopt;
  uint32_t value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + static_cast<uint32_t>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  out.port = static_cast<uint16_t>(value);
  return out;
}

RootKind ClassifyRoot(const std::string& communicator, const std::string& own_address) {
  const std::optional<HostPort> root = ParseHostPort(communicator);
  if (!root) return RootKind::kNotCluster;
  if (communicator == own_address) return RootKind::kThisDaemon;
  const std::optional<HostPort> own = ParseHostPort(own_address);
  if (own && own->port == root->port &&
      (root->host == own->host || runtime::collectives::IsThisHost(root->host) ||
       (IsWildcard(own->host) && IsWildcard(root->host)))) {
    return RootKind::kThisDaemon;
  }
  return RootKind::kOtherDaemon;
}

std::string ClusterInstanceId(const std::string& own_address) {
  const std::optional<HostPort> own = ParseHostPort(own_address);
  if (!own || !IsWildcard(own->host)) return own_address;
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return own_address;
  return std::string(name) + ":" + std::to_string(own->port);
}

}  // namespace trnsim::neurond::cluster
