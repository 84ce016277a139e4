// Session: what nrt_init builds and nrt_close tears down — the configuration frozen at Init,
// the device with this process's logical cores acquired, and the objects the subsystems share
// for that INIT period: the core map and claims, the model registry, the executor, the debug
// streams, the host collectives, send/recv and the async queues. The Lifecycle owns it and
// hands it to calls (Lifecycle::Share, Enter); the subsystems keep their own tables (tensors,
// nrta_cc contexts, profiling sessions) and their own locks.
//
// Thread safety: the members are set by Open and not reassigned until ShutDown; each object
// has its own locking. vnc_bytes_used counts are atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/env.h"
#include "common/status.h"
#include "driver/device.h"
#include "runtime/async/execution_unit_queues.h"
#include "runtime/collectives/host_collectives.h"
#include "runtime/collectives/send_recv.h"
#include "runtime/config.h"
#include "runtime/core_claims.h"
#include "runtime/core_map.h"
#include "runtime/debug/debug_streams.h"
#include "runtime/execution/executor.h"
#include "runtime/model/model_registry.h"
#include "runtime/neff/neff_io.h"
#include "runtime/profiling/sys_trace_recorder.h"

namespace trnsim::runtime {

// Connects to TRNSIM_DAEMON without naming an instance type: the device reports the daemon's
// (errors name the address). Session::Open uses it, and the instance queries before nrt_init.
StatusOr<std::unique_ptr<driver::Device>> OpenDaemonDevice(const Environment& env);

struct Session {
  // Parses the configuration (ParseRuntimeConfig; with TRNSIM_DAEMON and no TRNSIM_INSTANCE
  // the instance is the daemon's), opens the back end, acquires the visible logical cores
  // (NRT_FAILURE "Logical Neuron Core(s) not available" when another process holds one) and
  // builds the shared objects. The executor records into `sys_trace` (the Profiler's).
  static StatusOr<std::unique_ptr<Session>> Open(const Environment& env,
                                                 profiling::SysTraceRecorder* sys_trace);
  // Releases the logical cores; the device goes with the Session.
  ~Session();

  // Close's first half, once no call runs: shuts the queues down, destroys the executor, the
  // debug streams (closing their descriptors), the host collectives, send/recv (closing every
  // transfer) and the model registry (unloading every model). The tensors' memory and the
  // device stay until the Session goes (the TensorTable frees its tensors in between).
  void ShutDown();
  // "0" or "first-last": the process's visible logical cores, for messages.
  std::string VisibleText() const;

  RuntimeConfig config;
  std::unique_ptr<CoreMap> core_map;
  std::unique_ptr<driver::Device> device;
  std::unique_ptr<std::atomic<uint64_t>[]> vnc_bytes_used;  // per visible vnc
  std::unique_ptr<CoreClaims> core_claims;                  // outlives models and executor
  std::unique_ptr<model::ModelRegistry> models;
  std::unique_ptr<debug::DebugStreams> debug_streams;  // outlives the executor (it delivers)
  std::unique_ptr<execution::Executor> executor;
  std::unique_ptr<collectives::HostCollectives> host_collectives;
  std::unique_ptr<collectives::SendRecv> send_recv;
  // The nrta_* queues, and nrt_execute's when implicit async is on (config.
  // implicit_async_depth > 0; null otherwise). Shared: Close shuts them down outside the
  // lifecycle lock, since queued requests call back into the runtime.
  std::shared_ptr<async::ExecutionUnitQueues> async_queues;
  std::shared_ptr<async::ExecutionUnitQueues> implicit_queues;
  neff::ReadOptions read_options;  // validate_hash from NEURON_RT_VALIDATE_HASH
};

}  // namespace trnsim::runtime
