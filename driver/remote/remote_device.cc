#include "driver/remote/remote_device.h"

#include <grpcpp/grpcpp.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "common/log.h"
#include "common/version.h"
#include "driver/remote/chunking.h"
#include "driver/remote/connection.h"
#include "driver/remote/convert.h"
#include "driver/remote/convert_trace.h"
#include "driver/remote/remote_device_impl.h"
#include "driver/remote/shared_region.h"
#include "driver/remote/shared_transfer.h"
#include "proto/neurond.grpc.pb.h"
#include "simulator/collective/collective_hub.h"

namespace trnsim::driver::remote {
namespace {

constexpr char kSessionKeyMetadata[] = "trnsim-session-key";
// Goodbye is a courtesy (the broken Attach stream ends the session anyway): never wait long.
constexpr std::chrono::milliseconds kGoodbyeDeadline{5'000};

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    default: return "?";
  }
}

std::string GrpcText(const grpc::Status& status) {
  std::string text = std::string("gRPC ") + GrpcCodeName(status.error_code());
  if (!status.error_message().empty()) text += ": " + status.error_message();
  return text;
}

}  // namespace

RemoteDevice::~RemoteDevice() {
  bool send_goodbye;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    send_goodbye = hello_done_ && attach_state_ != AttachState::kEnded;
  }
  if (send_goodbye) {
    grpc::ClientContext context;
    Prepare(&context, std::min(options_.rpc_deadline, kGoodbyeDeadline));
    v1::GoodbyeResponse response;
    grpc::Status status = stub_->Goodbye(&context, v1::GoodbyeRequest(), &response);
    if (!status.ok()) {
      TRNSIM_LOG(Debug, Tdrv) << "neurond at " << address_ << ": Goodbye: " << GrpcText(status);
    }
  }
  attach_context_.TryCancel();
  if (attach_thread_.joinable()) attach_thread_.join();
}

void RemoteDevice::Prepare(grpc::ClientContext* context,
                           std::chrono::milliseconds deadline) const {
  if (deadline.count() > 0) context->set_deadline(std::chrono::system_clock::now() + deadline);
  if (!session_key_.empty()) context->AddMetadata(kSessionKeyMetadata, session_key_);
}

std::chrono::milliseconds RemoteDevice::StreamDeadline(uint64_t bytes) const {
  if (options_.rpc_deadline.count() <= 0) return options_.rpc_deadline;
  uint64_t per_second = std::max<uint64_t>(options_.stream_bytes_per_second, 1);
  return options_.rpc_deadline + std::chrono::seconds(bytes / per_second);
}

Status RemoteDevice::TransportError(const char* rpc, const grpc::Status& status,
                                    std::chrono::milliseconds deadline) const {
  const std::string where = "neurond at " + address_;
  switch (status.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return TimeoutError(where + " did not complete " + rpc + " within its deadline of " +
                          std::to_string(deadline.count()) + " ms");
    case grpc::StatusCode::UNAUTHENTICATED: {
      // neurond puts its NrtStatus (NRT_INVALID and why) in the error details.
      v1::NrtStatus details;
      Status refusal = InvalidError(status.error_message());
      if (!status.error_details().empty() && details.ParseFromString(status.error_details()) &&
          details.code() != 0) {
        refusal = StatusFromProto(details);
      }
      return Status(refusal.code(), where + " refused " + rpc + ": " + refusal.message() +
                                        " (gRPC UNAUTHENTICATED)");
    }
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return ResourceError(where + ": " + rpc + " exceeded a limit (" + GrpcText(status) + ")");
    case grpc::StatusCode::UNAVAILABLE: {
      // A TLS mismatch (plaintext against TLS, an untrusted certificate, a wrong name) also
      // looks like this: gRPC drops the connection during the handshake.
      const std::string hint =
          tls_ca_file_.empty()
              ? "; this client speaks plaintext: if the daemon was started with --tls-cert, "
                "trust its certificate (TRNSIM_TLS_CA)"
              : "; this client speaks TLS trusting " + tls_ca_file_ +
                    ": if the daemon is up, check that it uses TLS and that its certificate "
                    "chains to that file and names the host (TRNSIM_TLS_SERVER_NAME)";
      return FailureError("cannot reach " + where + " (" + rpc + ": " + GrpcText(status) + ")" +
                          (std::string_view(rpc) == "Hello" ? hint : ""));
    }
    default:
      return FailureError(where + ": " + rpc + " failed (" + GrpcText(status) + ")");
  }
}

