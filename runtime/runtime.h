// Runtime: the NRT semantics behind libnrt's C API, one per process (Runtime::Get()).
//
// Lifecycle (AWS's, see docs/decisions.md): START --Init--> INIT --Close--> CLOSED --Init-->
// INIT ... Calls that need the runtime return NRT_UNINITIALIZED before the first Init and
// NRT_CLOSED after Close; Init when already INIT is a no-op. In a child forked from an
// initialised process every such call returns NRT_FAILURE (the child shares no device).
//
// Handles: nrt_tensor_t*, nrt_tensor_set_t* and nrt_model_t* are the addresses of runtime-owned
// Tensor, TensorSet and model::Model objects. Every call checks the handle against the live
// set, so a freed or foreign handle is NRT_INVALID_HANDLE rather than a crash (unless its
// address has been reused). Close unloads every model and frees every tensor and set the
// process still holds.
//
// Models: LoadModel places a NEFF on a vnc (runtime/model/model.h has the load rules). The NEFF
// is parsed outside any lock; placing it holds the vnc's claim (core_claims.h), so it waits for
// an execution on that vnc only.
//
// Thread safety: every method may be called from any thread. The runtime's lock guards only
// the lifecycle: Init and Close take it uniquely, every other call shared and briefly. The
// tensor table (tensors, sets, nrta_cc contexts) has its own lock, the model registry its own.
// An execution holds no lock for its run: it pins what it uses — the runtime (OperationGate),
// the model and the bound tensors (reference counts) — so nrt_tensor_free, nrt_load and
// nrt_unload return while another thread's execution runs (say, waiting in a collective); a
// freed tensor's or an unloaded model's memory goes at the last unpin. nrt_close waits for
// running executions and host collectives to finish.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/env.h"
#include "driver/device.h"
#include "runtime/async/execution_unit_queues.h"
#include "runtime/async/output_completions.h"
#include "runtime/async/tensor_use_tracker.h"
#include "runtime/collectives/host_cc_context.h"
#include "runtime/collectives/host_collectives.h"
#include "runtime/collectives/send_recv.h"
#include "runtime/config.h"
#include "runtime/core_claims.h"
#include "runtime/core_map.h"
#include "runtime/debug/debug_streams.h"
#include "runtime/execution/executor.h"
#include "runtime/model/model.h"
#include "runtime/model/model_registry.h"
#include "runtime/neff/neff.h"
#include "runtime/neff/neff_io.h"
#include "runtime/operation_gate.h"
#include "runtime/profiling/inspect_config.h"
#include "runtime/profiling/inspect_env.h"
#include "runtime/profiling/inspect_session.h"
#include "runtime/profiling/runtime_trace.h"
#include "runtime/profiling/sys_trace_config.h"
#include "runtime/profiling/sys_trace_recorder.h"
#include "runtime/tensor.h"
#include "runtime/tensor_set.h"

namespace trnsim::runtime {

struct InstanceInfo {
  uint32_t family = 0;  // NRT_INSTANCE_*
  uint32_t size = 0;    // NRT_INSTANCE_SIZE_*
  std::string arch_name;
  std::string device_revision;
};

struct VncMemoryStats {
  uint64_t bytes_used = 0;   // device memory this process holds on the vnc
  uint64_t bytes_limit = 0;  // capacity of the vnc's HBM stack
};

struct ModelInfo {
  int vnc = 0;                  // process-relative logical core the model is loaded on
  uint32_t vnc_count = 1;       // logical cores it occupies
  uint32_t instance_count = 1;  // staged copies (AWS: at least 1)
  uint64_t model_id = 0;        // the process's id of the model (model::Model::id), never 0
};

struct TensorBatchOp {
  uint64_t offset = 0;
  uint64_t size = 0;
  void* buffer = nullptr;
};

class Runtime {
 public:
  static Runtime& Get();

