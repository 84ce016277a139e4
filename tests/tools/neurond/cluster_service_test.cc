// The root's NeurondCluster service (tools/neurond/cluster/cluster_service.h) on an in-process
// daemon's --cluster-listen address, called directly with the generated stub: token checks,
// Link refusals, Collective requests out of range (NRT_INVALID in the reply, never a crash),
// two forwarded ranks meeting, and a link whose end fails a forwarded rank waiting for one of
// its ranks.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "proto/neurond_cluster.grpc.pb.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {
namespace {

using namespace std::chrono_literals;

constexpr char kToken[] = "cluster-s3cret";
constexpr uint32_t kOk = 0, kInvalid = 2, kTimeout = 5, kCollectives = 1200;

class ClusterServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DaemonOptions options;
    options.listen = "127.0.0.1:0";
    options.instance = simulator::FindInstanceSpec("trn2.3xlarge").value();
    options.service.token = kToken;
    options.cluster.listen = "127.0.0.1:0";
    auto daemon = Daemon::Start(options);
    ASSERT_TRUE(daemon.ok()) << daemon.status().message();
    daemon_ = std::move(*daemon);
    ASSERT_FALSE(daemon_->cluster_address().empty());
    stub_ = v1::NeurondCluster::NewStub(
        grpc::CreateChannel(daemon_->cluster_address(), grpc::InsecureChannelCredentials()));
  }

  static std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds deadline = 10s) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + deadline);
    return context;
  }

  static v1::ClusterInstance Instance(const std::string& id,
                                      const std::string& type = "trn2.3xlarge") {
    v1::ClusterInstance instance;
    instance.set_id(id);
    instance.set_instance_type(type);
    return instance;
  }

  // A valid forwarded all_reduce of one fp32 value: `rank` of a world of 2 on instance `id`.
  v1::ClusterCollectiveRequest Collective(const std::string& id, uint32_t rank, float value) {
    v1::ClusterCollectiveRequest request;
    request.set_token(kToken);
    *request.mutable_instance() = Instance(id);
    request.set_communicator(daemon_->cluster_address());
    request.set_rank(rank);
    request.set_world_size(2);
    request.set_kind(0);     // all_reduce
    request.set_op(1);       // add
    request.set_dtype(0xA);  // fp32
    request.set_group_size(0);
    request.set_group_stride(1);
    request.set_input(&value, sizeof(value));
    request.set_output_bytes(sizeof(value));
    request.set_physical_core(2 * static_cast<int>(rank));
    request.set_arrival_ps(100 * (rank + 1));
    request.set_timeout_ms(5000);
    return request;
  }

  // An open Link stream of one member, after the root's reply to its first message.
  struct Link {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::ClusterLinkMessage, v1::ClusterLinkReply>> stream;
    v1::ClusterLinkReply reply;
    bool replied = false;
    grpc::Status Close() {
      stream->WritesDone();
      return stream->Finish();
    }
  };

  Link OpenLink(v1::ClusterLinkMessage first) {
    Link link;
    link.context = Context(30s);
    link.stream = stub_->Link(link.context.get());
    EXPECT_TRUE(link.stream->Write(first));
    link.replied = link.stream->Read(&link.reply);
    return link;
  }

  v1::ClusterLinkMessage LinkMessage(const std::string& id,
                                     const std::string& type = "trn2.3xlarge") {
    v1::ClusterLinkMessage message;
    message.set_token(kToken);
    message.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
    *message.mutable_instance() = Instance(id, type);
    return message;
  }

  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<v1::NeurondCluster::Stub> stub_;
};

