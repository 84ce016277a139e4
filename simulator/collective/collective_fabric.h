// CollectiveFabric: where the collective ranks of one emulated instance meet the other ranks of
// their jobs. The chip model's executions get their ports from it (driver/sim/sim_device.h), and
// host-driven collectives (nrt_barrier, nrt_all_gather) go through it.
//
// Two implementations: CollectiveHub (collective_hub.h), the rendezvous of one instance, which
// is every process's and every single-instance daemon's fabric; and neurond's ClusterFabric
// (tools/neurond/cluster/cluster_fabric.h), which meets ranks of multi-instance jobs at their
// root daemon's hub and everything else at its own (docs/cluster.md).
//
// Contract, for both: the port and HostCollective behave as CollectiveHub documents — exact,
// deterministic results and simulated times that depend only on the members' calls and
// placement; bounded by the caller's host timeout; failures as AWS's runtime reports them,
// naming the ranks concerned.
//
// Thread safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status_or.h"
#include "simulator/collective/collective_port.h"

namespace trnsim::simulator::collective {

struct RankEndpoint;
struct PortOptions;
struct HostCollectiveCall;

class CollectiveFabric {
 public:
  virtual ~CollectiveFabric() = default;

  // A port for one execution of `endpoint`. It must not outlive the fabric.
  virtual std::unique_ptr<CollectivePort> Attach(RankEndpoint endpoint, PortOptions options) = 0;

  // Blocks until the communicator's whole world has made the same host call; see
  // CollectiveHub::HostCollective.
  virtual StatusOr<std::vector<uint8_t>> HostCollective(const HostCollectiveCall& call,
                                                        const PortOptions& options) = 0;
};

}  // namespace trnsim::simulator::collective