  // --- Lifecycle -----------------------------------------------------------------------
  Status Init(uint32_t framework, const std::string& framework_version,
              const std::string& fal_version);
  void Close();
  // OK when initialised; else NRT_UNINITIALIZED, NRT_CLOSED or NRT_FAILURE (forked child).
  Status CheckInitialized() const;

  // --- Instance queries (work before Init from a fresh read of the environment) -----------
  StatusOr<uint32_t> TotalVncCount() const;
  StatusOr<uint32_t> VisibleVncCount() const;
  StatusOr<InstanceInfo> GetInstanceInfo() const;
  StatusOr<uint32_t> HostDeviceId(int neuron_device) const;
  // Routing id of each host device, indexed by host device id.
  StatusOr<std::vector<uint32_t>> RoutingIdMap() const;
  // Physical cores per logical core.
  StatusOr<uint32_t> LogicalCoreSize() const;

  // --- Tensors ----------------------------------------------------------------------------
  StatusOr<Tensor*> AllocateTensor(Placement placement, int vnc, uint64_t size,
                                   const std::string& name);
  StatusOr<Tensor*> AllocateEmptyTensor(const std::string& name);
  StatusOr<Tensor*> AllocateSlice(const Tensor* source, uint64_t offset, uint64_t size,
                                  const std::string& name);
  Status FreeTensor(Tensor* tensor);
  Status ReadTensor(const Tensor* tensor, void* dst, uint64_t offset, uint64_t size);
  Status WriteTensor(Tensor* tensor, const void* src, uint64_t offset, uint64_t size);
  Status CopyTensor(const Tensor* src, uint64_t src_offset, Tensor* dst, uint64_t dst_offset,
                    uint64_t size);
  Status MemsetTensor(Tensor* tensor, uint64_t offset, uint8_t value, uint64_t size);
  Status AttachBuffer(Tensor* tensor, void* buffer, uint64_t size);
  // Every batch is validated before any byte moves.
  Status ReadTensorBatch(
      const std::vector<std::pair<const Tensor*, std::vector<TensorBatchOp>>>& batches);
  Status WriteTensorBatch(
      const std::vector<std::pair<Tensor*, std::vector<TensorBatchOp>>>& batches);
  StatusOr<uint64_t> TensorSize(const Tensor* tensor);
  StatusOr<void*> TensorHostAddress(const Tensor* tensor);
  StatusOr<DeviceAllocationInfo> TensorDeviceAllocation(const Tensor* tensor);
  StatusOr<VncMemoryStats> GetVncMemoryStats(int vnc);

  // --- Tensor sets ------------------------------------------------------------------------
  StatusOr<TensorSet*> AllocateTensorSet();
  Status DestroyTensorSet(TensorSet* set);
  Status AddToTensorSet(TensorSet* set, const std::string& name, Tensor* tensor);
  StatusOr<Tensor*> GetFromTensorSet(TensorSet* set, const std::string& name);

  // --- Models -------------------------------------------------------------------------------
  // `vnc`: a visible process-relative core, or -1 for the least loaded one (ModelRegistry).
  // `vnc_count` (deprecated): -1 or 1. The bytes form parses with neff::ReadNeff, checking the
  // payload hash when NEURON_RT_VALIDATE_HASH is true. Errors: NRT_INVALID (0 bytes, malformed
  // NEFF, LNC mismatch, bad vnc or vnc_count, undecodable trnsim instruction stream),
  // NRT_UNSUPPORTED_NEFF_VERSION, NRT_RESOURCE (device memory; nothing stays allocated); a
  // NEFF holding collective instructions is NRT_INVALID (LoadCollectiveModel loads those).
  StatusOr<model::Model*> LoadModel(std::span<const uint8_t> neff_bytes, int vnc, int vnc_count);
  StatusOr<model::Model*> LoadModel(neff::Neff neff, int vnc, int vnc_count);
  // nrt_load_collectives: LoadModel, the model then being rank `rank` of `world_size` in the
  // communicator NEURON_RT_ROOT_COMM_ID (NRT_INVALID when unset or the rank is outside the
  // world). Its executions meet the other ranks' in the device's collective hub.
  StatusOr<model::Model*> LoadCollectiveModel(std::span<const uint8_t> neff_bytes, int vnc,
                                              int vnc_count, uint32_t rank, uint32_t world_size);
  // The handle is dead afterwards (NRT_INVALID_HANDLE). The model's device memory goes now, or,
  // when an execution of it is running, when that execution ends (it completes normally: AWS
  // leaves unloading a running model undefined; trnsim neither fails nor crashes it).
  Status UnloadModel(model::Model* model);
  StatusOr<ModelInfo> GetModelInfo(const model::Model* model);
  // The model's inputs then outputs, as the NEFF declares them.
  StatusOr<std::vector<neff::TensorDecl>> GetModelTensors(const model::Model* model);
  // What nrt_execute can check before running: the model and both tensor-set handles, and that
  // the model is executable (NRT_INVALID with model::kForeignModelMessage when foreign).
  Status CheckExecution(const model::Model* model, const TensorSet* inputs,
                        const TensorSet* outputs);

