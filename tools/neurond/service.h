// NeurondService: the Neurond gRPC service (proto/neurond.proto) over one in-process Device.
// Each RPC authenticates the caller's session (metadata trnsim-session-key; missing or unknown:
// gRPC UNAUTHENTICATED), parses the request with driver/remote/convert.h, makes the Device
// call through the caller's Session (handles and cores are per session) and answers with an
// NrtStatus. Every refused request writes one log line naming the session and the RPC; no
// input, however malformed, crashes the daemon or touches another session's state.
//
// Hello checks the protocol version (a mismatch is NRT_INVALID naming both) and, when the
// daemon has a token, compares it in constant time: a wrong or missing token is gRPC
// UNAUTHENTICATED whose error details hold a serialised v1::NrtStatus {NRT_INVALID, message}.
// The session lives while its Attach stream does: when the stream breaks, or on Goodbye, the
// session ends and its cores and memory return to the Device (one log line per open and close);
// an execution it still has running is cancelled (Session::cancel_flag). A session whose Attach
// stream has not opened within ServiceOptions::attach_grace of its Hello is ended by a reaper
// thread, which looks every attach_grace / 4 (at most every second).
// With ServiceOptions::lnc set, AcquireCores takes whole logical cores only (first and count
// multiples of lnc), as a real instance configured for that LNC does.
//
// Shutdown: BeginShutdown() makes every Attach stream send KIND_SHUTTING_DOWN and end (so the
// server's Shutdown can drain); CloseAllSessions() then ends every session. An execution in
// flight runs to its end (or its host timeout) — the chip model cannot be stopped midway — so
// no memory is left half-written by the shutdown itself.
// Status counts, per physical core, the executions that completed on it, their simulated
// duration and FLOPs (their EngineStats.flops on it), and the host time an Execute involving it
// was in flight on the Device (busy_wall_ns, failed executions included: it is measured around
// each Device::Execute, outside any daemon-wide lock, so executions on distinct cores still run
// at once); per session, every execution that reached the Device and those that failed, the
// last kRecentExecutions of them (wall time of the Execute RPC, simulated time, daemon uptime
// at completion), its models (its programs grouped by the client's model id) and its memory per
// model (session.h).
//
// Collectives and point-to-point (README "Security model"): a session takes part in a
// communicator only as ranks that are its own (communicators.h; HostCollective and Execute with
// a CollectiveMembership bind them), within MaxWorldSize and kMaxHostAllGatherBytes; it opens
// point-to-point ends only on logical cores it holds (LogicalCoreSize physical cores each), and
// its comm and request ids are its own (PeerCall::owner). Refusals are NRT_INVALID, logged.
//
// Limits (README "Security model"): Hello is NRT_RESOURCE past max_sessions, or past
// max_sessions_per_peer sessions of the caller's PeerIdentity (peer_identity.h); a session's
// device memory, loaded programs and LoadProgram streams in flight count together against
// max_session_memory_bytes (session.h). Status shows another session's client pid and command
// line only with show_all_processes (Daemon::Start sets it on a unix: address).
//
// Thread safety: gRPC calls the RPCs from many threads at once; all state is locked.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "driver/device.h"
#include "proto/neurond.grpc.pb.h"
#include "simulator/core/trace.h"
#include "tools/neurond/chunk_buffer_pool.h"
#include "tools/neurond/cluster/cluster_fabric.h"
#include "tools/neurond/communicators.h"
#include "tools/neurond/session.h"
#include "tools/neurond/session_table.h"
#include "tools/neurond/shared_memory_listener.h"