Status RemoteDevice::ProtocolError(const char* rpc, const std::string& what) const {
  return FailureError("neurond at " + address_ + " answered " + rpc +
                      " with a reply that breaks the protocol: " + what);
}

Status RemoteDevice::CheckSession() const {
  std::lock_guard lock(mutex_);
  if (attach_state_ != AttachState::kEnded) return Status::Ok();
  return FailureError("the session with neurond at " + address_ + " has ended (" +
                      ended_reason_ + "); its cores, memory and programs are gone");
}

template <typename Request, typename Response>
Status RemoteDevice::Call(const char* rpc,
                          grpc::Status (v1::Neurond::Stub::*method)(grpc::ClientContext*,
                                                                    const Request&, Response*),
                          const Request& request, Response* response,
                          std::optional<std::chrono::milliseconds> deadline) {
  TRNSIM_RETURN_IF_ERROR(CheckSession());
  const std::chrono::milliseconds limit = deadline.value_or(options_.rpc_deadline);
  grpc::ClientContext context;
  Prepare(&context, limit);
  grpc::Status status = (stub_.get()->*method)(&context, request, response);
  if (!status.ok()) return TransportError(rpc, status, limit);
  return StatusFromProto(response->status());
}

Status RemoteDevice::Connect(const DeviceOptions& options) {
  v1::HelloRequest hello;
  hello.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  hello.set_client_pid(static_cast<int64_t>(getpid()));
  hello.set_client_command(ClientCommandLine());
  hello.set_runtime_version(TrnsimVersion());
  hello.set_token(options.token);
  hello.set_faults(faults::FormatFaultSpec(options.faults));  // neurond injects them
  v1::HelloResponse reply;
  TRNSIM_RETURN_IF_ERROR(Call("Hello", &v1::Neurond::Stub::Hello, hello, &reply));
  if (reply.session_key().empty() || reply.session_id() == 0) {
    return ProtocolError("Hello", "no session key or id");
  }
  {
    std::lock_guard lock(mutex_);
    session_key_ = reply.session_key();
    hello_done_ = true;  // from here on the destructor says Goodbye
  }
  if (reply.protocol_version() != v1::PROTOCOL_VERSION_CURRENT) {
    return InvalidError("neurond at " + address_ + " speaks protocol version " +
                        std::to_string(reply.protocol_version()) + ", this client version " +
                        std::to_string(v1::PROTOCOL_VERSION_CURRENT));
  }
  StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec(
      reply.instance_type());
  if (!spec.ok()) {
    return InvalidError("neurond at " + address_ + " emulates instance type '" +
                        reply.instance_type() + "', which this trnsim " + TrnsimVersion() +
                        " does not know");
  }
  if (options.instance != nullptr && options.instance->type_name != (*spec)->type_name) {
    return InvalidError("neurond at " + address_ + " emulates " + (*spec)->type_name +
                        ", but this process is configured for " + options.instance->type_name +
                        " (the instance type must match the daemon's)");
  }
  spec_ = *spec;

  std::unique_lock lock(mutex_);
  attach_state_ = AttachState::kPending;
  attach_thread_ = std::thread([this] { AttachLoop(); });
  bool settled = attach_changed_.wait_for(lock, options_.rpc_deadline, [this] {
    return attach_state_ != AttachState::kPending;
  });
  if (!settled) {
    return TimeoutError("neurond at " + address_ + " did not confirm the session within " +
                        std::to_string(options_.rpc_deadline.count()) + " ms");
  }
  if (attach_state_ == AttachState::kEnded) {
    return FailureError("neurond at " + address_ + " ended the session before confirming it (" +
                        ended_reason_ + ")");
  }
  lock.unlock();
  if (reply.shared_memory()) SetUpSharedMemory();
  TRNSIM_LOG(Info, Tdrv) << "connected to neurond " << reply.daemon_version() << " at " << address_
                         << ": " << (*spec)->type_name << ", session " << reply.session_id()
                         << (shared_ ? ", shared-memory data plane" : ", streamed data plane");
  return Status::Ok();
}