  // --- Execution (runtime/execution/executor.h) ----------------------------------------------
  // Runs `model` `repeat` (>= 1) times on its vnc, binding the NEFF's declared inputs and
  // outputs by name from `inputs` and `outputs` (execution/io_binding.h: a missing tensor or a
  // size mismatch is NRT_INVALID before anything runs; extra names are ignored). Errors: those
  // of CheckExecution; NRT_TIMEOUT (deadlock, or longer than NEURON_RT_EXEC_TIMEOUT) and
  // NRT_INVALID (an execution error), prefixed with the model's name and vnc. The run pins the
  // model and the bound tensors (freeing or unloading them meanwhile returns at once; their
  // memory goes when the run ends) and holds no lock but its core's claim: executions on one
  // logical core are serialised, on distinct ones they run at once.
  Status Execute(const model::Model* model, const TensorSet* inputs, const TensorSet* outputs,
                 int repeat);
  // The model's last successful execution and its count; NRT_INVALID when it has not executed
  // since it was loaded.
  StatusOr<execution::ExecutionRecord> GetLastExecution(const model::Model* model);

  // --- Explicit async API (nrta_*, async/execution_unit_queues.h) -----------------------------
  // Queues `request` on queue `queue` of XU `xu` (an nrta_xu_t value) of process-relative
  // logical core `lnc` and returns its sequence id. The request's `run` executes on the queue's
  // worker thread and typically calls back into this Runtime, which validates its handles
  // again then. Errors: the lifecycle's; NRT_INVALID for a bad address; then the queues'
  // (NRT_QUEUE_FULL, NRT_EXEC_UNIT_UNRECOVERABLE).
  StatusOr<uint64_t> ScheduleAsync(int64_t lnc, int64_t xu, int64_t queue,
                                   async::AsyncRequest request);
  StatusOr<bool> AsyncIsCompleted(uint64_t sequence_id);
  StatusOr<uint64_t> AsyncLastCompleted(int64_t lnc, int64_t xu, int64_t queue);
  Status AsyncWatchRequest(uint64_t sequence_id, int fd);
  Status AsyncWatchQueue(int64_t lnc, int64_t xu, int64_t queue, int fd);

  // --- Implicit async nrt_execute (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS) ---------------
  // The in-flight cap per logical core; 0 when nrt_execute blocks (the default).
  StatusOr<uint32_t> ImplicitAsyncDepth() const;
  // Validates as Execute does (so a bad binding fails here, synchronously), marks the bound
  // tensors in use (reads and writes of them wait until the execution completes), queues the
  // execution on the model's core and returns its job id (the core's running count of queued
  // executions, from 1). `done` receives the job id and the execution's status on the queue's
  // thread. NRT_QUEUE_FULL when the core already has the cap in flight.
  StatusOr<uint64_t> ExecuteAsync(const model::Model* model, const TensorSet* inputs,
                                  const TensorSet* outputs, int repeat,
                                  std::function<void(uint64_t job, const Status&)> done);
  // Blocks until every execution queued on process-relative core `vnc` has completed.
  Status DrainAsync(int vnc);

