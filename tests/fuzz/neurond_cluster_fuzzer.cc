// libFuzzer target for the root daemon's side of multi-instance jobs (make fuzz;
// tests/fuzz/README.md): tools/neurond/cluster/cluster_service.h, the NeurondCluster service of
// proto/neurond_cluster.proto, with the CollectiveHub of a ClusterFabric behind it.
//
// One ClusterService over a trn2.3xlarge ClusterFabric (cluster address kRootAddress, token
// kClusterToken) is served by a gRPC server with no listening port, over one end of a socketpair as
// neurond_service_fuzzer serves its daemon (that file says why not InProcessChannel). Each input
// (neurond_cluster_fuzz_input.h) is a sequence of member-daemon calls: Link streams opened,
// fed and ended (tokens right, wrong or missing; protocol versions; instance ids new, repeated
// or the root's own; instance types and UltraServer ids; rank bindings), and Collective and
// HostCollective calls with every field from the input, each on its own thread so that calls
// meet, wait and fail each other as members' ranks do. The fuzzer clamps a call's host timeout
// to at most kMaxWaitMs (or sends one past the service's bound, which it must refuse), so no
// input runs long.
//
// Besides crashes, UBSan reports and hangs, the fuzzer aborts when
//  - a call returns a gRPC status other than the protocol allows (OK; UNAUTHENTICATED;
//    RESOURCE_EXHAUSTED for a message over the size limit; CANCELLED for a Link stream the
//    fuzzer cancelled): UNKNOWN is an exception that escaped a handler;
//  - a reply's NrtStatus is an error without a message, or a Link reply is missing;
//  - a successful Collective returns other than output_bytes bytes;
//  - a call that asked for a refused timeout was not refused, or any call outlives its host
//    timeout by more than kSlack.
#include <grpcpp/grpcpp.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "proto/neurond_cluster.grpc.pb.h"
#include "simulator/spec/instance_spec.h"
#include "tests/fuzz/neurond_cluster_fuzz_input.h"
#include "tests/fuzz/neurond_fuzz_daemon.h"
#include "tools/neurond/cluster/cluster_fabric.h"
#include "tools/neurond/cluster/cluster_service.h"

namespace trnsim::neurond::fuzz {
namespace {

namespace v1 = ::trnsim::neurond::v1;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxOps = 48;    // operations per input
constexpr size_t kMaxCalls = 12;  // Collective / HostCollective threads per input
constexpr std::chrono::seconds kSlack{10};

struct Root {
  std::unique_ptr<cluster::ClusterFabric> fabric;
  std::unique_ptr<cluster::ClusterService> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<v1::NeurondCluster::Stub> stub;
};

// Built on first use, never destroyed (its threads may outlive any static destructor order).
Root& TheRoot() {
  static Root* root = [] {
    auto* r = new Root();
    StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec("trn2.3xlarge");
    if (!spec.ok()) Fail(spec.status().ToString());
    r->fabric = std::make_unique<cluster::ClusterFabric>(
        **spec, cluster::ClusterIdentity{"", "trn2.3xlarge", "", kClusterToken, ""});
    r->fabric->SetAddress(kRootAddress);
    r->service = std::make_unique<cluster::ClusterService>(r->fabric.get(), kClusterToken);
    grpc::ServerBuilder builder;  // no listening port: the socketpair only
    builder.SetMaxReceiveMessageSize(cluster::kMaxClusterMessageBytes);
    builder.SetMaxSendMessageSize(cluster::kMaxClusterMessageBytes);
    builder.RegisterService(r->service.get());
    r->server = builder.BuildAndStart();
    if (r->server == nullptr) Fail("the gRPC server did not start");
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      Fail("socketpair failed");
    }
    grpc::AddInsecureChannelFromFd(r->server.get(), fds[0]);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    r->stub = v1::NeurondCluster::NewStub(
        grpc::CreateCustomInsecureChannelFromFd("neurond-cluster", fds[1], args));
    return r;
  }();
  return *root;
}

std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout + kSlack);
  return context;
}

// A host timeout from the input: 1..kMaxWaitMs, or (flag) one the service must refuse.
uint64_t TimeoutMs(ClusterFuzzReader& in, bool* refused) {
  *refused = (in.U8() & 1) != 0;
  if (*refused) return kMaxServiceTimeoutMs + 1 + (in.Value() >> 1);
  return 1 + in.U8() % kMaxWaitMs;
}

class Run {
 public:
  explicit Run(ClusterFuzzReader& in) : in_(in), root_(TheRoot()) {}

  void Execute() {
    for (size_t ops = 0; ops < kMaxOps && !in_.done(); ++ops) {
      switch (static_cast<ClusterOp>(in_.U8() % static_cast<uint8_t>(ClusterOp::kCount))) {
        case ClusterOp::kLinkOpen:
          LinkOpen();
          break;
        case ClusterOp::kLinkSend:
          LinkSend();
          break;
        case ClusterOp::kLinkEnd: {
          const int slot = in_.U8() % kLinkSlots;  // read in the format's order
          const bool cancel = (in_.U8() & 1) != 0;
          LinkEnd(slot, cancel);
          break;
        }
        case ClusterOp::kCollective:
          Collective();
          break;
        case ClusterOp::kHostCollective:
          HostCollective();
          break;
        case ClusterOp::kJoin:
          Join();
          break;
        case ClusterOp::kCount:
          break;
      }
    }
    Join();  // each call waits at most its timeout
    for (int slot = 0; slot < kLinkSlots; ++slot) LinkEnd(slot, false);
  }

