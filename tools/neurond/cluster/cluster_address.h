// Cluster addresses: how a daemon tells, from a job's NEURON_RT_ROOT_COMM_ID, whether the job
// is rooted at itself, at another daemon, or is no multi-instance job at all (docs/cluster.md
// "The job's root").
//
// A communicator names a root daemon when it has the shape HOST:PORT (a host name, an IPv4
// address or a bracketed IPv6 address; PORT 1..65535). It is this daemon's when the port is
// this daemon's --cluster-listen port and HOST is this host (runtime/collectives/this_host.h:
// loopback, the host's name, an interface address, or the wildcard it listens on), or the text
// is exactly its own address.
// ClusterInstanceId: the id other daemons know this instance by — the --cluster-listen address
// with a wildcard host (0.0.0.0, [::]) replaced by the host's name.
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace trnsim::neurond::cluster {

struct HostPort {
  std::string host;  // without brackets
  uint16_t port = 0;
};

// HOST:PORT as above, or nullopt.
std::optional<HostPort> ParseHostPort(const std::string& text);

enum class RootKind { kNotCluster, kThisDaemon, kOtherDaemon };
RootKind ClassifyRoot(const std::string& communicator, const std::string& own_address);

std::string ClusterInstanceId(const std::string& own_address);

}  // namespace trnsim::neurond::cluster