  // --- Output completion (nrt_tensor_check/reset_output_completion) --------------------------
  // Every execution request adds 1 to the completion count of each tensor bound to one of its
  // model's outputs when it finishes, whatever its status (async/output_completions.h).
  // Not gated on the lifecycle (AWS's are not); the handle must be live (NRT_INVALID_HANDLE).
  // Wait: `timeout_us` 0 checks once, < 0 waits for ever; NRT_TIMEOUT when it runs out,
  // NRT_INVALID_HANDLE when the tensor is freed (or nrt_close) meanwhile.
  Status WaitOutputCompletion(const Tensor* tensor, int64_t timeout_us, uint64_t expected);
  Status ResetOutputCompletion(Tensor* tensor);

  // --- Host-driven collectives (collectives/host_collectives.h) -----------------------------
  // `vnc` must be checked by the caller (a visible core). They block until every rank has
  // made the same call, holding no lock (nrt_close waits for them: OperationGate).
  Status BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size);
  Status Barrier(int vnc, uint32_t rank, uint32_t world_size);
  StatusOr<std::vector<uint8_t>> AllGather(int vnc, uint32_t rank, uint32_t world_size,
                                           std::span<const uint8_t> input);

  // --- Host-driven collectives on the async queues (nrta_cc_*, collectives/host_cc_context.h) --
  // Validates `context` — `vnc` checked by the caller; live tensors (NRT_INVALID_HANDLE); the
  // group against the vnc's global communicator and the sizes (NRT_INVALID) — and returns the
  // runtime's context equal to it, creating it the first time. Contexts live until Close.
  StatusOr<const collectives::HostCcContext*> PrepareHostCollective(
      collectives::HostCcContext context);
  // The core of a context this runtime prepared; NRT_INVALID_HANDLE for any other pointer.
  StatusOr<int> HostCollectiveCore(const collectives::HostCcContext* context);
  // Performs it: reads the inputs, meets the group's other members (blocking until all have
  // run their n-th collective of this group, as nrt_barrier does), writes the outputs.
  Status RunHostCollective(const collectives::HostCcContext* context);

  // --- Async send/recv (collectives/send_recv.h) --------------------------------------------
  // `lnc` is absolute and must be checked by the caller (one of this process's cores). They
  // never block. PostSendRecv takes bytes [offset, offset+length)
  // of a device tensor (NRT_INVALID_HANDLE for a dead tensor; NRT_INVALID for a host tensor or
  // a range outside it).
  Status SendRecvInit(int lnc);
  Status SendRecvClose(int lnc);
  StatusOr<collectives::SendRecv::Comm*> SendRecvConnect(bool send, const std::string& peer_ip,
                                                         int peer_lnc, int lnc);
  StatusOr<bool> SendRecvTestComm(collectives::SendRecv::Comm* comm);
  StatusOr<collectives::SendRecv::Request*> SendRecvPost(const Tensor* tensor, uint64_t offset,
                                                         uint64_t length,
                                                         collectives::SendRecv::Comm* comm);
  StatusOr<collectives::SendRecv::RequestState> SendRecvTestRequest(
      collectives::SendRecv::Request* request);
  Status SendRecvFlush(int lnc);

  // --- Device profiles (docs/profiling.md) -------------------------------------------------
  // nrt_profile_start: capture every execution of `model` into `filename` (truncated now) until
  // StopProfile(filename) writes it. NRT_INVALID_HANDLE for an unknown model, NRT_INVALID for
  // a model or file already being profiled or a file that cannot be created. Through neurond
  // the daemon records each execution's trace and returns it with the result.
  Status StartProfile(const model::Model* model, const std::string& filename);
  // nrt_profile_stop: NRT_INVALID when no profile was started into `filename` or it cannot be
  // written.
  Status StopProfile(const std::string& filename);