 private:
  struct LinkSlot {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::ClusterLinkMessage, v1::ClusterLinkReply>> stream;
  };

  void LinkOpen() {
    const int slot = in_.U8() % kLinkSlots;
    LinkEnd(slot, false);
    LinkSlot& link = links_[slot];
    link.context = Context(std::chrono::seconds(60));
    link.stream = root_.stub->Link(link.context.get());
    const v1::ClusterLinkMessage first = in_.LinkMessage();
    if (!link.stream->Write(first)) {
      LinkEnd(slot, false);
      return;
    }
    v1::ClusterLinkReply reply;
    if (link.stream->Read(&reply)) {
      CheckReply("Link", reply.status());
    } else {
      // Only a refused token ends the stream without a reply (UNAUTHENTICATED, checked below).
      link.stream->WritesDone();
      const grpc::Status status = link.stream->Finish();
      CheckGrpc("Link", status);
      if (status.ok()) Fail("Link: the stream ended without a reply");
      link = LinkSlot();
    }
  }

  void LinkSend() {
    LinkSlot& link = links_[in_.U8() % kLinkSlots];
    const v1::ClusterLinkMessage message = in_.LinkMessage();
    if (link.stream != nullptr) link.stream->Write(message);
  }

  void LinkEnd(int slot, bool cancel) {
    LinkSlot& link = links_[slot];
    if (link.stream == nullptr) return;
    if (cancel) {
      link.context->TryCancel();
    } else {
      link.stream->WritesDone();
    }
    CheckGrpc("Link", link.stream->Finish(), cancel);
    link = LinkSlot();
  }

  // Starts one forwarded call on its own thread, with the input's timeout: `call(stub, context,
  // request, response)` makes the RPC, `check(request, response)` is its own oracle once it was
  // answered; the checks every call gets are here.
  template <typename Response, typename Request, typename Call, typename Check>
  void Forward(const char* rpc, Request request, Call call, Check check) {
    bool refused = false;
    request.set_timeout_ms(TimeoutMs(in_, &refused));
    if (calls_.size() >= kMaxCalls) Join();
    calls_.emplace_back([this, rpc, request = std::move(request), refused, call, check] {
      const auto timeout = std::chrono::milliseconds(refused ? 0 : request.timeout_ms());
      auto context = Context(timeout);
      Response response;
      const auto start = Clock::now();
      const grpc::Status status = call(*root_.stub, context.get(), request, &response);
      CheckGrpc(rpc, status);
      if (!status.ok()) return;
      CheckReply(rpc, response.status());
      CheckDuration(rpc, start, timeout);
      if (refused && response.status().code() == 0) {
        Fail(std::string(rpc) + ": a timeout of " + std::to_string(request.timeout_ms()) +
             " ms was accepted");
      }
      check(request, response);
    });
  }

  void Collective() {
    Forward<v1::ClusterCollectiveResponse>(
        "Collective", in_.CollectiveRequest(),
        [](v1::NeurondCluster::Stub& stub, grpc::ClientContext* context,
           const v1::ClusterCollectiveRequest& request, v1::ClusterCollectiveResponse* response) {
          return stub.Collective(context, request, response);
        },
        [](const v1::ClusterCollectiveRequest& request,
           const v1::ClusterCollectiveResponse& response) {
          if (response.status().code() == 0 &&
              response.output().size() != request.output_bytes()) {
            Fail("Collective: " + std::to_string(response.output().size()) + " bytes back for " +
                 std::to_string(request.output_bytes()));
          }
        });
  }

  void HostCollective() {
    Forward<v1::ClusterHostCollectiveResponse>(
        "HostCollective", in_.HostCollectiveRequest(),
        [](v1::NeurondCluster::Stub& stub, grpc::ClientContext* context,
           const v1::ClusterHostCollectiveRequest& request,
           v1::ClusterHostCollectiveResponse* response) {
          return stub.HostCollective(context, request, response);
        },
        [](const v1::ClusterHostCollectiveRequest&, const v1::ClusterHostCollectiveResponse&) {});
  }

  static void CheckDuration(const char* rpc, Clock::time_point start,
                            std::chrono::milliseconds timeout) {
    if (Clock::now() - start > timeout + kSlack) {
      Fail(std::string(rpc) + ": answered after more than its " + std::to_string(timeout.count()) +
           " ms timeout plus " + std::to_string(kSlack.count()) + " s");
    }
  }

  void Join() {
    for (std::thread& call : calls_) call.join();
    calls_.clear();
  }

  ClusterFuzzReader& in_;
  Root& root_;
  std::array<LinkSlot, kLinkSlots> links_;
  std::vector<std::thread> calls_;
};

}  // namespace
}  // namespace trnsim::neurond::fuzz

// LeakSanitizer stays off in this target, as in neurond_service_fuzzer (neurond_service.flags
// says why: gRPC's synchronous server retires its worker threads on its own schedule). The
// service's leaks are checked by its tests under `make sanitize`.
extern "C" int __lsan_is_turned_off() { return 1; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static uint64_t inputs = 0;
  trnsim::neurond::fuzz::ClusterFuzzReader in(data, size, "#" + std::to_string(++inputs));
  trnsim::neurond::fuzz::Run(in).Execute();
  return 0;
}
