#include "tools/neurond/cluster/cluster_fabric.h"

#include <map>
#include <utility>

#include "tools/neurond/cluster/cluster_address.h"

namespace trnsim::neurond::cluster {

namespace collective = simulator::collective;

// A rank of a job rooted at another daemon: every call goes to the root, with the occurrence
// of its collective id in this execution counted here (the root's hub counts nothing for it).
class ClusterFabric::ForwardingPort final : public collective::CollectivePort {
 public:
  ForwardingPort(RootLinks* links, collective::RankEndpoint endpoint,
                 collective::PortOptions options)
      : links_(links), endpoint_(std::move(endpoint)), options_(std::move(options)) {}

  StatusOr<collective::CollectiveOutcome> Run(collective::CollectiveCall call) override {
    v1::ClusterCollectiveRequest request;
    request.set_communicator(endpoint_.communicator);
    request.set_rank(endpoint_.rank);
    request.set_world_size(endpoint_.world_size);
    request.set_execution_sequence(endpoint_.execution_sequence);
    request.set_occurrence(occurrences_[call.collective_id]++);
    request.set_chip(endpoint_.chip);
    request.set_kind(static_cast<uint32_t>(call.kind));
    request.set_op(static_cast<uint32_t>(call.op));
    request.set_dtype(static_cast<uint32_t>(call.dtype));
    request.set_group_size(call.group.size);
    request.set_group_stride(call.group.stride);
    request.set_shift(call.shift);
    request.set_collective_id(call.collective_id);
    request.set_input(call.input.data(), call.input.size());
    request.set_output_bytes(call.output_bytes);
    request.set_physical_core(call.physical_core);
    request.set_arrival_ps(call.arrival_ps);
    request.set_timeout_ms(static_cast<uint64_t>(options_.host_timeout.count()));
    return links_->Collective(endpoint_.communicator, std::move(request), Cancelled());
  }

 private:
  std::function<bool()> Cancelled() const {
    const std::atomic<bool>* flag = options_.cancel;
    return [flag] { return flag != nullptr && flag->load(); };
  }

  RootLinks* links_;
  collective::RankEndpoint endpoint_;
  collective::PortOptions options_;
  std::map<uint32_t, uint64_t> occurrences_;
};

ClusterFabric::ClusterFabric(const simulator::InstanceSpec& spec, ClusterIdentity identity)
    : spec_(spec), identity_(std::move(identity)), hub_(spec) {}

ClusterFabric::~ClusterFabric() = default;

void ClusterFabric::SetAddress(const std::string& address) {
  address_ = address;
  identity_.id = ClusterInstanceId(address);
  identity_.instance_type = spec_.type_name;
  links_ = std::make_unique<RootLinks>(identity_);
}

ClusterFabric::Route ClusterFabric::RouteOf(const std::string& communicator) const {
  {
    std::lock_guard lock(routes_mutex_);
    if (auto known = routes_.find(communicator); known != routes_.end()) return known->second;
  }
  Route route = Route::kLocal;
  switch (ClassifyRoot(communicator, address_)) {
    case RootKind::kThisDaemon:
      route = Route::kRoot;
      break;
    case RootKind::kOtherDaemon:
      route = Route::kForward;
      break;
    case RootKind::kNotCluster:
      break;
  }
  std::lock_guard lock(routes_mutex_);
  if (routes_.size() >= kMaxRoutes) routes_.clear();
  routes_.emplace(communicator, route);
  return route;
}

void ClusterFabric::MarkOwn(collective::RankEndpoint& endpoint) const {
  endpoint.cluster = true;
  endpoint.instance = {identity_.id, &spec_, identity_.ultraserver};
}

std::unique_ptr<collective::CollectivePort> ClusterFabric::Attach(collective::RankEndpoint endpoint,
                                                                  collective::PortOptions options) {
  switch (RouteOf(endpoint.communicator)) {
    case Route::kForward:
      return std::make_unique<ForwardingPort>(links_.get(), std::move(endpoint),
                                              std::move(options));
    case Route::kRoot:
      MarkOwn(endpoint);
      break;
    case Route::kLocal:
      break;
  }
  return hub_.Attach(std::move(endpoint), std::move(options));
}

StatusOr<std::vector<uint8_t>> ClusterFabric::HostCollective(
    const collective::HostCollectiveCall& call, const collective::PortOptions& options) {
  switch (RouteOf(call.communicator)) {
    case Route::kForward: {
      v1::ClusterHostCollectiveRequest request;
      request.set_kind(call.kind == collective::HostCollectiveKind::kAllGather
                           ? v1::HOST_COLLECTIVE_ALL_GATHER
                           : v1::HOST_COLLECTIVE_BARRIER);
      request.set_communicator(call.communicator);
      request.set_rank(call.rank);
      request.set_world_size(call.world_size);
      request.set_sequence(call.sequence);
      request.set_input(call.input.data(), call.input.size());
      request.set_timeout_ms(static_cast<uint64_t>(options.host_timeout.count()));
      const std::atomic<bool>* flag = options.cancel;
      return links_->HostCollective(call.communicator, std::move(request),
                                    [flag] { return flag != nullptr && flag->load(); });
    }
    case Route::kRoot: {
      collective::HostCollectiveCall own = call;
      own.cluster = true;
      return hub_.HostCollective(own, options);
    }
    case Route::kLocal:
      break;
  }
  return hub_.HostCollective(call, options);
}

uint32_t ClusterFabric::MaxWorld(const std::string& communicator) const {
  return RouteOf(communicator) == Route::kLocal ? collective::MaxWorldSize(spec_)
                                                : collective::MaxClusterWorldSize(spec_);
}

Status ClusterFabric::BindRank(const std::string& communicator, uint32_t rank,
                               uint32_t world_size) {
  switch (RouteOf(communicator)) {
    case Route::kRoot:
      hub_.NoteRank(communicator, rank, identity_.id);
      return Status::Ok();
    case Route::kForward:
      return links_->Bind(communicator, communicator, rank, world_size);
    case Route::kLocal:
      break;
  }
  return Status::Ok();
}

}  // namespace trnsim::neurond::cluster