  // --- Profile sessions (nrt_profile_session_*, profiling/core_profile_sessions.h) ---------
  // `vnc` must be checked by the caller (a visible core). Errors: the lifecycle's, then the
  // sessions' (NRT_INVALID).
  Status StartProfileSession(int vnc);
  StatusOr<uint64_t> StopProfileSession(int vnc);
  Status SerializeProfileSession(uint64_t session_id, const std::string& filename);
  Status DropProfileSession(uint64_t session_id);
  Status DropAllProfileSessions(int vnc);

  // --- Continuous profiling (nrt_profile_continuous_*, profiling/continuous_profiler.h) -----
  // NRT_FAILURE while an inspect session captures device profiles or implicit async execution
  // is on (AWS's documented refusal); NRT_INVALID when already running.
  Status StartContinuousProfiling();
  // Writes the latest execution of `vnc` (checked by the caller) into `output_dir`.
  Status SaveContinuousProfile(int vnc, const std::string& output_dir);
  Status StopContinuousProfiling();

  // --- Inspect sessions (nrt_inspect_*, profiling/inspect_session.h) -----------------------
  // One session at a time. BeginInspect() reads the NEURON_RT_INSPECT_* variables now (the
  // call itself enables capture: NEURON_RT_INSPECT_ENABLE need not be set); while the session
  // NEURON_RT_INSPECT_ENABLE started at Init runs it is a no-op (NRT_SUCCESS): that session is
  // already the one the variables describe. BeginInspect(config) ignores the variables (null:
  // nrt_inspect_config_set_defaults). Errors: NRT_INVALID for a malformed variable, a session
  // already running (any other case), or a session that wants the system trace while
  // nrt_sys_trace_start or nrt_trace_start captures it; NRT_FAILURE for device profiles while
  // continuous profiling runs. StopInspect writes the session (ntrace.json) and ends it;
  // NRT_INVALID when none runs. Close ends a running session the same way.
  Status BeginInspect();
  Status BeginInspect(const profiling::InspectConfig* config);
  Status StopInspect();
  // <output_dir>/<instance id>_pid_<pid>: where this process's inspect sessions go (works
  // before Init, from a fresh read of the environment).
  StatusOr<std::string> InspectInstanceDir(const std::string& output_dir) const;

  // --- nrt_trace_* (profiling/runtime_trace.h) ---------------------------------------------
  // Captures the system trace of every visible core and event type, and with `trace_mem` the
  // tensor allocations and frees, until StopTrace writes it to `filename` (created or
  // truncated). NRT_INVALID when a trace already runs, or the system trace is captured by
  // nrt_sys_trace_start or an inspect session; StopTrace: NRT_INVALID when none runs or the
  // name is empty, NRT_FAILURE when the file cannot be written (the trace has ended either
  // way). Close discards a running trace.
  Status StartTrace(bool trace_mem);
  Status StopTrace(const std::string& filename);

  // --- System trace (nrt_sys_trace_*, runtime/profiling/sys_trace_recorder.h) ---------------
  // Rings for the config's enabled cores among this process's visible ones. NRT_INVALID when a
  // capture is already running. nrt_close stops a running capture (its events are lost).
  // The runtime has one recorder: while an inspect session (ntrace.json) or nrt_trace_start
  // captures with it, Start and Stop are NRT_INVALID saying so, and Fetch returns no events.
  Status StartSysTrace(const profiling::SysTraceConfig& config);
  // NRT_INVALID when no capture is running.
  Status StopSysTrace();
  // Removes the selected events from the rings and returns them as JSON (sys_trace_json.h);
  // no capture running: a document with no events.
  StatusOr<std::string> FetchSysTrace(const profiling::SysTraceFetchOptions& options);

