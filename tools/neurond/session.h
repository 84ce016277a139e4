// Session: one client connection of neurond (one Hello .. Goodbye or broken Attach stream), and
// everything it holds on the daemon's shared Device: its cores, its device memory and the
// handles it names them by, per-category byte counts and execution counters.
//
// Handles: the session gives out its own memory handles (1, 2, ...) and maps them to the
// Device's; a handle the session did not allocate — unknown, freed, or another session's — is
// NRT_INVALID_HANDLE, so one client can never name another's memory.
// Cores: AcquireCores goes to the Device, which refuses (NRT_FAILURE) a core any session holds;
// ReleaseCores releases only cores this session holds.
// Memory: the session's bytes are its device memory, its loaded programs (each charged
// driver::sim::LoadedProgramBytes of its image, the host memory the Device keeps for it) and
// its program uploads in flight (ReserveUpload); an allocation, upload or load that would take
// them above max_memory_bytes (0: no limit) is NRT_RESOURCE, with a message naming the
// session, what was asked, the bytes and the limit. An owner_core outside the instance is
// NRT_INVALID. Every charge is returned by Free, UnloadProgram, ReleaseUpload and Close.
// Programs: the session's program handles map to the Device's like memory handles do.
// Models: each program and allocation may name the client's model it belongs to
// (driver::ModelOwner, AllocationRequest::owner_model_id; 0: none). The session keeps those
// tags for Status only — memory per model, and Models(): the programs grouped by model id —
// and never checks them against each other (a client may tag memory with an id no program
// has; it is reported as it came).
// Recent executions: the last kRecentExecutions that reached the Device, with their timings.
// Execute: PrepareExecution checks that the session holds every core of the request (the Device
// only knows that *some* session holds it: NRT_FAILURE otherwise) and rewrites the request's
// program and memory handles into the Device's.
// Faults: the session's FaultPlan (HelloRequest.faults, docs/faults.md), if any. LoadProgram
// asks it before the Device (load_oom); the Execute RPC hands it to Device::Execute, which
// applies it (service_programs.cc). Its poisoned stacks and dead cores end with the session.
// Counters: completed executions by the status they returned (ExecutionStatuses).
// Shared-memory regions (shared_memory_listener.h): at most kMaxSharedRegions per session,
// numbered 1, 2, ...; another session's or an unknown id is NRT_INVALID_HANDLE. Close drops
// them; a transfer still using one keeps its mapping (shared_ptr) until it returns.
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
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "driver/execution_types.h"
#include "driver/faults/fault_plan.h"
#include "driver/remote/shared_region.h"
#include "tools/neurond/ring_server.h"

namespace trnsim::neurond {

struct SessionIdentity {
  uint64_t id = 0;           // public number (logs, Status RPC), never 0
  std::string key;           // secret credential (metadata trnsim-session-key)
  int64_t client_pid = 0;
  std::string client_command;
  std::string runtime_version;
  std::string peer;  // PeerIdentity of the connection that said Hello (peer_identity.h)
};

// Bytes one session holds in one category on one HBM stack for one model (0: none).
struct SessionMemory {
  int chip = 0;
  int hbm = 0;
  driver::MemoryCategory category = driver::MemoryCategory::kTensor;
  uint64_t bytes = 0;
  uint64_t model_id = 0;
};

// One model of the session: the owner of some of its loaded programs.
struct SessionModel {
  driver::ModelOwner owner;  // id (never 0), and the name and uuid of its first program
  // Instance-wide, ascending: the owner cores of the memory tagged with its id and the cores
  // its programs have executed on.
  std::vector<int> physical_cores;
  bool is_running = false;  // an execution using one of its programs is on the Device
};

// One completed execution (v1::ExecutionSample).
struct ExecutionSample {
  uint64_t finished_ms = 0;   // the daemon's uptime when it completed
  uint64_t wall_ns = 0;       // host time of its Execute RPC
  uint64_t simulated_ps = 0;  // its duration_ps; 0 when it failed
  bool ok = false;
  uint32_t status_code = 0;   // the NRT status it returned
};
// Samples kept per session (v1::RECENT_EXECUTIONS; service.cc checks they agree).
inline constexpr size_t kRecentExecutions = 1024;

// What one execution involves, for the counters: PrepareExecution fills it.
struct ExecutionScope {
  std::vector<int> physical_cores;    // instance-wide, in the order of the request
  std::vector<uint64_t> core_models;  // the model of each core's program (0: none), likewise
  std::vector<uint64_t> model_ids;    // of its programs: distinct, non-zero, ascending
  std::string model_name;             // the NEFF name of the first core's program
};

// What one session may make the daemon hold (README.md, "Memory a session can hold").
struct SessionLimits {
  // Device memory, loaded programs and uploads in flight together (--max-session-memory;
  // 0: no limit beyond the device's HBM).
  uint64_t memory_bytes = 0;
  // Loaded programs and uploads in flight alone, the daemon's host memory
  // (--max-session-program-memory; 0: no limit): bounded even when memory_bytes is 0.
  uint64_t program_bytes = uint64_t{8} << 30;
};

// Regions one session may register (each a mapping of the client's memfd, at most
// driver::remote::kMaxSharedRegionBytes of the daemon's address space).
inline constexpr size_t kMaxSharedRegions = 8;

class Session {
 public:
  Session(SessionIdentity identity, driver::Device* device, SessionLimits limits,
          std::unique_ptr<driver::faults::FaultPlan> faults = nullptr);
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
    uint64_t model_id = 0;  // the request's owner_model_id
  };
  StatusOr<DeviceMemory> Resolve(driver::MemoryHandle handle) const;
  std::vector<SessionMemory> MemoryUsage() const;
  uint64_t memory_bytes() const;

