#include "tools/neurond/cluster/root_links.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <set>
#include <thread>
#include <utility>

#include "common/log.h"
#include "driver/device.h"
#include "driver/remote/connection.h"
#include "driver/remote/convert.h"

namespace trnsim::neurond::cluster {
namespace {

constexpr std::chrono::seconds kConnectTimeout{5};
// A forwarded call's deadline past the rank's own host timeout: the root ends the rendezvous
// at that timeout; this only bounds a root that stopped answering.
constexpr std::chrono::seconds kDeadlineMargin{60};
constexpr std::chrono::milliseconds kDefaultHostTimeout{600'000};
constexpr std::chrono::milliseconds kPollSlice{20};

Status Collectives(std::string message) {
  return Status(StatusCode::kExecHwErrCollectives, std::move(message));
}

// What a forwarded call came to: the root's status, a cancellation this rank asked for, or the
// root gone.
Status Outcome(const grpc::Status& rpc, const v1::NrtStatus& answer,
               const std::function<bool()>& cancelled, uint32_t rank, const std::string& root) {
  if (rpc.ok()) return driver::remote::StatusFromProto(answer);
  if (rpc.error_code() == grpc::StatusCode::CANCELLED && cancelled && cancelled()) {
    return Collectives("rank " + std::to_string(rank) +
                       " was cancelled while waiting at the job's root daemon " + root);
  }
  return Collectives("the job's root daemon at " + root + " went away (" + rpc.error_message() +
                     ")");
}

// Runs one unary call of `stub` through gRPC's callback API, so that the caller can give it
// up: every kPollSlice it asks `cancelled` and, once true, cancels the call.
template <typename Request, typename Response, typename Start>
grpc::Status CallCancellable(uint64_t timeout_ms, const Request& request, Response* response,
                             const std::function<bool()>& cancelled, Start start) {
  grpc::ClientContext context;
  const auto host_timeout =
      timeout_ms > 0 ? std::chrono::milliseconds(timeout_ms) : kDefaultHostTimeout;
  context.set_deadline(std::chrono::system_clock::now() + host_timeout + kDeadlineMargin);
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  grpc::Status result;
  start(&context, &request, response, [&](grpc::Status status) {
    std::lock_guard lock(mutex);
    result = std::move(status);
    done = true;
    cv.notify_all();
  });
  std::unique_lock lock(mutex);
  bool cancel_sent = false;
  while (!done) {
    cv.wait_for(lock, kPollSlice);
    if (!done && !cancel_sent && cancelled && cancelled()) {
      context.TryCancel();
      cancel_sent = true;
    }
  }
  return result;
}

}  // namespace

struct RootLinks::Link {
  std::shared_ptr<grpc::Channel> channel;
  std::shared_ptr<v1::NeurondCluster::Stub> stub;
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ClusterLinkMessage, v1::ClusterLinkReply>> stream;
  std::mutex write_mutex;  // guards stream writes and `bound`
  std::set<std::pair<std::string, uint32_t>> bound;
  std::atomic<bool> alive{true};
  std::thread reader;
};

RootLinks::RootLinks(ClusterIdentity identity) : identity_(std::move(identity)) {}

RootLinks::~RootLinks() {
  std::map<std::string, std::shared_ptr<Link>> links;
  {
    std::lock_guard lock(mutex_);
    links.swap(links_);
  }
  for (auto& [root, link] : links) {
    link->context.TryCancel();
    if (link->reader.joinable()) link->reader.join();
  }
}

void RootLinks::FillIdentity(v1::ClusterInstance* out) const {
  out->set_id(identity_.id);
  out->set_instance_type(identity_.instance_type);
  out->set_ultraserver(identity_.ultraserver);
}

StatusOr<std::shared_ptr<RootLinks::Link>> RootLinks::Open(const std::string& root) {
  // One open at a time: two links of this instance to one root would look, when one of them
  // ended, like this instance leaving the job.
  std::lock_guard opening(open_mutex_);
  {
    std::lock_guard lock(mutex_);
    auto it = links_.find(root);
    if (it != links_.end() && it->second->alive.load()) return it->second;
  }
  driver::DeviceOptions options;
  options.address = root;
  options.tls_ca_file = identity_.tls_ca_file;
  StatusOr<std::shared_ptr<grpc::Channel>> channel = driver::remote::OpenDaemonChannel(options);
  if (!channel.ok()) {
    return Collectives("the job's root daemon at " + root + ": " + channel.status().message());
  }
  if (!(*channel)->WaitForConnected(std::chrono::system_clock::now() + kConnectTimeout)) {
    return Collectives("the job's root daemon at " + root + " is unreachable (" +
                       "NEURON_RT_ROOT_COMM_ID must be the --cluster-listen address of the " +
                       "daemon of the job's root instance)");
  }
  auto link = std::make_shared<Link>();
  link->channel = *channel;
  link->stub = v1::NeurondCluster::NewStub(link->channel);
  link->stream = link->stub->Link(&link->context);
  v1::ClusterLinkMessage hello;
  hello.set_token(identity_.token);
  hello.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  FillIdentity(hello.mutable_instance());
  v1::ClusterLinkReply reply;
  if (!link->stream->Write(hello) || !link->stream->Read(&reply)) {
    grpc::Status rpc = link->stream->Finish();
    return Collectives("the job's root daemon at " + root + " closed the link (" +
                       rpc.error_message() + ")");
  }
  if (Status accepted = driver::remote::StatusFromProto(reply.status()); !accepted.ok()) {
    link->context.TryCancel();
    link->stream->Finish();
    return Collectives("the job's root daemon at " + root +
                       " refused this instance: " + accepted.message());
  }
  Link* raw = link.get();
  link->reader = std::thread([raw, root] {
    v1::ClusterLinkReply ignored;
    while (raw->stream->Read(&ignored)) {
    }
    raw->alive.store(false);
    raw->stream->Finish();  // the status is the log line below; the call ends here
    TRNSIM_LOG(Info, Tool) << "neurond: the link to the root daemon at " << root << " ended";
  });
  TRNSIM_LOG(Info, Tool) << "neurond: linked to the root daemon at " << root;
  std::shared_ptr<Link> stale;
  {
    std::lock_guard lock(mutex_);
    auto& slot = links_[root];
    stale = std::move(slot);
    slot = link;
  }
  if (stale != nullptr) {  // a link that ended, or one opened at the same time: end it
    stale->context.TryCancel();
    if (stale->reader.joinable()) stale->reader.join();
  }
  return link;
}

Status RootLinks::Bind(const std::string& root, const std::string& communicator, uint32_t rank,
                       uint32_t world_size) {
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<Link> link, Open(root));
  std::lock_guard lock(link->write_mutex);
  if (!link->bound.insert({communicator, rank}).second) return Status::Ok();
  v1::ClusterLinkMessage message;
  v1::ClusterRankBinding* binding = message.add_ranks();
  binding->set_communicator(communicator);
  binding->set_rank(rank);
  binding->set_world_size(world_size);
  if (!link->stream->Write(message)) {
    link->bound.erase({communicator, rank});
    return Collectives("the job's root daemon at " + root + " went away");
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<v1::NeurondCluster::Stub>> RootLinks::Stub(const std::string& root) {
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<Link> link, Open(root));
  return link->stub;
}

StatusOr<simulator::collective::CollectiveOutcome> RootLinks::Collective(
    const std::string& root, v1::ClusterCollectiveRequest request,
    const std::function<bool()>& cancelled) {
  TRNSIM_ASSIGN_OR_RETURN(auto stub, Stub(root));
  request.set_token(identity_.token);
  FillIdentity(request.mutable_instance());
  v1::ClusterCollectiveResponse response;
  const grpc::Status rpc = CallCancellable(
      request.timeout_ms(), request, &response, cancelled,
      [&stub](grpc::ClientContext* context, const v1::ClusterCollectiveRequest* in,
              v1::ClusterCollectiveResponse* out, std::function<void(grpc::Status)> done) {
        stub->async()->Collective(context, in, out, std::move(done));
      });
  TRNSIM_RETURN_IF_ERROR(Outcome(rpc, response.status(), cancelled, request.rank(), root));
  simulator::collective::CollectiveOutcome outcome;
  outcome.output.assign(response.output().begin(), response.output().end());
  outcome.complete_ps = response.complete_ps();
  return outcome;
}

StatusOr<std::vector<uint8_t>> RootLinks::HostCollective(const std::string& root,
                                                         v1::ClusterHostCollectiveRequest request,
                                                         const std::function<bool()>& cancelled) {
  TRNSIM_ASSIGN_OR_RETURN(auto stub, Stub(root));
  request.set_token(identity_.token);
  FillIdentity(request.mutable_instance());
  v1::ClusterHostCollectiveResponse response;
  const grpc::Status rpc = CallCancellable(
      request.timeout_ms(), request, &response, cancelled,
      [&stub](grpc::ClientContext* context, const v1::ClusterHostCollectiveRequest* in,
              v1::ClusterHostCollectiveResponse* out, std::function<void(grpc::Status)> done) {
        stub->async()->HostCollective(context, in, out, std::move(done));
      });
  TRNSIM_RETURN_IF_ERROR(Outcome(rpc, response.status(), cancelled, request.rank(), root));
  return std::vector<uint8_t>(response.output().begin(), response.output().end());
}

}  // namespace trnsim::neurond::cluster
