// ClusterFabric: neurond's collective fabric when it runs with --cluster-listen (docs/cluster.md).
// It routes each rank by its communicator (cluster_address.h):
//   - not HOST:PORT: an ordinary single-instance job — the daemon's own CollectiveHub, as
//     without a cluster;
//   - this daemon's cluster address: a multi-instance job rooted here — the same hub, the rank
//     marked as this instance's (RankEndpoint::cluster, instance), where ranks other daemons
//     forward meet it (ClusterService);
//   - another daemon's: a job rooted there — a port that forwards every call to that root
//     (RootLinks), counting the occurrences of each collective id itself.
// BindRank is told of every rank a session starts to run (after Communicators::Bind): a rank of
// a job rooted here is noted in the hub; one rooted elsewhere opens or uses the link to its
// root. MaxWorld is the largest world Communicators should accept for a communicator.
//
// Routes are remembered per communicator (the check may list the host's interfaces, and every
// Execute of a rank asks up to three times): at most kMaxRoutes names, forgotten all at once
// when full.
//
// Thread safety: all methods may be called from any thread. SetAddress must be called once,
// before the daemon serves any call.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "simulator/collective/collective_fabric.h"
#include "simulator/collective/collective_hub.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/cluster/root_links.h"

namespace trnsim::neurond::cluster {

class ClusterFabric final : public simulator::collective::CollectiveFabric {
 public:
  // `identity.id` is set by SetAddress.
  ClusterFabric(const simulator::InstanceSpec& spec, ClusterIdentity identity);
  ~ClusterFabric() override;

  // The daemon's --cluster-listen address, with the port it got.
  void SetAddress(const std::string& address);

  std::unique_ptr<simulator::collective::CollectivePort> Attach(
      simulator::collective::RankEndpoint endpoint,
      simulator::collective::PortOptions options) override;
  StatusOr<std::vector<uint8_t>> HostCollective(
      const simulator::collective::HostCollectiveCall& call,
      const simulator::collective::PortOptions& options) override;

  uint32_t MaxWorld(const std::string& communicator) const;
  Status BindRank(const std::string& communicator, uint32_t rank, uint32_t world_size);

  // The hub where this daemon's jobs meet (ClusterService adds the forwarded ranks).
  simulator::collective::CollectiveHub& hub() { return hub_; }
  const simulator::InstanceSpec& spec() const { return spec_; }
  const std::string& address() const { return address_; }
  const ClusterIdentity& identity() const { return links_->identity(); }

 private:
  class ForwardingPort;
  enum class Route { kLocal, kRoot, kForward };
  Route RouteOf(const std::string& communicator) const;
  void MarkOwn(simulator::collective::RankEndpoint& endpoint) const;

  static constexpr size_t kMaxRoutes = 4096;

  const simulator::InstanceSpec& spec_;
  ClusterIdentity identity_;  // until SetAddress makes the links
  mutable std::mutex routes_mutex_;  // guards routes_
  mutable std::unordered_map<std::string, Route> routes_;
  std::string address_;
  simulator::collective::CollectiveHub hub_;
  std::unique_ptr<RootLinks> links_;
};

}  // namespace trnsim::neurond::cluster
