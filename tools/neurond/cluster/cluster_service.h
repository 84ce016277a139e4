// ClusterService: the root daemon's side of multi-instance jobs (proto/neurond_cluster.proto,
// docs/cluster.md), served on the daemon's --cluster-listen address only.
//
//   Link            a member daemon's link: the first message must carry the daemon's token,
//                   the protocol version, a known instance type and an instance id that is not
//                   this daemon's and not linked already; the reply says whether it is
//                   accepted. Each binding it sends is noted in the hub (NoteRank), unless
//                   its rank is not below its world size or the world is empty or larger
//                   than MaxClusterWorldSize (ignored, one log line per link). When the
//                   stream ends — the member exited or died, or this daemon shuts down — the
//                   hub fails every collective waiting for one of its ranks
//                   (CollectiveHub::DepartInstance), and one log line says so.
//   Collective      one forwarded `collective` call, joined to the hub as a rank of the
//                   member's instance (RankEndpoint::cluster, instance); the call is given up
//                   when the member cancels it, failing the rendezvous for all.
//   HostCollective  one forwarded nrt_barrier / nrt_all_gather.
// Every request is checked before it reaches the hub: the token (gRPC UNAUTHENTICATED when
// wrong), the instance type, the enum values, chip and core inside the member's instance, and
// the sizes (NRT_INVALID with one log line). Hub statuses are answered as they are.
//
// BeginShutdown ends every open link at once (their members' ranks are failed as departed) and
// refuses new ones, so that the daemon's shutdown does not wait out its grace period for
// streams that never end by themselves.
//
// Thread safety: gRPC calls the handlers concurrently; the service's own state is locked.
#pragma once

#include <grpcpp/grpcpp.h>

#include <mutex>
#include <set>
#include <string>

#include "proto/neurond_cluster.grpc.pb.h"
#include "tools/neurond/cluster/cluster_fabric.h"

namespace trnsim::neurond::cluster {

// The largest message a cluster call may carry: a forwarded collective's input or output
// (assumption: 1 GiB, far above what one rank's `collective` moves in the samples; gRPC's own
// ceiling is 2 GiB).
inline constexpr int kMaxClusterMessageBytes = (1 << 30) + (1 << 20);

class ClusterService final : public v1::NeurondCluster::Service {
 public:
  // `token`: the daemon's own (empty: none).
  ClusterService(ClusterFabric* fabric, std::string token);

  grpc::Status Link(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ClusterLinkReply, v1::ClusterLinkMessage>* stream) override;
  grpc::Status Collective(grpc::ServerContext* context, const v1::ClusterCollectiveRequest* request,
                          v1::ClusterCollectiveResponse* response) override;
  grpc::Status HostCollective(grpc::ServerContext* context,
                              const v1::ClusterHostCollectiveRequest* request,
                              v1::ClusterHostCollectiveResponse* response) override;

  void BeginShutdown();

 private:
  grpc::Status CheckToken(const std::string& token, const char* call) const;

  ClusterFabric* const fabric_;
  const std::string token_;
  std::mutex mutex_;                              // guards the members below
  std::set<std::string> linked_;                  // instance ids with an open link
  std::set<grpc::ServerContext*> link_contexts_;  // their calls, to end them at shutdown
  bool shutting_down_ = false;
};

}  // namespace trnsim::neurond::cluster
