#include "tests/tools/device_plugin/processes.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/tools/neurond/child_process.h"

extern char** environ;

namespace trnsim::device_plugin::testing {

pid_t Spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            const std::string& output) {
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    if (!env.count(entry.substr(0, entry.find('=')))) entries.push_back(entry);
  }
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  std::vector<char*> envp, argv;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_copies = args;
  for (std::string& arg : arg_copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) _exit(126);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

void Kill(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

int RunCapture(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
               std::chrono::seconds timeout, std::string* out) {
  TempDir dir;
  const std::string output = dir.path() + "/out";
  const pid_t pid = Spawn(args, env, output);
  const int code = neurond::testing::WaitExit(pid, timeout);
  std::ifstream file(output);
  std::stringstream text;
  text << file.rdbuf();
  *out = text.str();
  return code;
}

TempDir::TempDir() {
  char pattern[] = "/tmp/trnsim-dp-XXXXXX";
  const char* made = mkdtemp(pattern);
  path_ = made != nullptr ? made : "";
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace trnsim::device_plugin::testing
