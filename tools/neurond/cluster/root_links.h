// RootLinks: a member daemon's connections to the root daemons of the multi-instance jobs its
// ranks belong to (docs/cluster.md). One per daemon, owned by its ClusterFabric.
//
// Per root address: one gRPC channel (plaintext, or TLS trusting identity.tls_ca_file) and one
// Link stream, opened at the first Bind and held until this daemon ends, so that the root sees
// this instance depart when it does. Bind sends each (communicator, rank) once. A link that
// ends (the root went away) is reopened by the next Bind — a new job rooted at the same address.
// Collective and HostCollective forward one call and block until the root answers; they give up
// when `cancelled` turns true (this rank's session ended: the call is cancelled, so the root
// fails the others' rendezvous naming the rank) or the call's deadline (its host timeout plus
// a minute) passes.
//
// Errors, all NRT_EXEC_HW_ERR_COLLECTIVES naming the root: unreachable within 5 s, a refused
// link (its reason), the root gone during a call. The root's own statuses come back as they
// are.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "proto/neurond_cluster.grpc.pb.h"
#include "simulator/collective/collective_port.h"

namespace trnsim::neurond::cluster {

// Who this daemon is to the roots, and how it reaches them.
struct ClusterIdentity {
  std::string id;             // ClusterInstanceId of --cluster-listen
  std::string instance_type;  // simulator::InstanceSpec::type_name
  std::string ultraserver;    // --ultraserver; empty: none
  std::string token;          // the daemon's own token, presented to roots
  std::string tls_ca_file;    // --peer-ca: roots serve TLS signed by these; empty: plaintext
};

class RootLinks {
 public:
  explicit RootLinks(ClusterIdentity identity);
  ~RootLinks();  // ends every link (the roots see this instance depart)
  RootLinks(const RootLinks&) = delete;
  RootLinks& operator=(const RootLinks&) = delete;

  Status Bind(const std::string& root, const std::string& communicator, uint32_t rank,
              uint32_t world_size);

  // `request` without token and instance: they are filled in here.
  StatusOr<simulator::collective::CollectiveOutcome> Collective(
      const std::string& root, v1::ClusterCollectiveRequest request,
      const std::function<bool()>& cancelled);
  StatusOr<std::vector<uint8_t>> HostCollective(const std::string& root,
                                                v1::ClusterHostCollectiveRequest request,
                                                const std::function<bool()>& cancelled);

  const ClusterIdentity& identity() const { return identity_; }

 private:
  struct Link;
  StatusOr<std::shared_ptr<Link>> Open(const std::string& root);
  StatusOr<std::shared_ptr<v1::NeurondCluster::Stub>> Stub(const std::string& root);
  void FillIdentity(v1::ClusterInstance* out) const;

  const ClusterIdentity identity_;
  std::mutex open_mutex_;  // held while a link is opened
  std::mutex mutex_;       // guards links_
  std::map<std::string, std::shared_ptr<Link>> links_;
};

}  // namespace trnsim::neurond::cluster
