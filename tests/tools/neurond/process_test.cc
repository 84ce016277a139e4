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