TEST_F(ClusterServiceTest, WrongOrMissingTokenIsUnauthenticated) {
  for (const char* token : {"wrong", ""}) {
    SCOPED_TRACE(token);
    v1::ClusterCollectiveRequest request = Collective("m:1", 0, 1.0f);
    request.set_token(token);
    v1::ClusterCollectiveResponse response;
    EXPECT_EQ(stub_->Collective(Context().get(), request, &response).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    v1::ClusterHostCollectiveRequest host;
    host.set_token(token);
    *host.mutable_instance() = Instance("m:1");
    host.set_world_size(1);
    v1::ClusterHostCollectiveResponse host_response;
    EXPECT_EQ(stub_->HostCollective(Context().get(), host, &host_response).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    v1::ClusterLinkMessage message = LinkMessage("m:1");
    message.set_token(token);
    Link link = OpenLink(message);
    EXPECT_FALSE(link.replied);
    EXPECT_EQ(link.Close().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
}

TEST_F(ClusterServiceTest, LinkRefusals) {
  const std::string own_id = daemon_->cluster_address();  // 127.0.0.1:PORT, no wildcard
  std::vector<v1::ClusterLinkMessage> refused;
  refused.push_back(LinkMessage("m:1", "trn9.huge"));  // unknown instance type
  refused.push_back(LinkMessage("", "trn2.3xlarge"));  // no id
  refused.push_back(LinkMessage(own_id));              // the daemon itself
  for (uint32_t version : {0u, 99u}) {
    refused.push_back(LinkMessage("m:1"));
    refused.back().set_protocol_version(version);
  }
  for (size_t i = 0; i < refused.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    Link link = OpenLink(refused[i]);
    ASSERT_TRUE(link.replied);
    EXPECT_EQ(link.reply.status().code(), kInvalid) << link.reply.status().message();
    EXPECT_FALSE(link.reply.status().message().empty());
    EXPECT_TRUE(link.Close().ok());
  }

  // Accepted once; a second link with the same id is refused while the first is open, and
  // accepted again once it has ended.
  Link first = OpenLink(LinkMessage("m:1"));
  ASSERT_TRUE(first.replied);
  EXPECT_EQ(first.reply.status().code(), kOk) << first.reply.status().message();
  Link second = OpenLink(LinkMessage("m:1"));
  ASSERT_TRUE(second.replied);
  EXPECT_EQ(second.reply.status().code(), kInvalid);
  EXPECT_NE(second.reply.status().message().find("linked already"), std::string::npos)
      << second.reply.status().message();
  EXPECT_TRUE(second.Close().ok());
  Link other = OpenLink(LinkMessage("m:2"));
  ASSERT_TRUE(other.replied);
  EXPECT_EQ(other.reply.status().code(), kOk);
  EXPECT_TRUE(first.Close().ok());
  Link again = OpenLink(LinkMessage("m:1"));
  ASSERT_TRUE(again.replied);
  EXPECT_EQ(again.reply.status().code(), kOk) << again.reply.status().message();
  EXPECT_TRUE(again.Close().ok());
  EXPECT_TRUE(other.Close().ok());
}

TEST_F(ClusterServiceTest, CollectiveOutOfRangeIsInvalidInTheReply) {
  std::vector<std::pair<std::string, v1::ClusterCollectiveRequest>> cases;
  auto add = [&](const std::string& what, auto change) {
    v1::ClusterCollectiveRequest request = Collective("m:1", 0, 1.0f);
    change(request);
    cases.push_back({what, request});
  };
  add("chip 1 of one", [](auto& r) { r.set_chip(1); });
  add("chip -1", [](auto& r) { r.set_chip(-1); });
  add("core 8", [](auto& r) { r.set_physical_core(8); });
  add("core -1", [](auto& r) { r.set_physical_core(-1); });
  add("kind 5", [](auto& r) { r.set_kind(5); });
  add("kind huge", [](auto& r) { r.set_kind(0xFFFFFFFFu); });
  add("op 32", [](auto& r) { r.set_op(32); });
  add("dtype 16", [](auto& r) { r.set_dtype(16); });
  add("unknown type", [](auto& r) { r.mutable_instance()->set_instance_type("trn9.huge"); });
  add("no instance id", [](auto& r) { r.mutable_instance()->set_id(""); });
  add("output beyond 1 GiB", [](auto& r) { r.set_output_bytes(uint64_t{4} << 30); });
  add("timeout beyond 100 min", [](auto& r) { r.set_timeout_ms(uint64_t{1} << 40); });
  add("world 0", [](auto& r) { r.set_world_size(0); });
  add("rank outside its world", [](auto& r) { r.set_rank(2); });
  add("world beyond 64 instances", [](auto& r) { r.set_world_size(8 * 64 + 1); });
  add("group that does not fit", [](auto& r) { r.set_group_size(3); });
  add("output size that does not fit", [](auto& r) { r.set_output_bytes(8); });
  for (const auto& [what, request] : cases) {
    SCOPED_TRACE(what);
    v1::ClusterCollectiveResponse response;
    grpc::Status status = stub_->Collective(Context().get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.status().code(), kInvalid) << response.status().message();
  }
  // Host collectives: an unknown type and a world of 0.
  v1::ClusterHostCollectiveRequest host;
  host.set_token(kToken);
  *host.mutable_instance() = Instance("m:1", "trn9.huge");
  host.set_communicator(daemon_->cluster_address());
  host.set_world_size(1);
  v1::ClusterHostCollectiveResponse host_response;
  ASSERT_TRUE(stub_->HostCollective(Context().get(), host, &host_response).ok());
  EXPECT_EQ(host_response.status().code(), kInvalid);
  *host.mutable_instance() = Instance("m:1");
  host.set_world_size(0);
  ASSERT_TRUE(stub_->HostCollective(Context().get(), host, &host_response).ok());
  EXPECT_EQ(host_response.status().code(), kInvalid);
}

TEST_F(ClusterServiceTest, TwoForwardedRanksOfTwoInstancesMeet) {
  std::optional<v1::ClusterCollectiveResponse> responses[2];
  std::vector<std::thread> threads;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      v1::ClusterCollectiveResponse response;
      grpc::Status status = stub_->Collective(
          Context().get(), Collective(rank == 0 ? "m:1" : "m:2", rank, 1.5f + rank), &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      responses[rank] = response;
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& response : responses) {
    ASSERT_TRUE(response.has_value());
    ASSERT_EQ(response->status().code(), kOk) << response->status().message();
    float sum = 0;
    ASSERT_EQ(response->output().size(), sizeof(sum));
    std::memcpy(&sum, response->output().data(), sizeof(sum));
    EXPECT_EQ(sum, 4.0f);
    // The last arrival (200 ps) plus a cost across two instances: at least EFA's 15 us.
    EXPECT_GT(response->complete_ps(), 200u + 15'000'000u);
  }
}

TEST_F(ClusterServiceTest, EndOfALinkFailsAForwardedRankWaitingForItsRanks) {
  // Member m:1 links and binds rank 1; rank 0 (forwarded by m:2) waits for it; m:1's link ends.
  v1::ClusterLinkMessage message = LinkMessage("m:1");
  v1::ClusterRankBinding* binding = message.add_ranks();
  binding->set_communicator(daemon_->cluster_address());
  binding->set_rank(1);
  binding->set_world_size(2);
  Link link = OpenLink(message);
  ASSERT_TRUE(link.replied);
  ASSERT_EQ(link.reply.status().code(), kOk);

  v1::ClusterCollectiveRequest request = Collective("m:2", 0, 1.0f);
  request.set_timeout_ms(20'000);
  const auto start = std::chrono::steady_clock::now();
  v1::ClusterCollectiveResponse response;
  std::thread waiter([&] {
    grpc::Status status = stub_->Collective(Context(30s).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
  });
  // Whether rank 0 is already waiting when the link ends or arrives just after, it fails at
  // once naming rank 1 and the departed instance.
  EXPECT_TRUE(link.Close().ok());
  waiter.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // not its 20 s timeout
  EXPECT_EQ(response.status().code(), kCollectives) << response.status().message();
  EXPECT_NE(response.status().message().find("rank 1"), std::string::npos)
      << response.status().message();
  EXPECT_NE(response.status().message().find("m:1 went away"), std::string::npos)
      << response.status().message();
}

TEST_F(ClusterServiceTest, BindingsNoJobCanHaveAreNotNoted) {
  // Member m:1 binds rank 1 only with worlds no job can have (empty, rank not below it, larger
  // than 64 instances hold); its link then ends. Had a binding been noted, rank 0 waiting for
  // rank 1 would fail at once naming m:1 (as in EndOfALinkFailsAForwardedRankWaitingForItsRanks);
  // ignored, it times out.
  v1::ClusterLinkMessage message = LinkMessage("m:1");
  for (uint32_t world : {0u, 1u, 1u << 20}) {
    v1::ClusterRankBinding* binding = message.add_ranks();
    binding->set_communicator(daemon_->cluster_address());
    binding->set_rank(1);
    binding->set_world_size(world);
  }
  Link link = OpenLink(message);
  ASSERT_TRUE(link.replied);
  ASSERT_EQ(link.reply.status().code(), kOk);
  EXPECT_TRUE(link.Close().ok());

  v1::ClusterCollectiveRequest request = Collective("m:2", 0, 1.0f);
  request.set_timeout_ms(300);
  v1::ClusterCollectiveResponse response;
  grpc::Status status = stub_->Collective(Context().get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.status().code(), kTimeout) << response.status().message();
  EXPECT_EQ(response.status().message().find("went away"), std::string::npos)
      << response.status().message();
}

}  // namespace
}  // namespace trnsim::neurond
