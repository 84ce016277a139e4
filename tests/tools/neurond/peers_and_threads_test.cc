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
}

}  // namespace
}  // namespace trnsim::neurond
