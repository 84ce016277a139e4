// Programs started by the process tests (process_test.cc, load_test.cc): neurond itself, or
// systemd-socket-activate around it, as a child of the test.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace trnsim::neurond::testing {

// Starts `args` (args[0] a path, no PATH search); with `output` set, its stdout and stderr go to
// that file (created or truncated). The child's pid, or -1 when fork fails; a child that cannot
// open `output` exits 126, one that cannot exec exits 127.
pid_t Spawn(const std::vector<std::string>& args, const std::string& output = "");

// Waits for `pid` for up to `timeout`; its exit code, or -1 if it did not exit normally in time
// (it is then SIGKILLed and reaped).
int WaitExit(pid_t pid, std::chrono::seconds timeout);

}  // namespace trnsim::neurond::testing