namespace trnsim::neurond {

inline constexpr char kSessionKeyMetadata[] = "trnsim-session-key";

// The most bytes one host all-gather may return (world_size × each rank's input): the daemon
// holds that once per rank while it replies, so a whole trn2.48xlarge (128 ranks) stays within
// 2 GiB. A rank's input is also capped by the message size (one chunk and 64 KiB).
inline constexpr uint64_t kMaxHostAllGatherBytes = uint64_t{16} << 20;

// ServiceOptions::max_exec_time's default: one hour, six times AWS's default execution timeout.
inline constexpr std::chrono::milliseconds kDefaultMaxExecTime{3600 * 1000};

struct ServiceOptions {
  std::string token;  // empty: the daemon has none
  int lnc = 0;        // 0: any core range; 1 or 2: whole logical cores only
  int max_sessions = 128;
  // Sessions one client peer may hold at once (PeerIdentity: a host's address, a Unix socket
  // client's uid when known); Hello beyond it is NRT_RESOURCE.
  int max_sessions_per_peer = 64;
  // Threads of the gRPC server (grpc::ResourceQuota::SetMaxThreads, applied by Daemon::Start,
  // at least 2): every call in flight holds one, an Attach stream for its session's life; a call
  // that finds none free is refused by gRPC with RESOURCE_EXHAUSTED.
  int max_threads = 512;
  // Status shows other sessions' client pid and command line (a session always sees its own).
  // Daemon::Start sets it for a unix: address: a local client could see those processes in
  // /proc anyway, as neuron-ls shows every process on AWS. Otherwise (TCP, TLS) they are 0 and
  // empty unless this is set (--show-all-processes).
  bool show_all_processes = false;
  uint64_t max_session_memory_bytes = 0;  // 0: no limit beyond the device's
  // Loaded programs and uploads in flight of one session (0: no limit); SessionLimits.
  uint64_t max_session_program_bytes = SessionLimits{}.program_bytes;
  // A session whose Attach stream has not opened this long after Hello is ended (at least 1 ms).
  std::chrono::milliseconds attach_grace{10000};
  // Traces and runaway programs (README.md, "Security model"). What one Execute's recorded trace
  // may hold (ExecutionOptions.record_trace; simulator/core/trace.h): past it the trace is cut
  // and marked truncated.
  uint64_t max_trace_events = simulator::core::kDefaultTraceMaxEvents;
  uint64_t max_trace_bytes = simulator::core::kDefaultTraceMaxBytes;
  // Scheduler events one execution may run before NRT_TIMEOUT; 0: the chip model's default
  // (simulator::core::kDefaultMaxEvents).
  uint64_t max_exec_events = 0;
  // The longest host time one execution's simulation may run: a request with no timeout
  // (NEURON_RT_EXEC_TIMEOUT=0) or a longer one is stopped after this (NRT_TIMEOUT). 0: the
  // request's own. A collective's wait for other ranks keeps the request's timeout.
  std::chrono::milliseconds max_exec_time{kDefaultMaxExecTime};
};

class NeurondService final : public v1::Neurond::Service {
 public:
  NeurondService(driver::Device* device, ServiceOptions options);
  ~NeurondService() override;

  void BeginShutdown();
  void CloseAllSessions();

  grpc::Status Hello(grpc::ServerContext* context, const v1::HelloRequest* request,
                     v1::HelloResponse* response) override;
  grpc::Status Attach(grpc::ServerContext* context, const v1::AttachRequest* request,
                      grpc::ServerWriter<v1::SessionEvent>* writer) override;
  grpc::Status Goodbye(grpc::ServerContext* context, const v1::GoodbyeRequest* request,
                       v1::GoodbyeResponse* response) override;

  grpc::Status AcquireCores(grpc::ServerContext* context, const v1::CoreRange* request,
                            v1::AcquireCoresResponse* response) override;
  grpc::Status ReleaseCores(grpc::ServerContext* context, const v1::CoreRange* request,
                            v1::ReleaseCoresResponse* response) override;

