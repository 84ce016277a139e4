// Child processes for the device plugin's end-to-end test: neurond, the plugin, neuron-ls and
// the fault client, each started with extra environment variables, and a temporary directory
// short enough for unix socket paths (under /tmp).
//
// Thread safety: Spawn forks; call it from the test's thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace trnsim::device_plugin::testing {

// Starts `args` (args[0] a path) with the test's environment plus `env`; its stdout and stderr
// go to `output` (appended to). The pid, or -1.
pid_t Spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            const std::string& output);
// Waiting for one: neurond::testing::WaitExit (tests/tools/neurond/child_process.h).
// SIGKILLs and reaps `pid` (no-op for -1).
void Kill(pid_t pid);
// Runs `args` to completion (up to `timeout`): its exit code, stdout in `out`.
int RunCapture(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
               std::chrono::seconds timeout, std::string* out);

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace trnsim::device_plugin::testing
