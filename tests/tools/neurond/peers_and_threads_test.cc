// neurond's limits on who holds what of the daemon itself (README "Sessions, peers and
// threads"): sessions per client peer, the gRPC server's threads, and which sessions' processes
// Status shows.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

uint32_t HelloCode(RawClient& client, std::string* message = nullptr) {
  v1::HelloResponse hello;
  EXPECT_TRUE(client.Hello(kToken, &hello).ok());
  if (message != nullptr) *message = hello.status().message();
  return hello.status().code();
}

void Goodbye(RawClient& client) {
  v1::GoodbyeResponse response;
  ASSERT_TRUE(client.stub().Goodbye(client.Context().get(), v1::GoodbyeRequest(), &response).ok());
}

// Over a Unix socket (every local client one peer: gRPC gives no uid) and over TCP (one peer
// per address: each client's channel has its own port).
TEST_F(NeurondServiceTest, OnePeerHoldsAtMostMaxSessionsPerPeer) {
  for (const std::string listen : {"", "127.0.0.1:0"}) {
    SCOPED_TRACE(listen.empty() ? "unix" : listen);
    StartDaemon(ServiceOptions{.token = kToken, .max_sessions = 8, .max_sessions_per_peer = 2},
                listen);
    auto first = Connect();
    auto second = Connect();
    RawClient third(daemon_->address());
    std::string message;
    EXPECT_EQ(HelloCode(third, &message), kResource);
    EXPECT_NE(message.find("--max-sessions-per-peer 2"), std::string::npos) << message;
    // A session that ends gives its place back.
    Goodbye(*first);
    EXPECT_EQ(HelloCode(third), kOk);
    ExpectServing(*second);
  }
}

TEST_F(NeurondServiceTest, PeerAndThreadLimitsAreValidated) {
  DaemonOptions options;
  options.listen = "unix:" + (dir_.path() / "other.sock").string();
  options.instance = *simulator::FindInstanceSpec("trn2.3xlarge");
  options.service.max_sessions_per_peer = 0;
  EXPECT_EQ(Daemon::Start(options).status().code(), StatusCode::kInvalid);
  options.service.max_sessions_per_peer = 1;
  options.service.max_threads = 1;
  EXPECT_EQ(Daemon::Start(options).status().code(), StatusCode::kInvalid);
}

// More calls that block (host barriers no other rank joins) than the server has threads: some
// are refused by gRPC instead of each taking a thread, and once they end the daemon serves as
// before.
TEST_F(NeurondServiceTest, CallsPastTheThreadCapAreRefusedAndTheDaemonRecovers) {
  StartDaemon(ServiceOptions{.token = kToken, .max_threads = 6});
  auto observer = Connect();
  auto blocker = Connect();
  v1::CoreRange range;
  range.set_first_physical_core(0);
  range.set_count(1);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(blocker->stub().AcquireCores(blocker->Context().get(), range, &acquired).ok());
  ASSERT_EQ(acquired.status().code(), kOk);

  constexpr int kCalls = 12;
  std::vector<grpc::StatusCode> codes(kCalls, grpc::StatusCode::UNKNOWN);
  std::vector<uint32_t> nrt(kCalls, ~0u);
  std::atomic<int> refused{0};
  std::vector<std::thread> calls;
  for (int i = 0; i < kCalls; ++i) {
    calls.emplace_back([&, i] {
      v1::HostCollectiveRequest request;
      request.set_kind(v1::HOST_COLLECTIVE_BARRIER);
      request.set_communicator("blocked-" + std::to_string(i));
      request.set_rank(0);
      request.set_world_size(2);
      request.set_timeout_ms(60000);
      v1::HostCollectiveResponse response;
      grpc::Status status =
          blocker->stub().HostCollective(blocker->Context().get(), request, &response);
      codes[i] = status.error_code();
      nrt[i] = response.status().code();
      if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++refused;
    });
  }
  for (int i = 0; i < 500 && refused == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GT(refused.load(), 0) << "every one of " << kCalls << " blocked calls got a thread";
  // The blocked barriers end with their session.
  blocker->BreakAttach();
  for (std::thread& call : calls) call.join();
  int served = 0;
  for (int i = 0; i < kCalls; ++i) {
    if (codes[i] == grpc::StatusCode::RESOURCE_EXHAUSTED) continue;
    EXPECT_EQ(codes[i], grpc::StatusCode::OK) << "call " << i;
    EXPECT_NE(nrt[i], kOk) << "call " << i << ": a barrier no other rank joined";
    ++served;
  }
  EXPECT_GT(served, 0);
  EXPECT_LT(served, kCalls);
  // Recovered: the observer and a new session are served in full.
  for (int i = 0; i < 500 && DaemonStatus(*observer).sessions_size() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(DaemonStatus(*observer).sessions_size(), 1);
  ExpectServing(*observer);
  auto next = Connect();
  ExpectServing(*next);
}

// Each session's pid and command line (RawClient sends 4242, "neurond_test") as another
// session's Status shows them.
void ExpectProcesses(RawClient& caller, bool others_shown) {
  v1::StatusResponse status;
  ASSERT_TRUE(caller.stub().Status(caller.Context().get(), v1::StatusRequest(), &status).ok());
  ASSERT_EQ(status.sessions_size(), 2);
  for (const v1::SessionStatus& session : status.sessions()) {
    const bool shown = others_shown || session.session_id() == caller.session_id();
    EXPECT_EQ(session.client_pid(), shown ? 4242 : 0) << session.session_id();
    EXPECT_EQ(session.client_command(), shown ? "neurond_test" : "") << session.session_id();
    EXPECT_FALSE(session.runtime_version().empty());
  }
}

TEST_F(NeurondServiceTest, OtherSessionsProcessesAreShownOnlyToLocalClients) {
  {
    SCOPED_TRACE("unix");
    auto alice = Connect();
    auto bob = Connect();
    ExpectProcesses(*alice, true);
  }
  {
    SCOPED_TRACE("TCP");
    StartDaemon(ServiceOptions{.token = kToken}, "127.0.0.1:0");
    auto alice = Connect();
    auto bob = Connect();
    ExpectProcesses(*alice, false);
    ExpectProcesses(*bob, false);
  }
  {
    SCOPED_TRACE("TCP, --show-all-processes");
    StartDaemon(ServiceOptions{.token = kToken, .show_all_processes = true}, "127.0.0.1:0");
    auto alice = Connect();
    auto bob = Connect();
    ExpectProcesses(*alice, true);
  }
}

}  // namespace
}  // namespace trnsim::neurond
