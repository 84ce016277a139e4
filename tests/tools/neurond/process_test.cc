// The neurond program itself: started as a subprocess on a Unix socket with a token file, it
// serves a client, and SIGTERM makes it tell the attached client, drain and exit 0. With
// --tls-cert/--tls-key on 127.0.0.1:0 it serves a remote back end client that trusts its
// certificate and refuses a plaintext one. Bad command lines exit non-zero with a message
// instead of listening: 2 for a malformed one (half a TLS pair), 1 for unusable files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "driver/remote/remote_device.h"
#include "simulator/spec/instance_spec.h"
#include "tests/tools/neurond/child_process.h"
#include "tests/tools/neurond/test_client.h"

namespace trnsim::neurond {
namespace {

using testing::RawClient;
using testing::Spawn;
using testing::TempDir;
using testing::WaitExit;

TEST(NeurondProcessTest, ServesThenDrainsOnSigterm) {
  TempDir dir;
  const std::string token_file = (dir.path() / "token").string();
  std::ofstream(token_file) << "tok-123\n";
  const std::string address = "unix:" + (dir.path() / "sock").string();
  pid_t pid = Spawn({NEUROND_PATH, "--listen", address, "--instance", "trn2.3xlarge",
                     "--token-file", token_file});
  ASSERT_GT(pid, 0);
  // Connect only once the socket exists: a channel that failed once backs off before retrying.
  for (int i = 0; i < 500 && !std::filesystem::exists(dir.path() / "sock"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  RawClient client(address);
  v1::HelloResponse hello;
  ASSERT_TRUE(client.Hello("tok-123", &hello).ok()) << "neurond did not come up on " << address;
  EXPECT_EQ(hello.status().code(), 0u);
  ASSERT_TRUE(client.Attach());
  RawClient intruder(address);
  EXPECT_EQ(intruder.Hello("tok-124", &hello).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  ASSERT_EQ(kill(pid, SIGTERM), 0);
  v1::SessionEvent event;
  ASSERT_TRUE(client.NextEvent(&event));
  EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SHUTTING_DOWN);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 0);
}

// Forks a client process that opens a session on the trn2.3xlarge daemon at `address`, holds
// 8 MiB and all four cores, and is then SIGKILLed: its cores and memory must be back once the
// daemon sees the connection drop. The client is forked before this test opens a channel;
// *observer is then an attached session of the same daemon, left open for the caller.
void ExpectAKilledClientLeavesNothingHeld(const std::string& address, const std::string& token,
                                          std::unique_ptr<RawClient>* observer_out) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t victim = fork();
  if (victim == 0) {
    close(ready[0]);
    RawClient client(address);
    v1::HelloResponse hello;
    v1::AllocationRequest request;
    request.set_size_bytes(8 << 20);
    request.set_alignment_bytes(64);
    request.set_category(v1::MEMORY_CATEGORY_TENSOR);
    v1::AllocateResponse allocated;
    v1::CoreRange cores;
    cores.set_first_physical_core(0);
    cores.set_count(4);
    v1::AcquireCoresResponse acquired;
    bool ok = client.Hello(token, &hello).ok() && client.Attach() &&
              client.stub().Allocate(client.Context().get(), request, &allocated).ok() &&
              allocated.status().code() == 0 &&
              client.stub().AcquireCores(client.Context().get(), cores, &acquired).ok() &&
              acquired.status().code() == 0;
    char byte = ok ? '1' : '0';
    (void)!write(ready[1], &byte, 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  EXPECT_EQ(byte, '1') << "the client could not set up its session";

  *observer_out = std::make_unique<RawClient>(address);
  RawClient& observer = **observer_out;
  v1::HelloResponse hello;
  ASSERT_TRUE(observer.Hello(token, &hello).ok());
  ASSERT_TRUE(observer.Attach());
  v1::StatusResponse status;
  ASSERT_TRUE(observer.stub().Status(observer.Context().get(), v1::StatusRequest(), &status).ok());
  ASSERT_EQ(status.sessions_size(), 2);
  EXPECT_EQ(status.cores(3).owner_session_id(), status.sessions(0).session_id());

  kill(victim, SIGKILL);
  int ignored = 0;
  waitpid(victim, &ignored, 0);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(
        observer.stub().Status(observer.Context().get(), v1::StatusRequest(), &status).ok());
    if (status.sessions_size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(status.sessions_size(), 1);
  uint64_t used = 0;
  for (const auto& hbm : status.hbm()) used += hbm.used_bytes();
  EXPECT_EQ(used, 0u);
  for (const auto& core : status.cores()) EXPECT_EQ(core.owner_session_id(), 0u);
}

// A client process killed with SIGKILL leaves nothing held.
TEST(NeurondProcessTest, AKilledClientLeavesNothingHeld) {
  TempDir dir;
  const std::string address = "unix:" + (dir.path() / "sock").string();
  pid_t daemon = Spawn({NEUROND_PATH, "--listen", address, "--instance", "trn2.3xlarge"});
  ASSERT_GT(daemon, 0);
  for (int i = 0; i < 500 && !std::filesystem::exists(dir.path() / "sock"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::unique_ptr<RawClient> observer;
  ExpectAKilledClientLeavesNothingHeld(address, "", &observer);
  ASSERT_NE(observer, nullptr);
  kill(daemon, SIGTERM);
  v1::SessionEvent event;  // a client reads its Attach stream, and so sees the shutdown
  if (!observer->NextEvent(&event)) {
    // Failed once under ASan on a loaded machine (not reproduced in 100s of runs since): say
    // how the stream ended and how the daemon did.
    const grpc::Status ended = observer->FinishAttach();
    const int exit_code = WaitExit(daemon, std::chrono::seconds(20));
    FAIL() << "the Attach stream ended without an event: gRPC status " << ended.error_code() << " ("
           << ended.error_message() << "); the daemon exited with " << exit_code;
  }
  EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SHUTTING_DOWN);
  EXPECT_EQ(WaitExit(daemon, std::chrono::seconds(20)), 0);
}

std::string ReadAll(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::string TlsData(const char* name) { return std::string(TRNSIM_TLS_TEST_DATA) + "/" + name; }

TEST(NeurondProcessTest, TlsDaemonServesATrustingClientAndRefusesPlaintext) {
  TempDir dir;
  const std::string output = (dir.path() / "neurond.out").string();
  pid_t pid = Spawn({NEUROND_PATH, "--listen", "127.0.0.1:0", "--instance", "trn2.3xlarge",
                     "--tls-cert", TlsData("server.crt"), "--tls-key", TlsData("server.key")},
                    output);
  ASSERT_GT(pid, 0);
  // The daemon prints "neurond: listening on 127.0.0.1:PORT" once it serves.
  const std::string banner = "listening on ";
  std::string address;
  for (int i = 0; i < 1000 && address.empty(); ++i) {
    std::string text = ReadAll(output);
    size_t at = text.find(banner);
    size_t end = at == std::string::npos ? at : text.find('\n', at);
    if (end != std::string::npos) {
      address = text.substr(at + banner.size(), end - at - banner.size());
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ASSERT_THAT(address, ::testing::StartsWith("127.0.0.1:")) << ReadAll(output);

  driver::DeviceOptions options;
  options.backend = "remote";
  options.instance = *simulator::FindInstanceSpec("trn2.3xlarge");
  options.address = address;
  options.tls_ca_file = TlsData("server.crt");
  {
    auto device = driver::remote::OpenRemoteDevice(options);
    ASSERT_TRUE(device.ok()) << device.status().message();
    ASSERT_TRUE((*device)->AcquireCores(0, 2).ok());
    driver::AllocationRequest request;
    request.size_bytes = 4096;
    auto info = (*device)->Allocate(request);
    ASSERT_TRUE(info.ok()) << info.status().message();
    std::vector<uint8_t> written(4096), read(4096);
    for (size_t i = 0; i < written.size(); ++i) written[i] = static_cast<uint8_t>(i ^ 0x5A);
    ASSERT_TRUE((*device)->Write(info->handle, 0, written.data(), written.size()).ok());
    ASSERT_TRUE((*device)->Read(info->handle, 0, read.data(), read.size()).ok());
    EXPECT_EQ(read, written);
  }
  options.tls_ca_file.clear();
  auto plaintext = driver::remote::OpenRemoteDevice(options);
  ASSERT_FALSE(plaintext.ok());
  EXPECT_EQ(plaintext.status().code(), StatusCode::kFailure);
  EXPECT_THAT(plaintext.status().message(), ::testing::HasSubstr(address));

  ASSERT_EQ(kill(pid, SIGTERM), 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 0);
  EXPECT_THAT(ReadAll(output), ::testing::HasSubstr("(TLS)"));
}

// Half a TLS pair is a malformed command line (2); a pair that cannot be used is a daemon that
// cannot start (1), with one line naming the file.
TEST(NeurondProcessTest, TlsOptionsComeInAUsablePair) {
  TempDir dir;
  const std::string output = (dir.path() / "neurond.out").string();
  const std::string missing = (dir.path() / "missing.key").string();
  const std::vector<std::string> base = {NEUROND_PATH, "--listen", "127.0.0.1:0", "--instance",
                                         "trn2.3xlarge"};
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    pid_t pid = Spawn(args, output);
    return pid > 0 ? WaitExit(pid, std::chrono::seconds(20)) : -1;
  };
  EXPECT_EQ(run({"--tls-cert", TlsData("server.crt")}), 2) << ReadAll(output);
  EXPECT_THAT(ReadAll(output), ::testing::HasSubstr("--tls-key"));
  EXPECT_EQ(run({"--tls-key", TlsData("server.key")}), 2) << ReadAll(output);

  EXPECT_EQ(run({"--tls-cert", TlsData("server.crt"), "--tls-key", missing}), 1);
  std::string message = ReadAll(output);
  EXPECT_THAT(message, ::testing::HasSubstr(missing));
  EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr("listening")));
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;

  // A key where the certificate belongs; another certificate's key.
  EXPECT_EQ(run({"--tls-cert", TlsData("server.key"), "--tls-key", TlsData("server.key")}), 1);
  EXPECT_THAT(ReadAll(output), ::testing::HasSubstr(TlsData("server.key")));
  EXPECT_EQ(run({"--tls-cert", TlsData("other.crt"), "--tls-key", TlsData("server.key")}), 1);
  EXPECT_THAT(ReadAll(output), ::testing::HasSubstr("not the key"));
}

// neurond started as neurond.socket starts it, by systemd's own implementation of the protocol
// (systemd-socket-activate, package systemd): the socket exists before neurond runs, and the
// first client's connection starts neurond in the same process with LISTEN_PID/LISTEN_FDS and
// the socket at fd 3. That connection is served; a SIGKILLed client leaves nothing held; SIGTERM
// drains and exits 0. A --listen that is not the socket: exit 1 with one line.
TEST(NeurondProcessTest, SocketActivatedDaemonServesTheConnectionThatStartedIt) {
  const char* activate = "/usr/bin/systemd-socket-activate";
  if (access(activate, X_OK) != 0) {
    GTEST_SKIP() << activate << " is missing (Debian package systemd; scripts/install-deps.sh)";
  }
  TempDir dir;
  const std::string token_file = (dir.path() / "token").string();
  std::ofstream(token_file) << "tok-activated\n";
  const std::string path = (dir.path() / "neurond.sock").string();
  const std::string address = "unix:" + path;
  const std::string output = (dir.path() / "neurond.out").string();
  pid_t pid = Spawn({activate, "-l", path, NEUROND_PATH, "--listen", address, "--instance",
                     "trn2.3xlarge", "--token-file", token_file},
                    output);
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 500 && !std::filesystem::exists(path); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    RawClient first(address);  // its connection is what starts neurond
    v1::HelloResponse hello;
    ASSERT_TRUE(first.Hello("tok-activated", &hello).ok()) << ReadAll(output);
    EXPECT_EQ(hello.status().code(), 0u);
    v1::GoodbyeResponse goodbye;  // ends the session at once
    ASSERT_TRUE(first.stub().Goodbye(first.Context().get(), v1::GoodbyeRequest(), &goodbye).ok());
    EXPECT_EQ(goodbye.status().code(), 0u);
  }
  std::unique_ptr<RawClient> observer;
  ExpectAKilledClientLeavesNothingHeld(address, "tok-activated", &observer);
  ASSERT_NE(observer, nullptr);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  v1::SessionEvent event;
  ASSERT_TRUE(observer->NextEvent(&event));
  EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SHUTTING_DOWN);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 0);
  EXPECT_THAT(ReadAll(output), ::testing::HasSubstr("(socket from systemd)"));

  // The unit file and /etc/default/neurond disagreeing about the address.
  const std::string other = (dir.path() / "other.sock").string();
  std::filesystem::remove(path);
  pid = Spawn({activate, "-l", path, NEUROND_PATH, "--listen", "unix:" + other, "--instance",
               "trn2.3xlarge"},
              output);
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 500 && !std::filesystem::exists(path); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  RawClient trigger(address);
  v1::HelloResponse hello;
  (void)trigger.Hello("", &hello);  // starts neurond, which refuses to serve
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 1);
  const std::string message = ReadAll(output);
  EXPECT_THAT(message, ::testing::HasSubstr("is not the socket systemd passed"));
  EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr("listening on")));
}

