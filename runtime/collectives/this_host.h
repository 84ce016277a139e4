// IsThisHost: whether an address a peer is named by (async send/recv's peer_ip) is this host.
// trnsim emulates one instance, so every peer must be on it. Accepted: "localhost", any IPv4
// loopback address (127.0.0.0/8), "::1", this host's name (gethostname) and the addresses of
// its network interfaces (getifaddrs), compared as text. No name is resolved through DNS, so
// the check never blocks.
#pragma once

#include <string>

namespace trnsim::runtime::collectives {

bool IsThisHost(const std::string& address);

}  // namespace trnsim::runtime::collectives