  // Memory (service_memory.cc).
  grpc::Status Allocate(grpc::ServerContext* context, const v1::AllocationRequest* request,
                        v1::AllocateResponse* response) override;
  grpc::Status Free(grpc::ServerContext* context, const v1::MemoryRef* request,
                    v1::FreeResponse* response) override;
  grpc::Status Describe(grpc::ServerContext* context, const v1::MemoryRef* request,
                        v1::DescribeResponse* response) override;
  // Write is served as raw messages too (the constructor installs RawWrite in place of the
  // generated handler): each chunk is copied from gRPC's buffers into a pooled chunk buffer
  // (chunk_buffer_pool.h) and written to the Device from there.
  grpc::Status RawWrite(grpc::ServerContext* context, grpc::ServerReader<grpc::ByteBuffer>* reader,
                        v1::WriteResponse* response);
  // Read is served as raw messages (the constructor installs RawRead in place of the generated
  // handler): each chunk is read from the Device straight into the buffer gRPC sends.
  grpc::Status RawRead(grpc::ServerContext* context,
                       grpc::ServerSplitStreamer<v1::ReadRequest, grpc::ByteBuffer>* stream);
  // The shared-memory data plane (service_memory.cc): region -> device memory and back.
  grpc::Status WriteShared(grpc::ServerContext* context, const v1::SharedTransferRequest* request,
                           v1::SharedTransferResponse* response) override;
  grpc::Status ReadShared(grpc::ServerContext* context, const v1::SharedTransferRequest* request,
                          v1::SharedTransferResponse* response) override;
  // The SharedMemoryListener's registrar: the session of request.session_key (unknown:
  // NRT_INVALID), the peer's uid when the session's Hello came from a known uid (PeerIdentity
  // "uid:U"; another uid: NRT_INVALID), then the memfd mapped (SharedRegion::Map) and added to
  // the session (Session::AddSharedRegion), and when request.ring asks for it and the region
  // holds one (kMinRingRegionBytes), its request ring served by a RingServer the session owns
  // (response.ring). Logged either way. With request.map_memory, after the same session and uid
  // checks: the session's memory request.handle shared by the Device (Device::ShareMemory), its
  // memfd in the answer (MapMemory).
  SharedMemoryListener::Answer RegisterSharedRegion(const v1::SharedRegionRequest& request,
                                                    driver::remote::UniqueFd fd,
                                                    const PeerCredentials& peer);
  // Hello offers the data plane from now on (Daemon::Start, once the listener is up).
  void EnableSharedMemory() { shared_memory_ = true; }
  // Multi-instance jobs (docs/cluster.md): ranks are bound with the fabric's bounds and it is
  // told of each (ClusterFabric::BindRank). Set once, before serving.
  void SetCluster(cluster::ClusterFabric* fabric) { cluster_ = fabric; }
  const std::string& token() const { return options_.token; }
  grpc::Status Copy(grpc::ServerContext* context, const v1::CopyRequest* request,
                    v1::CopyResponse* response) override;
  grpc::Status Fill(grpc::ServerContext* context, const v1::FillRequest* request,
                    v1::FillResponse* response) override;
  grpc::Status GetHbmUsage(grpc::ServerContext* context, const v1::HbmRef* request,
                           v1::GetHbmUsageResponse* response) override;

  // Programs and execution (service_programs.cc).
  grpc::Status LoadProgram(grpc::ServerContext* context,
                           grpc::ServerReader<v1::LoadProgramRequest>* reader,
                           v1::LoadProgramResponse* response) override;
  grpc::Status UnloadProgram(grpc::ServerContext* context, const v1::ProgramRef* request,
                             v1::UnloadProgramResponse* response) override;
  grpc::Status Execute(grpc::ServerContext* context, const v1::ExecuteRequest* request,
                       v1::ExecuteResponse* response) override;
  // An execution posted on a request ring (RingOp kExecute, ring_server.h): `bytes` parsed as an
  // ExecuteRequest (NRT_INVALID when it is not one, or records a trace: those take the RPC),
  // run as Execute runs it, and its ExecuteResponse serialised into `reply` (NRT_RESOURCE above
  // reply_room). Returns the reply's bytes.
  StatusOr<uint64_t> RingExecute(Session& session, const std::string& bytes, uint8_t* reply,
                                 uint64_t reply_room);
  grpc::Status HostCollective(grpc::ServerContext* context,
                              const v1::HostCollectiveRequest* request,
                              v1::HostCollectiveResponse* response) override;
  // service_peers.cc
  grpc::Status PointToPoint(grpc::ServerContext* context,
                            const v1::PointToPointRequest* request,
                            v1::PointToPointResponse* response) override;

  grpc::Status Status(grpc::ServerContext* context, const v1::StatusRequest* request,
                      v1::StatusResponse* response) override;