  // --- Debug streams (nrt_debug_client_*, debug/debug_streams.h, runtime_debug.cc) ----------
  // Each needs an initialised runtime (the lifecycle statuses otherwise). DebugConnect: `vnc`
  // a visible process-relative core (NRT_INVALID otherwise, and for a second client or while
  // NEURON_RT_DEBUG_OUTPUT_DIR's built-in consumer runs). DebugClose and DebugRead:
  // NRT_INVALID for a descriptor DebugConnect did not return (or already closed); DebugRead:
  // NRT_QUEUE_EMPTY when nothing is queued. nrt_close closes every descriptor.
  StatusOr<int> DebugConnect(int vnc);
  Status DebugClose(int fd);
  StatusOr<debug::DebugEvent> DebugRead(int fd);

  // --- For layers above (models, tools) ----------------------------------------------------
  // Valid only while initialised.
  driver::Device* device() { return device_.get(); }
  const RuntimeConfig& config() const { return config_; }

 private:
  enum class State { kStart, kInit, kClosed, kChild };

  Runtime();
  static void OnForkChild();  // pthread_atfork child handler
  Status CheckInitializedLocked() const;
  // Enters the OperationGate if initialised (the lifecycle's statuses otherwise).
  StatusOr<OperationGate::Ticket> Enter();
  // Both: objects_mutex_ held (any mode).
  Status CheckTensorLocked(const Tensor* tensor) const;
  Status CheckSetLocked(const TensorSet* set) const;
  Tensor* Adopt(std::unique_ptr<Tensor> tensor);
  // The configuration in force: the frozen one once initialised, else a fresh parse.
  StatusOr<RuntimeConfig> CurrentConfig() const;
  // LoadModel's parse, then LoadParsed. `rank`: the model is a collective rank
  // (LoadCollectiveModel); unset, a NEFF with collective instructions is NRT_INVALID.
  StatusOr<model::Model*> LoadBytes(std::span<const uint8_t> neff_bytes, int vnc, int vnc_count,
                                    std::optional<driver::CollectiveMembership> rank);
  // What an execution holds from its binding to its end instead of a lock (members are
  // released in reverse order: the ticket last).
  struct ExecutionPins {
    OperationGate::Ticket ticket;
    std::shared_ptr<const model::Model> model;
    execution::IoBinding binding;
    std::vector<std::shared_ptr<Tensor>> tensors;  // each bound tensor once
    std::vector<const void*> executing;            // marked in executing_ (the caller unmarks)
  };
  // What Execute checks before running (the lifecycle, the handles, the executability, the
  // repeat count), then the binding of the model's declared tensors from the sets, whose
  // errors name the model and its vnc; then pins the model and the tensors and marks them in
  // executing_. Takes and releases the locks itself.
  StatusOr<ExecutionPins> PinExecution(const model::Model* model, const TensorSet* inputs,
                                       const TensorSet* outputs, int repeat);
  // Adds 1 to the output completion count of each output tensor of `pins` still live.
  void CompleteOutputs(const ExecutionPins& pins);
  // Implicit async mode: waits until no queued execution uses `tensor` (at once otherwise).
  void WaitUntilTensorUnused(const Tensor* tensor);
  // Shuts both sets of async queues down (every queued request completes first). Called by
  // Close before it takes mutex_ uniquely, since queued requests take it shared.
  void ShutDownAsync();
  // LoadModel after parsing; `started_ns` is when the load began (for the system trace).
  StatusOr<model::Model*> LoadParsed(neff::Neff neff, int vnc, int vnc_count, uint64_t started_ns,
                                     std::optional<driver::CollectiveMembership> rank);

