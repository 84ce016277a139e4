// RuntimeClientTest: an in-process neurond on trn2.3xlarge (no token, its own temporary socket)
// with this process's Runtime as its client: TRNSIM_DAEMON points at it and LNC is 1, so vnc k
// is physical core k. The tests call InitRuntime() once they have set any other variable
// (TRNSIM_FAULTS, ...). DaemonStatus() reads the Status RPC through a raw client of its own.
// TearDown closes the runtime, clears every variable of the environment table and stops the
// daemon.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "common/env.h"
#include "proto/neurond.grpc.pb.h"
#include "runtime/runtime.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond::testing {

class RuntimeClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClearEnv();
    DaemonOptions options;
    options.listen = "unix:" + (dir_.path() / "neurond.sock").string();
    StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec("trn2.3xlarge");
    ASSERT_TRUE(spec.ok());
    options.instance = *spec;
    auto daemon = Daemon::Start(options);
    ASSERT_TRUE(daemon.ok()) << daemon.status().message();
    daemon_ = std::move(*daemon);
    setenv("TRNSIM_DAEMON", daemon_->address().c_str(), 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
  }
  void TearDown() override {
    rt().Close();
    ClearEnv();
    daemon_.reset();
  }
  static void ClearEnv() {
    for (const EnvVarInfo& info : EnvTable()) unsetenv(info.name);
  }
  static runtime::Runtime& rt() { return runtime::Runtime::Get(); }
  static void InitRuntime() {
    Status init = rt().Init(1, "test", "test");
    ASSERT_TRUE(init.ok()) << init.ToString();
  }

  v1::StatusResponse DaemonStatus() {
    RawClient client(daemon_->address());
    v1::HelloResponse hello;
    EXPECT_TRUE(client.Hello("", &hello).ok());
    v1::StatusResponse status;
    EXPECT_TRUE(client.stub().Status(client.Context().get(), v1::StatusRequest(), &status).ok());
    v1::GoodbyeResponse bye;
    (void)client.stub().Goodbye(client.Context().get(), v1::GoodbyeRequest(), &bye);
    return status;
  }

  TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

}  // namespace trnsim::neurond::testing