 private:
  // The caller's session, or nullptr with `denied` set to UNAUTHENTICATED (and logged).
  std::shared_ptr<Session> Authenticate(grpc::ServerContext* context, const char* rpc,
                                        grpc::Status* denied);
  // WriteShared (to_device) and ReadShared: one range of a registered region and one of device
  // memory, both checked before any byte moves.
  grpc::Status SharedTransfer(grpc::ServerContext* context, const char* rpc, bool to_device,
                              const v1::SharedTransferRequest& request,
                              v1::SharedTransferResponse* response);
  // A RingServer's request (ring_server.h) of `session`: the handle resolved and the range
  // checked against the allocation before any byte moves between `data` and device memory.
  trnsim::Status RingTransfer(Session& session, driver::remote::RingOp op, uint64_t handle,
                              uint64_t offset, uint64_t size, uint8_t* data);
  // Writes `status` into `out`; a failure is logged as one line naming the session and RPC.
  void Reply(const Session& session, const char* rpc, const trnsim::Status& status,
             v1::NrtStatus* out);
  // Execute's work once the session is known, for the RPC and the ring alike: the request's
  // status and result (or trace) in `response`.
  void RunExecution(Session& session, const v1::ExecuteRequest& request,
                    v1::ExecuteResponse* response);
  // Ends the session (idempotent), then takes it out of the table, and logs one line with
  // `reason`.
  void EndSession(const std::shared_ptr<Session>& session, const char* reason);
  // The reaper thread: ends sessions that did not attach in time, until stop_reaper_.
  void ReapUnattached();
  // Binds `rank` of `communicator` to the session (communicators.h); when the session ended
  // meanwhile, forgets it again so no binding outlives its session.
  trnsim::Status BindRank(const Session& session, const std::string& communicator, uint32_t rank,
                          uint32_t world_size);
  // Physical cores per logical core for point-to-point core ids: --lnc, else the instance's
  // default LNC (the runtime's when NEURON_LOGICAL_NC_CONFIG is unset).
  int LogicalCoreSize() const;
  // Closes, whatever is in flight, the point-to-point ends of every logical core the session
  // opened one on (service_peers.cc), so its peers' requests fail at once instead of timing
  // out. Called when the session ends.
  void ClosePeers(uint64_t session_id);
  // Counts a fault a session's plan injected now in chip_errors_ (service_programs.cc): the
  // plans' injection observer.
  void CountInjectedFault(const driver::faults::FaultOutcome& fault);
  // Host time since the daemon started.
  std::chrono::nanoseconds Uptime() const {
    return std::chrono::steady_clock::now() - started_at_;
  }

  driver::Device* const device_;
  const ServiceOptions options_;
  const std::chrono::steady_clock::time_point started_at_;
  SessionTable sessions_;
  std::atomic<bool> shutting_down_{false};
  std::atomic<bool> shared_memory_{false};
  cluster::ClusterFabric* cluster_ = nullptr;  // SetCluster; null: single-instance jobs only
  ChunkBufferPool write_buffers_{4};  // Write streams' chunk buffers (a few MiB kept at most)

  std::mutex counters_mutex_;  // guards the counters below
  uint64_t executions_ = 0;
  std::vector<uint64_t> core_executions_;  // per instance-wide physical core
  std::vector<uint64_t> core_busy_ps_;
  std::vector<uint64_t> core_busy_wall_ns_;
  std::vector<uint64_t> core_flops_;
  // Per chip: the memory errors injected into its sessions' executions (docs/faults.md).
  struct ChipErrors {
    uint64_t mem_ecc_uncorrected = 0;
    uint64_t mem_ecc_repairable_uncorrected = 0;
    uint64_t sram_ecc_uncorrected = 0;
  };
  std::vector<ChipErrors> chip_errors_;

  Communicators communicators_;

  std::mutex peers_mutex_;  // guards peer_cores_
  // Session id -> the logical cores it opened point-to-point ends on.
  std::map<uint64_t, std::set<int>> peer_cores_;

  std::mutex reaper_mutex_;  // guards stop_reaper_
  std::condition_variable reaper_cv_;
  bool stop_reaper_ = false;
  std::thread reaper_;  // last: started once everything above exists
};

}  // namespace trnsim::neurond