TEST(NeurondProcessTest, BadCommandLinesExitWithoutListening) {
  TempDir dir;
  const std::string sock = "unix:" + (dir.path() / "sock").string();
  const std::vector<std::vector<std::string>> cases = {
      {NEUROND_PATH, "--listen", "0.0.0.0:0", "--instance", "trn2.3xlarge"},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn9.huge"},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2.3xlarge", "--lnc", "3"},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2.3xlarge", "--token-file",
       (dir.path() / "missing").string()},
      {NEUROND_PATH, "--instance", "trn2.3xlarge"},
      // Multi-instance jobs (docs/cluster.md): the cluster address must be TCP, on loopback
      // unless --allow-remote; --ultraserver only with it and only on an UltraServer node type;
      // TLS needs --peer-ca to check the other daemons.
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2.3xlarge", "--cluster-listen",
       "unix:" + (dir.path() / "peers").string()},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2.3xlarge", "--cluster-listen",
       "10.1.2.3:0"},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2.3xlarge", "--cluster-listen",
       "127.0.0.1:0", "--ultraserver", "us-0"},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2u.48xlarge", "--ultraserver", "us-0"},
      {NEUROND_PATH, "--listen", sock, "--instance", "trn2.3xlarge", "--cluster-listen",
       "127.0.0.1:0", "--tls-cert", TlsData("server.crt"), "--tls-key", TlsData("server.key")},
  };
  for (const auto& args : cases) {
    pid_t pid = Spawn(args);
    ASSERT_GT(pid, 0);
    int code = WaitExit(pid, std::chrono::seconds(20));
    EXPECT_GT(code, 0) << args[2] << " " << args.back();
  }
}

// Issue 20 F6: a --token-file that names a directory exits 1 saying so, not "is empty".
TEST(NeurondProcessTest, ATokenFileThatIsADirectoryIsNamedAsOne) {
  TempDir dir;
  const std::string output = (dir.path() / "output").string();
  const std::string token_dir = (dir.path() / "tokens").string();
  std::filesystem::create_directory(token_dir);
  pid_t pid = Spawn({NEUROND_PATH, "--listen", "unix:" + (dir.path() / "sock").string(),
                     "--instance", "trn2.3xlarge", "--token-file", token_dir},
                    output);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(20)), 1);
  const std::string message = ReadAll(output);
  EXPECT_THAT(message, ::testing::HasSubstr("neurond: cannot read the token file " + token_dir +
                                            ": it is a directory, not a file"));
  EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr("empty")));
}

}  // namespace
}  // namespace trnsim::neurond
