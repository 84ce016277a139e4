// Reading a neurond's Status: one short session of its own — Hello (this process's pid and
// command line, no runtime version: it is a tool, not a runtime user), Status, Goodbye — on a
// channel opened like the remote back end's (driver/remote/connection.h: plaintext, or TLS with
// a CA file; the token).
//
// Errors, each one line naming the address: NRT_INVALID for a malformed address, a refused
// token or a daemon whose instance type trnsim does not know; NRT_FAILURE when the daemon is
// unreachable or a call fails (a failed TLS handshake included); NRT_TIMEOUT past `deadline`.
// Never blocks longer than about twice `deadline`.
// Every field of the views comes from the daemon's answer (proto/neurond.proto): a process's
// models, its memory per model and its recent executions from its SessionStatus (entries on a
// chip or HBM stack the instance does not have are skipped, as are a model's cores outside it;
// at most kRecentExecutions samples are kept, the newest), a core's busy_wall_ns and flops
// from its CoreStatus. A daemon older than these fields reports them as 0 or empty.
//
// Thread safety: reentrant.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "simulator/spec/instance_spec.h"
#include "tools/observe/instance_view.h"

namespace trnsim::observe {

struct DaemonStatus {
  const simulator::InstanceSpec* instance = nullptr;  // the daemon's instance type
  std::vector<ProcessView> processes;  // every session, ascending id; is_observer marks ours
  std::vector<CoreView> cores;         // every physical core the daemon reported, ascending
  uint64_t uptime_ms = 0;              // the daemon's (StatusResponse.uptime_ms)
  std::vector<DeviceErrorCounters> device_errors;  // StatusResponse.chip_errors, ascending
};

// `connection` uses address, token, tls_ca_file and tls_server_name.
StatusOr<DaemonStatus> ReadDaemonStatus(
    const driver::DeviceOptions& connection,
    std::chrono::milliseconds deadline = std::chrono::milliseconds(10'000));

}  // namespace trnsim::observe
