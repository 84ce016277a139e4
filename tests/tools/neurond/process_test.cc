// The neurond program itself: started as a subprocess on a Unix socket with a token file, it
// serves a client, and SIGTERM makes it tell the attached client, drain and exit 0. Bad command
// lines exit non-zero with a message instead of listening.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/neurond/test_client.h"

namespace trnsim::neurond {
namespace {

using testing::RawClient;
using testing::TempDir;

pid_t Spawn(const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for `pid` for up to `timeout`; its exit code, or -1 if it did not exit normally in time.
int WaitExit(pid_t pid, std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

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

// A client process killed with SIGKILL leaves nothing held: its cores and memory are back once
// the daemon sees the connection drop. The client is forked before this process uses gRPC.
TEST(NeurondProcessTest, AKilledClientLeavesNothingHeld) {
  TempDir dir;
  const std::string address = "unix:" + (dir.path() / "sock").string();
  pid_t daemon = Spawn({NEUROND_PATH, "--listen", address, "--instance", "trn2.3xlarge"});
  ASSERT_GT(daemon, 0);
  for (int i = 0; i < 500 && !std::filesystem::exists(dir.path() / "sock"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
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
    bool ok = client.Hello("", &hello).ok() && client.Attach() &&
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

  RawClient observer(address);
  v1::HelloResponse hello;
  ASSERT_TRUE(observer.Hello("", &hello).ok());
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
  kill(daemon, SIGTERM);
  v1::SessionEvent event;  // a client reads its Attach stream, and so sees the shutdown
  ASSERT_TRUE(observer.NextEvent(&event));
  EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SHUTTING_DOWN);
  EXPECT_EQ(WaitExit(daemon, std::chrono::seconds(20)), 0);
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
  };
  for (const auto& args : cases) {
    pid_t pid = Spawn(args);
    ASSERT_GT(pid, 0);
    int code = WaitExit(pid, std::chrono::seconds(20));
    EXPECT_GT(code, 0) << args[2] << " " << args.back();
  }
}

}  // namespace
}  // namespace trnsim::neurond