  // A LoadProgram stream in flight: ReserveUpload charges `bytes` (the image size its header
  // announced, which the daemon reserves to reassemble it) until ReleaseUpload(bytes), which
  // every exit of the stream calls (UploadCharge does). After Close, ReserveUpload is
  // NRT_FAILURE and ReleaseUpload does nothing (Close returned every charge).
  Status ReserveUpload(uint64_t bytes);
  void ReleaseUpload(uint64_t bytes);
  // Charges LoadedProgramBytes(image) while the Device decodes it and then until the program
  // is unloaded; NRT_RESOURCE (and nothing loaded) when that would pass the limit.
  StatusOr<driver::ProgramHandle> LoadProgram(const driver::ProgramImage& image,
                                              const driver::ModelOwner& owner);
  Status UnloadProgram(driver::ProgramHandle program);
  uint32_t loaded_programs() const;
  uint64_t program_bytes() const;  // charged for its loaded programs
  uint64_t upload_bytes() const;   // charged for its uploads in flight
  // Ascending model id; a model is listed while one of its programs is loaded.
  std::vector<SessionModel> Models() const;
  // Also fills `scope` (cleared first) when the request is accepted.
  Status PrepareExecution(std::vector<driver::CoreExecution>* cores, ExecutionScope* scope) const;

  // The session's fault plan; null: no fault injection.
  driver::faults::FaultPlan* faults() const { return faults_.get(); }
  // For driver::ExecutionRequestOptions::cancel: true once Close has begun.
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }
  // Around each Device::Execute: BeginExecution counts it as running (its models too) and
  // notes the cores its models ran on; EndExecution counts it as completed (failed unless
  // sample.ok) and keeps the sample.
  void BeginExecution(const ExecutionScope& scope);
  void EndExecution(const ExecutionScope& scope, const ExecutionSample& sample);
  // Oldest first, at most kRecentExecutions.
  std::vector<ExecutionSample> RecentExecutions() const;
  uint64_t executions() const;
  uint64_t failed_executions() const;
  // Completed executions by NRT status code (ExecutionSample::status_code), ascending code.
  std::map<uint32_t, uint64_t> ExecutionStatuses() const;
  uint32_t executions_running() const;

  // NRT_RESOURCE past kMaxSharedRegions, NRT_FAILURE after Close; else the region's id.
  StatusOr<uint64_t> AddSharedRegion(std::shared_ptr<driver::remote::SharedRegion> region);
  StatusOr<std::shared_ptr<driver::remote::SharedRegion>> SharedRegionById(uint64_t id) const;
  // Keeps `server` (serving one of this session's regions) until Close, which stops it after
  // releasing the session's lock (its thread may be waiting for that lock). NRT_FAILURE after
  // Close, the server then stopped at once.
  Status AddRingServer(std::unique_ptr<RingServer> server);

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
  // NRT_RESOURCE when charging `bytes` more for `what` would take the session above
  // limits_.memory_bytes or, for a program or an upload (`program`), above
  // limits_.program_bytes. Caller holds mutex_.
  Status CheckLimit(uint64_t bytes, const std::string& what, bool program) const;
  // Drops the per-model entries of `model_id` once none of its programs is loaded and none of
  // its executions runs. Caller holds mutex_.
  void ForgetModelIfGone(uint64_t model_id);

  const SessionIdentity identity_;
  driver::Device* const device_;
  const SessionLimits limits_;
  const std::chrono::steady_clock::time_point opened_at_;
  std::atomic<bool> cancel_{false};
  const std::unique_ptr<driver::faults::FaultPlan> faults_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable closed_cv_;
  bool closed_ = false;
  bool attached_ = false;
  std::vector<bool> cores_held_;  // instance-wide physical cores
  std::map<driver::MemoryHandle, DeviceMemory> memory_;
  driver::MemoryHandle next_handle_ = 1;
  uint64_t memory_bytes_ = 0;   // device memory
  uint64_t program_bytes_ = 0;  // loaded programs and the one being loaded (Program::bytes)
  uint64_t upload_bytes_ = 0;   // LoadProgram streams in flight
  // (chip, hbm, category, model id) -> bytes
  std::map<std::tuple<int, int, driver::MemoryCategory, uint64_t>, uint64_t> bytes_by_category_;
  struct Program {
    driver::ProgramHandle device_handle = driver::kInvalidProgramHandle;
    driver::ModelOwner owner;
    uint64_t bytes = 0;  // charged: driver::sim::LoadedProgramBytes of its image
  };
  std::map<driver::ProgramHandle, Program> programs_;  // by session handle
  driver::ProgramHandle next_program_ = 1;
  // Per model id: the cores its programs ran on, and its executions on the Device now. An
  // entry of a model none of whose programs is loaded any more goes once nothing runs.
  std::map<uint64_t, std::set<int>> model_cores_ran_;
  std::map<uint64_t, uint32_t> model_running_;
  uint64_t executions_ = 0;
  uint64_t failed_executions_ = 0;
  std::map<uint32_t, uint64_t> execution_statuses_;  // status code -> executions
  uint32_t executions_running_ = 0;
  std::deque<ExecutionSample> recent_;  // at most kRecentExecutions, oldest first
  std::map<uint64_t, std::shared_ptr<driver::remote::SharedRegion>> regions_;
  std::vector<std::unique_ptr<RingServer>> ring_servers_;
  uint64_t next_region_ = 1;
};

}  // namespace trnsim::neurond
