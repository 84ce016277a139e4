#include "tools/neurond/cluster/cluster_service.h"

#include <chrono>
#include <utility>

#include "common/log.h"
#include "driver/remote/convert.h"
#include "simulator/collective/collective_hub.h"
#include "simulator/isa/dtype.h"
#include "simulator/isa/ops.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/credentials.h"

namespace trnsim::neurond::cluster {
namespace {

namespace collective = simulator::collective;

// The longest host timeout a forwarded call may ask for: the hub's own default tenfold.
constexpr uint64_t kMaxTimeoutMs = 6'000'000;

// The member's instance spec, or NRT_INVALID naming the type.
StatusOr<const simulator::InstanceSpec*> MemberSpec(const v1::ClusterInstance& instance) {
  if (instance.id().empty()) return InvalidError("the member instance has no id");
  return simulator::FindInstanceSpec(instance.instance_type());
}

Status CheckPlace(const simulator::InstanceSpec& spec, int32_t chip, int32_t core) {
  if (chip < 0 || chip >= spec.chip_count) {
    return InvalidError("chip " + std::to_string(chip) + " is not on a " + spec.type_name);
  }
  if (core < 0 || core >= spec.chip->physical_cores) {
    return InvalidError("physical core " + std::to_string(core) + " is not on a " +
                        spec.chip->name + " chip");
  }
  return Status::Ok();
}

collective::RankEndpoint::Instance InstanceOf(const v1::ClusterInstance& instance,
                                              const simulator::InstanceSpec* spec) {
  return {instance.id(), spec, instance.ultraserver()};
}

// Looks at the gRPC call's cancellation: the member gave the call up (its rank's session ended)
// or its daemon went away.
std::function<bool()> CancelledBy(grpc::ServerContext* context) {
  return [context] { return context->IsCancelled(); };
}

std::chrono::milliseconds Timeout(uint64_t ms) {
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

}  // namespace

ClusterService::ClusterService(ClusterFabric* fabric, std::string token)
    : fabric_(fabric), token_(std::move(token)) {}

grpc::Status ClusterService::CheckToken(const std::string& token, const char* call) const {
  if (token_.empty() || TokensEqual(token_, token)) return grpc::Status::OK;
  const std::string message =
      std::string(call) + ": " + (token.empty() ? "this daemon needs a token" : "wrong token");
  TRNSIM_LOG(Warn, Tool) << "cluster: refused " << message;
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, message);
}

grpc::Status ClusterService::Link(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ClusterLinkReply, v1::ClusterLinkMessage>* stream) {
  v1::ClusterLinkMessage first;
  if (!stream->Read(&first)) return grpc::Status::OK;
  if (grpc::Status denied = CheckToken(first.token(), "Link"); !denied.ok()) return denied;
  const std::string id = first.instance().id();
  Status accepted;
  if (first.protocol_version() != v1::PROTOCOL_VERSION_CURRENT) {
    accepted = InvalidError("the member speaks neurond protocol version " +
                            std::to_string(first.protocol_version()) + ", this daemon " +
                            std::to_string(v1::PROTOCOL_VERSION_CURRENT));
  } else if (StatusOr<const simulator::InstanceSpec*> spec = MemberSpec(first.instance());
             !spec.ok()) {
    accepted = spec.status();
  } else if (id == fabric_->identity().id) {
    accepted = InvalidError("instance " + id + " is this daemon itself");
  } else {
    std::lock_guard lock(mutex_);
    if (shutting_down_) {
      accepted = FailureError("this daemon is shutting down");
    } else if (!linked_.insert(id).second) {
      accepted = InvalidError("instance " + id + " is linked already");
    } else {
      link_contexts_.insert(context);
    }
  }
  v1::ClusterLinkReply reply;
  driver::remote::ToProto(accepted, reply.mutable_status());
  if (!accepted.ok()) {
    TRNSIM_LOG(Warn, Tool) << "cluster: refused the link of " << context->peer() << ": "
                           << accepted.message();
    stream->Write(reply);
    return grpc::Status::OK;
  }
  TRNSIM_LOG(Info, Tool) << "cluster: instance " << id << " (" << first.instance().instance_type()
                         << ") linked";
  stream->Write(reply);
  v1::ClusterLinkMessage message = std::move(first);
  const uint32_t max_world = collective::MaxClusterWorldSize(fabric_->spec());
  bool refused_binding = false;
  do {
    for (const v1::ClusterRankBinding& binding : message.ranks()) {
      // A rank no job here can have is not noted: what the hub keeps per communicator stays
      // bounded by the largest world, whatever a member sends.
      if (binding.world_size() == 0 || binding.world_size() > max_world ||
          binding.rank() >= binding.world_size()) {
        if (!refused_binding) {
          TRNSIM_LOG(Warn, Tool) << "cluster: instance " << id << " bound rank " << binding.rank()
                                 << " of a world of " << binding.world_size() << " (at most "
                                 << max_world
                                 << "); ignored, and so are its later bindings like it";
        }
        refused_binding = true;
        continue;
      }
      fabric_->hub().NoteRank(binding.communicator(), binding.rank(), id);
    }
  } while (stream->Read(&message));
  {
    std::lock_guard lock(mutex_);
    linked_.erase(id);
    link_contexts_.erase(context);
  }
  const std::string reason = "the daemon of instance " + id + " went away";
  TRNSIM_LOG(Info, Tool) << "cluster: " << reason;
  fabric_->hub().DepartInstance(id, reason);
  return grpc::Status::OK;
}

void ClusterService::BeginShutdown() {
  std::lock_guard lock(mutex_);
  shutting_down_ = true;
  for (grpc::ServerContext* context : link_contexts_) context->TryCancel();
}

grpc::Status ClusterService::Collective(grpc::ServerContext* context,
                                        const v1::ClusterCollectiveRequest* request,
                                        v1::ClusterCollectiveResponse* response) {
  if (grpc::Status denied = CheckToken(request->token(), "Collective"); !denied.ok()) {
    return denied;
  }
  auto run = [&]() -> StatusOr<collective::CollectiveOutcome> {
    TRNSIM_ASSIGN_OR_RETURN(const simulator::InstanceSpec* spec, MemberSpec(request->instance()));
    TRNSIM_RETURN_IF_ERROR(CheckPlace(*spec, request->chip(), request->physical_core()));
    if (request->kind() >= static_cast<uint32_t>(isa::kCollectiveKindCount) ||
        request->op() >= static_cast<uint32_t>(isa::kAluOpCount) ||
        request->dtype() >= static_cast<uint32_t>(isa::kDtypeCount)) {
      return InvalidError("a collective kind, reduction op or dtype out of range");
    }
    if (request->output_bytes() > static_cast<uint64_t>(kMaxClusterMessageBytes) ||
        request->timeout_ms() > kMaxTimeoutMs) {
      return InvalidError("an output of " + std::to_string(request->output_bytes()) +
                          " bytes or a timeout of " + std::to_string(request->timeout_ms()) +
                          " ms is beyond what a forwarded collective may ask");
    }
    collective::RankEndpoint endpoint;
    endpoint.communicator = request->communicator();
    endpoint.rank = request->rank();
    endpoint.world_size = request->world_size();
    endpoint.chip = request->chip();
    endpoint.execution_sequence = request->execution_sequence();
    endpoint.cluster = true;
    endpoint.instance = InstanceOf(request->instance(), spec);
    collective::CollectiveCall call;
    call.kind = static_cast<isa::CollectiveKind>(request->kind());
    call.op = static_cast<isa::AluOp>(request->op());
    call.dtype = static_cast<isa::Dtype>(request->dtype());
    call.group = {request->group_size(), request->group_stride()};
    call.shift = request->shift();
    call.collective_id = request->collective_id();
    call.input.assign(request->input().begin(), request->input().end());
    call.output_bytes = request->output_bytes();
    call.physical_core = request->physical_core();
    call.arrival_ps = request->arrival_ps();
    collective::PortOptions options;
    options.host_timeout = Timeout(request->timeout_ms());
    options.cancelled = CancelledBy(context);
    return fabric_->hub().Run(endpoint, options, std::move(call), request->occurrence());
  };
  StatusOr<collective::CollectiveOutcome> outcome = run();
  if (!outcome.ok()) {
    if (outcome.status().code() == StatusCode::kInvalid) {
      TRNSIM_LOG(Warn, Tool) << "cluster: Collective from " << request->instance().id() << " rank "
                             << request->rank() << ": " << outcome.status().message();
    }
    driver::remote::ToProto(outcome.status(), response->mutable_status());
    return grpc::Status::OK;
  }
  driver::remote::ToProto(Status::Ok(), response->mutable_status());
  response->set_output(outcome->output.data(), outcome->output.size());
  response->set_complete_ps(outcome->complete_ps);
  return grpc::Status::OK;
}

grpc::Status ClusterService::HostCollective(grpc::ServerContext* context,
                                            const v1::ClusterHostCollectiveRequest* request,
                                            v1::ClusterHostCollectiveResponse* response) {
  if (grpc::Status denied = CheckToken(request->token(), "HostCollective"); !denied.ok()) {
    return denied;
  }
  auto run = [&]() -> StatusOr<std::vector<uint8_t>> {
    TRNSIM_RETURN_IF_ERROR(MemberSpec(request->instance()).status());
    if (request->timeout_ms() > kMaxTimeoutMs) {
      return InvalidError("a timeout of " + std::to_string(request->timeout_ms()) +
                          " ms is beyond what a forwarded host collective may ask");
    }
    collective::HostCollectiveCall call;
    call.kind = request->kind() == v1::HOST_COLLECTIVE_ALL_GATHER
                    ? collective::HostCollectiveKind::kAllGather
                    : collective::HostCollectiveKind::kBarrier;
    call.communicator = request->communicator();
    call.rank = request->rank();
    call.world_size = request->world_size();
    call.sequence = request->sequence();
    call.input.assign(request->input().begin(), request->input().end());
    call.cluster = true;
    collective::PortOptions options;
    options.host_timeout = Timeout(request->timeout_ms());
    options.cancelled = CancelledBy(context);
    return fabric_->hub().HostCollective(call, options);
  };
  StatusOr<std::vector<uint8_t>> output = run();
  driver::remote::ToProto(output.status(), response->mutable_status());
  if (output.ok()) response->set_output(output->data(), output->size());
  return grpc::Status::OK;
}

}  // namespace trnsim::neurond::cluster
