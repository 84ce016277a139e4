// Session: one client connection of neurond (one Hello .. Goodbye or broken Attach stream), and
// everything it holds on the daemon's shared Device: its cores, its device memory and the
// handles it names them by, per-category byte counts and execution counters.
//
// Handles: the session gives out its own memory handles (1, 2, ...) and maps them to the
// Device's; a handle the session did not allocate — unknown, freed, or another session's — is
// NRT_INVALID_HANDLE, so one client can never name another's memory.
// Cores: AcquireCores goes to the Device, which refuses (NRT_FAILURE) a core any session holds;
// ReleaseCores releases only cores this session holds.
// Memory: an allocation that would take the session's bytes above max_memory_bytes (0: no
// limit) is NRT_RESOURCE; an owner_core outside the instance is NRT_INVALID.
// Programs: the session's program handles map to the Device's like memory handles do.
// Execute: PrepareExecution checks that the session holds every core of the request (the Device
// only knows that *some* session holds it: NRT_FAILURE otherwise) and rewrites the request's
// program and memory handles into the Device's.
// Close() releases everything on the Device (programs unloaded too); afterwards every call is
// NRT_FAILURE ("session ended"), so an RPC still in flight when the session ends cannot leak
// memory. Close first sets cancel_flag(), which the session's executions pass to the Device, so
// an execution still running for a client that went away stops within milliseconds instead of
// holding the Device (and this Close, whose Free calls wait for it) until its end.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "driver/execution_types.h"

namespace trnsim::neurond {

struct SessionIdentity {
  uint64_t id = 0;           // public number (logs, Status RPC), never 0
  std::string key;           // secret credential (metadata trnsim-session-key)
  int64_t client_pid = 0;
  std::string client_command;
  std::string runtime_version;
};

// Bytes one session holds in one category on one HBM stack.
struct SessionMemory {
  int chip = 0;
  int hbm = 0;
  driver::MemoryCategory category = driver::MemoryCategory::kTensor;
  uint64_t bytes = 0;
};

class Session {
 public:
  Session(SessionIdentity identity, driver::Device* device, uint64_t max_memory_bytes);
  ~Session();  // Close()
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const SessionIdentity& identity() const { return identity_; }
  std::chrono::steady_clock::time_point opened_at() const { return opened_at_; }

  // The Attach stream: MarkAttached fails (false) for a second stream. WaitClosed waits up to
  // `timeout` and returns whether the session has ended.
  bool MarkAttached();
  bool attached() const;
  bool WaitClosed(std::chrono::milliseconds timeout);

  Status AcquireCores(int first_physical_core, int count);
  Status ReleaseCores(int first_physical_core, int count);
  bool HoldsCore(int physical_core) const;
  std::vector<int> HeldCores() const;

  // Allocate returns the info with the session's handle.
  StatusOr<driver::AllocationInfo> Allocate(const driver::AllocationRequest& request);
  Status Free(driver::MemoryHandle handle);
  // The Device's handle for a session handle (the info carries the session's handle).
  struct DeviceMemory {
    driver::MemoryHandle device_handle = driver::kInvalidMemoryHandle;
    driver::AllocationInfo info;
  };
  StatusOr<DeviceMemory> Resolve(driver::MemoryHandle handle) const;
  std::vector<SessionMemory> MemoryUsage() const;
  uint64_t memory_bytes() const;

  StatusOr<driver::ProgramHandle> LoadProgram(const driver::ProgramImage& image);
  Status UnloadProgram(driver::ProgramHandle program);
  uint32_t loaded_programs() const;
  Status PrepareExecution(std::vector<driver::CoreExecution>* cores) const;

  // For driver::ExecutionRequestOptions::cancel: true once Close has begun.
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }
  // Around each Device::Execute: BeginExecution counts it as running, EndExecution as completed
  // (failed unless `ok`).
  void BeginExecution();
  void EndExecution(bool ok);
  uint64_t executions() const;
  uint64_t failed_executions() const;
  uint32_t executions_running() const;

  // Releases cores and memory on the Device; idempotent. Returns what was held, for the log
  // (`ended` is false, and the rest zero, when the session had already ended).
  struct Released {
    bool ended = false;
    int cores = 0;
    int allocations = 0;
    uint64_t bytes = 0;
    int programs = 0;
  };
  Released Close();
  bool closed() const;

 private:
  Status CheckOpen() const;  // caller holds mutex_

  const SessionIdentity identity_;
  driver::Device* const device_;
  const uint64_t max_memory_bytes_;
  const std::chrono::steady_clock::time_point opened_at_;
  std::atomic<bool> cancel_{false};

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable closed_cv_;
  bool closed_ = false;
  bool attached_ = false;
  std::vector<bool> cores_held_;  // instance-wide physical cores
  std::map<driver::MemoryHandle, DeviceMemory> memory_;
  driver::MemoryHandle next_handle_ = 1;
  uint64_t memory_bytes_ = 0;
  std::map<std::tuple<int, int, driver::MemoryCategory>, uint64_t> bytes_by_category_;
  std::map<driver::ProgramHandle, driver::ProgramHandle> programs_;  // session -> Device
  driver::ProgramHandle next_program_ = 1;
  uint64_t executions_ = 0;
  uint64_t failed_executions_ = 0;
  uint32_t executions_running_ = 0;
};

}  // namespace trnsim::neurond
