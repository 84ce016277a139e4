// RemoteDevice: the remote back end's Device (remote_device.h), private to driver/remote. Each
// call is one RPC to neurond, or for a client on the daemon's host a request on the shared
// region's ring or a copy into mapped device memory (tools/neurond/README.md "Data plane").
// remote_device.cc holds the session (Hello, Attach, Goodbye), memory management, programs and
// executions; remote_device_transfers.cc holds Write and Read (mapped memory, the shared region,
// the chunked streams).
//
// Thread safety: every Device call may come from any thread; the session state is set once by
// Connect, the attach state is guarded by mutex_, the mappings by mappings_mutex_, and the shared
// region by its own lock (SharedTransfer::TryLock).
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "driver/device.h"
#include "driver/remote/convert.h"
#include "driver/remote/mapped_memory.h"
#include "driver/remote/remote_device.h"
#include "driver/remote/shared_transfer.h"
#include "proto/neurond.grpc.pb.h"

namespace trnsim::driver::remote {

class RemoteDevice final : public Device {
 public:
  // `tls_ca_file` is empty for a plaintext channel; it only words the errors.
  RemoteDevice(std::string address, std::shared_ptr<grpc::Channel> channel, std::string tls_ca_file,
               const RemoteOptions& options)
      : address_(std::move(address)),
        tls_ca_file_(std::move(tls_ca_file)),
        options_(options),
        channel_(std::move(channel)),
        stub_(v1::Neurond::NewStub(channel_)) {}
  ~RemoteDevice() override;

  // Hello, the instance check, then the Attach stream. On error the destructor still ends
  // whatever part of the session was opened.
  Status Connect(const DeviceOptions& options);

  const simulator::InstanceSpec& instance_spec() const override { return *spec_; }

  Status AcquireCores(int first_physical_core, int count) override;
  void ReleaseCores(int first_physical_core, int count) override;

  StatusOr<AllocationInfo> Allocate(const AllocationRequest& request) override;
  Status Free(MemoryHandle handle) override;
  StatusOr<AllocationInfo> Describe(MemoryHandle handle) override;
  Status Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size) override;
  Status Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size) override;
  // Write and Read through the daemon: the shared region's ring or RPCs, else the streams.
  Status WriteThroughDaemon(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size);
  Status ReadThroughDaemon(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size);
  Status Copy(MemoryHandle src, uint64_t src_offset, MemoryHandle dst, uint64_t dst_offset,
              uint64_t size) override;
  Status Fill(MemoryHandle handle, uint64_t offset, uint8_t value, uint64_t size) override;
  void* HostAddress(MemoryHandle, uint64_t) override { return nullptr; }
  StatusOr<HbmUsage> GetHbmUsage(int chip, int hbm) override;

  using Device::LoadProgram;
  StatusOr<ProgramHandle> LoadProgram(const ProgramImage& image, const ModelOwner& owner) override;
  Status UnloadProgram(ProgramHandle program) override;
  StatusOr<ExecutionResult> Execute(std::span<const CoreExecution> cores,
                                    const ExecutionRequestOptions& options) override;
  StatusOr<std::vector<uint8_t>> HostCollective(const HostCollectiveCall& call,
                                                const HostCollectiveOptions& options) override;
  StatusOr<PeerReply> PointToPoint(const PeerCall& call) override;

 private:
  enum class AttachState { kNotStarted, kPending, kAttached, kEnded };

  // A context with `deadline` (none when zero) and the session key.
  void Prepare(grpc::ClientContext* context, std::chrono::milliseconds deadline) const;
  std::chrono::milliseconds StreamDeadline(uint64_t bytes) const;
  // The status for a failed RPC: names the daemon's address and the RPC.
  Status TransportError(const char* rpc, const grpc::Status& status,
                        std::chrono::milliseconds deadline) const;
  // NRT_FAILURE once the Attach stream has ended: the daemon has dropped the session.
  Status CheckSession() const;
  // NRT_FAILURE for a reply that breaks the protocol.
  Status ProtocolError(const char* rpc, const std::string& what) const;
  // NRT_INVALID, before anything is sent, for a Read or Write range no allocation can hold (it
  // wraps, or is larger than an HBM stack): the transfer would run past the caller's buffer
  // before the daemon's refusal arrived. Smaller ranges the daemon checks.
  Status CheckTransferRange(uint64_t offset, uint64_t size) const;

  // One unary RPC with `deadline` (none when zero; default: RemoteOptions::rpc_deadline); the
  // daemon's NrtStatus when the call got through.
  template <typename Request, typename Response>
  Status Call(const char* rpc,
              grpc::Status (v1::Neurond::Stub::*method)(grpc::ClientContext*, const Request&,
                                                        Response*),
              const Request& request, Response* response,
              std::optional<std::chrono::milliseconds> deadline = std::nullopt);

  void AttachLoop();
  // The shared-memory data plane (shared_transfer.h): a region registered with the daemon when
  // it offers one and this client reached it on a unix: address. Anything failing leaves
  // shared_ null (the streams serve every transfer) with one log line.
  void SetUpSharedMemory();
  SharedCallHooks Hooks(std::chrono::milliseconds deadline) const;
  // The mapping of `handle` (mapped_memory.h), made at its second large transfer; null before
  // that and when the daemon cannot map it (remembered until Free, except NRT_EXEC_NC_BUSY:
  // asked again next time).
  std::shared_ptr<MappedMemory> MappingFor(MemoryHandle handle);
  // The part of [offset, +size) of `handle` that a mapping holds, as [*lo, *hi) and the mapping;
  // null when there is none (small, no shared memory, out of the memory's range, not mappable).
  std::shared_ptr<MappedMemory> MappedPart(MemoryHandle handle, uint64_t offset, uint64_t size,
                                           uint64_t* lo, uint64_t* hi);

  const std::string address_;
  const std::string tls_ca_file_;
  const RemoteOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Neurond::Stub> stub_;
  const simulator::InstanceSpec* spec_ = nullptr;
  std::string session_key_;  // set once by Connect, before any concurrent use
  bool hello_done_ = false;
  std::unique_ptr<SharedTransfer> shared_;  // set once by Connect, before any concurrent use
  std::mutex mappings_mutex_;               // guards the three below
  std::unordered_map<MemoryHandle, std::shared_ptr<MappedMemory>> mappings_;
  std::unordered_set<MemoryHandle> unmappable_;
  std::unordered_set<MemoryHandle> transferred_once_;  // a large transfer, not mapped yet

  grpc::ClientContext attach_context_;
  std::thread attach_thread_;
  mutable std::mutex mutex_;  // guards the attach state below
  std::condition_variable attach_changed_;
  AttachState attach_state_ = AttachState::kNotStarted;
  std::string ended_reason_;
  bool closing_ = false;
};

}  // namespace trnsim::driver::remote