  // The lifecycle lock: guards state_ and the subsystem pointers below, which Init sets and
  // Close resets holding it uniquely. Every other call holds it shared, briefly: a long call
  // (execution, host collective) enters gate_ and releases it, and Close waits for gate_.
  mutable std::shared_mutex mutex_;
  OperationGate gate_;
  // Guards tensors_, tensor_sets_, the sets' contents and cc_contexts_; held for the length of
  // a data transfer (so attach and free cannot pull a tensor's storage from under it), never
  // across an execution (lock order: mutex_, then this; held briefly).
  mutable std::shared_mutex objects_mutex_;
  State state_ = State::kStart;
  RuntimeConfig config_;
  std::unique_ptr<CoreMap> core_map_;
  std::unique_ptr<driver::Device> device_;
  std::unique_ptr<std::atomic<uint64_t>[]> vnc_bytes_used_;
  // The live tensors: the table holds one reference, executions pin more (a freed tensor goes
  // at the last one).
  std::unordered_map<const Tensor*, std::shared_ptr<Tensor>> tensors_;
  std::unordered_set<TensorSet*> tensor_sets_;
  std::unique_ptr<CoreClaims> core_claims_;  // outlives models_ and executor_
  std::unique_ptr<model::ModelRegistry> models_;
  std::unique_ptr<execution::Executor> executor_;  // created at Init, destroyed at Close
  std::unique_ptr<collectives::HostCollectives> host_collectives_;  // likewise
  std::unique_ptr<collectives::SendRecv> send_recv_;  // likewise
  // The debug streams; created at Init, destroyed (descriptors closed) at Close after the
  // executor, which delivers to them. Own locking.
  std::unique_ptr<debug::DebugStreams> debug_streams_;
  // nrta_cc_prepare's contexts (guarded by objects_mutex_); freed at Close.
  std::vector<std::unique_ptr<collectives::HostCcContext>> cc_contexts_;
  // The nrta_* queues, and (implicit async mode only) nrt_execute's: created at Init, shut down
  // then destroyed at Close (shared: ShutDownAsync works on them outside mutex_).
  std::shared_ptr<async::ExecutionUnitQueues> async_queues_;
  std::shared_ptr<async::ExecutionUnitQueues> implicit_queues_;
  // Implicit async: the in-flight cap (0: off), readable without mutex_; the tensors in use.
  std::atomic<uint32_t> implicit_async_depth_{0};
  async::TensorUseTracker tensor_use_;
  // The tensors running executions use (whatever the mode): AttachBuffer waits for them.
  async::TensorUseTracker executing_;
  async::OutputCompletions output_completions_;  // its own lock; waited on outside mutex_
  neff::ReadOptions read_options_;  // validate_hash from NEURON_RT_VALIDATE_HASH at Init
  // Not guarded by mutex_ (it has its own): the executor records into it during runs.
  profiling::SysTraceRecorder sys_trace_;

  // Who captures with sys_trace_ (at most one at a time).
  enum class SysTraceOwner { kNone, kApi, kInspect, kTrace };
  SysTraceOwner SysTraceOwnerLocked() const;  // profiling_mutex_ held
  // NRT_INVALID naming the owner unless sys_trace_ is free; profiling_mutex_ held.
  Status CheckSysTraceFreeLocked() const;
  // Starts `settings`'s session (a fresh session directory; the executor's device capture);
  // mutex_ (any mode) and profiling_mutex_ held, runtime initialised.
  void BeginInspectLocked(profiling::InspectSettings settings, bool from_environment);
  // Writes and ends the running inspect session, if any; the same locks held.
  void EndInspectLocked();
  // BeginInspect's checks and start; the same locks held.
  Status BeginInspectChecked(profiling::InspectSettings settings);
  // Records a tensor allocation or free for nrt_trace_start(trace_mem).
  void TraceTensor(bool allocate, const Tensor& tensor);

  // Guards inspect_, the directory names below and the transitions of runtime_trace_ and of
  // sys_trace_'s owner (lock order: mutex_, then this).
  mutable std::mutex profiling_mutex_;
  profiling::InspectSession inspect_;
  std::string last_inspect_dir_;  // the last session's directory without a suffix
  int inspect_dir_repeats_ = 0;   // sessions that began in that same second
  profiling::RuntimeTrace runtime_trace_;
};

}  // namespace trnsim::runtime