void RemoteDevice::SetUpSharedMemory() {
  if (options_.shared_region_bytes == 0 || address_.rfind("unix:", 0) != 0) return;
  const std::string path = SharedMemorySocketPath(address_.substr(5));
  StatusOr<std::unique_ptr<SharedRegion>> region =
      SharedRegion::Create(options_.shared_region_bytes);
  const auto timeout =
      std::min<std::chrono::milliseconds>(options_.rpc_deadline, std::chrono::milliseconds(10'000));
  StatusOr<RegisteredRegion> id =
      region.ok() ? RegisterSharedRegionWithRing(**region, path, session_key_, int(timeout.count()))
                  : StatusOr<RegisteredRegion>(region.status());
  if (!id.ok()) {
    TRNSIM_LOG(Info, Tdrv) << "neurond at " << address_
                           << ": no shared-memory data plane, transfers are streamed ("
                           << id.status().message() << ")";
    return;
  }
  shared_ = std::make_unique<SharedTransfer>(std::move(*region), id->id, stub_.get(), id->ring,
                                             id->ring_execute);
}

SharedCallHooks RemoteDevice::Hooks(std::chrono::milliseconds deadline) const {
  SharedCallHooks hooks;
  hooks.prepare = [this, deadline](grpc::ClientContext* context) { Prepare(context, deadline); };
  hooks.transport_error = [this, deadline](const char* rpc, const grpc::Status& status) {
    return TransportError(rpc, status, deadline);
  };
  hooks.ring_deadline = deadline;
  hooks.session_status = [this] { return CheckSession(); };
  return hooks;
}

void RemoteDevice::AttachLoop() {
  Prepare(&attach_context_, std::chrono::milliseconds(0));  // open for the session's life
  std::unique_ptr<grpc::ClientReader<v1::SessionEvent>> reader =
      stub_->Attach(&attach_context_, v1::AttachRequest());
  v1::SessionEvent event;
  std::string shutdown_message;
  while (reader->Read(&event)) {
    if (event.kind() == v1::SessionEvent::KIND_ATTACHED) {
      std::lock_guard lock(mutex_);
      if (attach_state_ == AttachState::kPending) attach_state_ = AttachState::kAttached;
      attach_changed_.notify_all();
    } else if (event.kind() == v1::SessionEvent::KIND_SHUTTING_DOWN) {
      shutdown_message = event.message().empty() ? "no reason given" : event.message();
      TRNSIM_LOG(Warn, Tdrv) << "neurond at " << address_
                             << " is shutting down: " << shutdown_message;
    }
    // Other kinds come from newer daemons and carry nothing this client acts on.
  }
  grpc::Status status = reader->Finish();
  std::lock_guard lock(mutex_);
  if (!shutdown_message.empty()) {
    ended_reason_ = "the daemon shut down: " + shutdown_message;
  } else if (status.ok()) {
    ended_reason_ = "the daemon closed the session";
  } else {
    ended_reason_ = "the connection broke: " + GrpcText(status);
  }
  if (!closing_) {
    TRNSIM_LOG(Warn, Tdrv) << "neurond at " << address_ << ": session ended: " << ended_reason_;
  }
  attach_state_ = AttachState::kEnded;
  attach_changed_.notify_all();
}

Status RemoteDevice::AcquireCores(int first_physical_core, int count) {
  v1::CoreRange request;
  request.set_first_physical_core(first_physical_core);
  request.set_count(count);
  v1::AcquireCoresResponse response;
  return Call("AcquireCores", &v1::Neurond::Stub::AcquireCores, request, &response);
}

void RemoteDevice::ReleaseCores(int first_physical_core, int count) {
  v1::CoreRange request;
  request.set_first_physical_core(first_physical_core);
  request.set_count(count);
  v1::ReleaseCoresResponse response;
  Status status = Call("ReleaseCores", &v1::Neurond::Stub::ReleaseCores, request, &response);
  if (!status.ok()) {
    TRNSIM_LOG(Warn, Tdrv) << "ReleaseCores: " << status.ToString();
  }
}

StatusOr<AllocationInfo> RemoteDevice::Allocate(const AllocationRequest& request) {
  v1::AllocationRequest message;
  ToProto(request, &message);
  v1::AllocateResponse response;
  TRNSIM_RETURN_IF_ERROR(Call("Allocate", &v1::Neurond::Stub::Allocate, message, &response));
  StatusOr<AllocationInfo> info = AllocationInfoFromProto(response.info());
  if (!info.ok()) return ProtocolError("Allocate", info.status().message());
  return info;
}

Status RemoteDevice::Free(MemoryHandle handle) {
  {
    // Unmapped first (a transfer still copying holds its own reference until it ends).
    std::lock_guard lock(mappings_mutex_);
    mappings_.erase(handle);
    unmappable_.erase(handle);
    transferred_once_.erase(handle);
  }
  v1::MemoryRef request;
  request.set_handle(handle);
  v1::FreeResponse response;
  return Call("Free", &v1::Neurond::Stub::Free, request, &response);
}

StatusOr<AllocationInfo> RemoteDevice::Describe(MemoryHandle handle) {
  v1::MemoryRef request;
  request.set_handle(handle);
  v1::DescribeResponse response;
  TRNSIM_RETURN_IF_ERROR(Call("Describe", &v1::Neurond::Stub::Describe, request, &response));
  StatusOr<AllocationInfo> info = AllocationInfoFromProto(response.info());
  if (!info.ok()) return ProtocolError("Describe", info.status().message());
  return info;
}

Status RemoteDevice::Copy(MemoryHandle src, uint64_t src_offset, MemoryHandle dst,
                          uint64_t dst_offset, uint64_t size) {
  v1::CopyRequest request;
  request.set_src_handle(src);
  request.set_src_offset(src_offset);
  request.set_dst_handle(dst);
  request.set_dst_offset(dst_offset);
  request.set_size(size);
  v1::CopyResponse response;
  return Call("Copy", &v1::Neurond::Stub::Copy, request, &response);
}

Status RemoteDevice::Fill(MemoryHandle handle, uint64_t offset, uint8_t value, uint64_t size) {
  v1::FillRequest request;
  request.set_handle(handle);
  request.set_offset(offset);
  request.set_value(value);
  request.set_size(size);
  v1::FillResponse response;
  return Call("Fill", &v1::Neurond::Stub::Fill, request, &response);
}

StatusOr<HbmUsage> RemoteDevice::GetHbmUsage(int chip, int hbm) {
  v1::HbmRef request;
  request.set_chip(chip);
  request.set_hbm(hbm);
  v1::GetHbmUsageResponse response;
  TRNSIM_RETURN_IF_ERROR(
      Call("GetHbmUsage", &v1::Neurond::Stub::GetHbmUsage, request, &response));
  StatusOr<HbmUsage> usage = HbmUsageFromProto(response.usage());
  if (!usage.ok()) return ProtocolError("GetHbmUsage", usage.status().message());
  return usage;
}

StatusOr<ProgramHandle> RemoteDevice::LoadProgram(const ProgramImage& image,
                                                  const ModelOwner& owner) {
  TRNSIM_RETURN_IF_ERROR(CheckSession());
  const std::string bytes = SerializeProgramImage(image);
  if (bytes.size() > kMaxProgramImageBytes) {
    return InvalidError("the program image is " + std::to_string(bytes.size()) +
                        " bytes serialised, more than the " +
                        std::to_string(kMaxProgramImageBytes) + " a daemon accepts");
  }
  const std::chrono::milliseconds deadline = StreamDeadline(bytes.size());
  grpc::ClientContext context;
  Prepare(&context, deadline);
  v1::LoadProgramResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::LoadProgramRequest>> writer =
      stub_->LoadProgram(&context, &response);
  v1::LoadProgramRequest message;
  message.mutable_header()->set_image_bytes(bytes.size());
  ToProto(owner, message.mutable_header());
  bool open = writer->Write(message);
  for (std::string_view chunk : SplitChunks(bytes)) {
    if (!open) break;
    message.set_chunk(chunk.data(), chunk.size());
    open = writer->Write(message);
  }
  if (open) writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (!status.ok()) return TransportError("LoadProgram", status, deadline);
  TRNSIM_RETURN_IF_ERROR(StatusFromProto(response.status()));
  if (response.program() == kInvalidProgramHandle) {
    return ProtocolError("LoadProgram", "program handle 0");
  }
  return ProgramHandle{response.program()};
}

Status RemoteDevice::UnloadProgram(ProgramHandle program) {
  v1::ProgramRef request;
  request.set_program(program);
  v1::UnloadProgramResponse response;
  return Call("UnloadProgram", &v1::Neurond::Stub::UnloadProgram, request, &response);
}

StatusOr<ExecutionResult> RemoteDevice::Execute(std::span<const CoreExecution> cores,
                                                const ExecutionRequestOptions& options) {
  v1::ExecuteRequest request;
  for (const CoreExecution& core : cores) ToProto(core, request.add_cores());
  ToProto(options, request.mutable_options());
  // The daemon enforces the execution's own host timeout; the RPC gets rpc_deadline on top,
  // and no deadline at all when the execution has none (it may legitimately run for hours).
  const std::chrono::milliseconds deadline =
      options.host_timeout.count() > 0 ? options.host_timeout + options_.rpc_deadline
                                       : std::chrono::milliseconds(0);
  v1::ExecuteResponse response;
  Status called;
  bool on_ring = false;
  // Without a trace (whose reply can be large) an execution takes the request ring when the
  // daemon runs executions there and no other thread of this process holds the region: no gRPC
  // call at all (tools/neurond/README.md "Data plane").
  if (shared_ != nullptr && shared_->ring_execute() && options.trace == nullptr) {
    std::unique_lock region = shared_->TryLock();
    if (region.owns_lock() && !shared_->broken()) {
      on_ring = true;
      called = CheckSession();
      if (called.ok()) {
        StatusOr<std::string> reply = shared_->Execute(request.SerializeAsString(), Hooks(deadline));
        if (!reply.ok()) {
          called = reply.status();
        } else if (!response.ParseFromString(*reply)) {
          called = ProtocolError("Execute", "the ring's reply is not an ExecuteResponse");
        } else {
          called = StatusFromProto(response.status());
        }
      }
    }
  }
  if (!on_ring) {
    called = Call("Execute", &v1::Neurond::Stub::Execute, request, &response, deadline);
  }
  // A failed execution's trace still holds the events up to the failure, as in-process.
  if (options.trace != nullptr && response.has_trace()) {
    StatusOr<simulator::core::ExecutionTrace> trace = TraceFromProto(response.trace());
    if (!trace.ok()) return ProtocolError("Execute", trace.status().message());
    *options.trace = *std::move(trace);
  } else if (options.trace != nullptr && called.ok()) {
    return ProtocolError("Execute", "no trace in the reply, though the request asked for one");
  }
  TRNSIM_RETURN_IF_ERROR(called);
  StatusOr<ExecutionResult> result = ExecutionResultFromProto(response.result());
  if (!result.ok()) return ProtocolError("Execute", result.status().message());
  if (result->cores.size() != cores.size()) {
    return ProtocolError("Execute", "a result for " + std::to_string(result->cores.size()) +
                                        " cores, the request had " +
                                        std::to_string(cores.size()));
  }
  return result;
}

StatusOr<std::vector<uint8_t>> RemoteDevice::HostCollective(const HostCollectiveCall& call,
                                                            const HostCollectiveOptions& options) {
  v1::HostCollectiveRequest request;
  request.set_kind(call.kind == HostCollectiveKind::kAllGather ? v1::HOST_COLLECTIVE_ALL_GATHER
                                                               : v1::HOST_COLLECTIVE_BARRIER);
  request.set_communicator(call.communicator);
  request.set_rank(call.rank);
  request.set_world_size(call.world_size);
  request.set_sequence(call.sequence);
  request.set_input(call.input.data(), call.input.size());
  const std::chrono::milliseconds timeout = options.host_timeout;
  request.set_timeout_ms(timeout.count() > 0 ? uint64_t(timeout.count()) : 0);
  // The daemon bounds the wait; the RPC gets rpc_deadline on top of it. (options.cancel is a
  // local flag: the daemon cancels with the session.)
  const std::chrono::milliseconds wait =
      timeout.count() > 0 ? timeout : simulator::collective::kDefaultCollectiveTimeout;
  v1::HostCollectiveResponse response;
  TRNSIM_RETURN_IF_ERROR(Call("HostCollective", &v1::Neurond::Stub::HostCollective, request,
                              &response, wait + options_.rpc_deadline));
  return std::vector<uint8_t>(response.output().begin(), response.output().end());
}

StatusOr<PeerReply> RemoteDevice::PointToPoint(const PeerCall& call) {
  v1::PointToPointRequest request;
  switch (call.op) {
    case PeerOp::kOpen: request.set_op(v1::PEER_OPEN); break;
    case PeerOp::kConnected: request.set_op(v1::PEER_CONNECTED); break;
    case PeerOp::kPost: request.set_op(v1::PEER_POST); break;
    case PeerOp::kTest: request.set_op(v1::PEER_TEST); break;
    case PeerOp::kClose: request.set_op(v1::PEER_CLOSE); break;
    default:
      return InvalidError("point-to-point: operation " + std::to_string(int(call.op)) +
                          " is unknown");
  }
  request.set_side(call.side == PeerSide::kRecv ? v1::PEER_RECV : v1::PEER_SEND);
  request.set_lnc(call.lnc);
  request.set_peer_lnc(call.peer_lnc);
  request.set_id(call.id);
  request.set_memory_handle(call.buffer.memory);
  request.set_offset(call.buffer.offset);
  request.set_length(call.buffer.length);
  request.set_force(call.force);
  v1::PointToPointResponse response;
  TRNSIM_RETURN_IF_ERROR(Call("PointToPoint", &v1::Neurond::Stub::PointToPoint, request,
                              &response, options_.rpc_deadline));
  PeerReply reply;
  reply.id = response.id();
  reply.connected = response.connected();
  reply.request.done = response.done();
  reply.request.bytes = response.bytes();
  if (response.has_transfer_status()) {
    reply.request.status = StatusFromProto(response.transfer_status());
  }
  return reply;
}

StatusOr<std::unique_ptr<Device>> OpenRemoteDevice(const DeviceOptions& options,
                                                   const RemoteOptions& remote_options) {
  if (options.address.empty()) return InvalidError("the remote back end needs a daemon address");
  TRNSIM_RETURN_IF_ERROR(ValidateDaemonAddress(options.address));
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel, OpenDaemonChannel(options));
  auto device = std::make_unique<RemoteDevice>(options.address, std::move(channel),
                                               options.tls_ca_file, remote_options);
  TRNSIM_RETURN_IF_ERROR(device->Connect(options));
  return std::unique_ptr<Device>(std::move(device));
}

StatusOr<std::unique_ptr<Device>> OpenRemoteDevice(const DeviceOptions& options) {
  return OpenRemoteDevice(options, RemoteOptions());
}

}  // namespace trnsim::driver::remote
