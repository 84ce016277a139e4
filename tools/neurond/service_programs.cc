// The program RPCs of NeurondService: LoadProgram (a chunked, serialised ProgramImage),
// UnloadProgram and Execute. Program and memory handles in requests are the session's;
// Session::PrepareExecution maps them to the Device's and checks the session holds the cores.
// Execute also feeds the counters of Status: per core (under counters_mutex_, taken only
// after the Device call) and per session (Session::BeginExecution / EndExecution).
// Faults: a session's FaultPlan goes with each of its executions to the Device, which applies
// it once it has claimed the cores (ExecutionRequestOptions::faults, as the in-process sim
// device applies its own); the memory errors it injects are counted per chip for Status
// (chip_errors_, through the plan's injection observer: CountInjectedFault).
#include <chrono>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "common/log.h"
#include "driver/remote/chunking.h"
#include "driver/remote/convert.h"
#include "driver/remote/convert_trace.h"
#include "driver/remote/transport.h"
#include "simulator/core/trace.h"
#include "tools/neurond/service.h"

namespace trnsim::neurond {
namespace {

namespace remote = driver::remote;

// The upload's charge on its session (Session::ReserveUpload), returned on every exit of the
// stream: its end, a refusal, a client that cancels or goes away.
class UploadCharge {
 public:
  explicit UploadCharge(Session& session) : session_(session) {}
  ~UploadCharge() {
    if (bytes_ != 0) session_.ReleaseUpload(bytes_);
  }
  UploadCharge(const UploadCharge&) = delete;
  UploadCharge& operator=(const UploadCharge&) = delete;

  trnsim::Status Reserve(uint64_t bytes) {
    TRNSIM_RETURN_IF_ERROR(session_.ReserveUpload(bytes));
    bytes_ = bytes;
    return trnsim::Status::Ok();
  }

 private:
  Session& session_;
  uint64_t bytes_ = 0;
};

// The announced size is charged before the assembler reserves it, and stays charged until the
// program is loaded or refused; the loaded program's own charge is added by Session::LoadProgram
// before the Device decodes it.
StatusOr<driver::ProgramHandle> DoLoadProgram(
    Session& session, grpc::ServerReader<v1::LoadProgramRequest>* reader) {
  v1::LoadProgramRequest message;
  if (!reader->Read(&message)) return InvalidError("LoadProgram stream ended before its header");
  if (!message.has_header()) return InvalidError("LoadProgram stream does not start with a header");
  TRNSIM_ASSIGN_OR_RETURN(driver::ModelOwner owner, remote::ModelOwnerFromProto(message.header()));
  const uint64_t image_bytes = message.header().image_bytes();
  if (image_bytes > remote::kMaxProgramImageBytes) {  // before it is charged
    return InvalidError("a program image of " + std::to_string(image_bytes) +
                        " bytes is over the limit of " +
                        std::to_string(remote::kMaxProgramImageBytes));
  }
  UploadCharge charge(session);
  TRNSIM_RETURN_IF_ERROR(charge.Reserve(image_bytes));
  TRNSIM_ASSIGN_OR_RETURN(remote::ChunkAssembler assembler,
                          remote::ChunkAssembler::Start(image_bytes,
                                                        remote::kMaxProgramImageBytes));
  while (reader->Read(&message)) {
    if (message.has_header()) return InvalidError("LoadProgram stream has a second header");
    TRNSIM_RETURN_IF_ERROR(assembler.Add(message.chunk()));
  }
  driver::ProgramImage image;
  {
    TRNSIM_ASSIGN_OR_RETURN(std::string bytes, std::move(assembler).Finish());
    TRNSIM_ASSIGN_OR_RETURN(image, remote::ParseProgramImage(bytes));
  }  // the reassembled bytes go before the Device decodes
  return session.LoadProgram(image, owner);
}

}  // namespace

void NeurondService::CountInjectedFault(const driver::faults::FaultOutcome& fault) {
  std::lock_guard lock(counters_mutex_);
  if (fault.chip < 0 || fault.chip >= static_cast<int>(chip_errors_.size())) return;
  ChipErrors& errors = chip_errors_[fault.chip];
  switch (*fault.kind) {
    case driver::faults::FaultKind::kHbmUe:
      ++errors.mem_ecc_uncorrected;
      break;
    case driver::faults::FaultKind::kRepairableHbmUe:
      ++errors.mem_ecc_repairable_uncorrected;
      break;
    case driver::faults::FaultKind::kNcUe:
      ++errors.sram_ecc_uncorrected;
      break;
    default:
      break;  // not a memory error
  }
}

grpc::Status NeurondService::LoadProgram(grpc::ServerContext* context,
                                         grpc::ServerReader<v1::LoadProgramRequest>* reader,
                                         v1::LoadProgramResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "LoadProgram", &denied);
  if (session == nullptr) return denied;
  StatusOr<driver::ProgramHandle> program = DoLoadProgram(*session, reader);
  if (program.ok()) response->set_program(*program);
  Reply(*session, "LoadProgram", program.status(), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::UnloadProgram(grpc::ServerContext* context,
                                           const v1::ProgramRef* request,
                                           v1::UnloadProgramResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "UnloadProgram", &denied);
  if (session == nullptr) return denied;
  Reply(*session, "UnloadProgram", session->UnloadProgram(request->program()),
        response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::Execute(grpc::ServerContext* context,
                                     const v1::ExecuteRequest* request,
                                     v1::ExecuteResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Execute", &denied);
  if (session == nullptr) return denied;
  RunExecution(*session, *request, response);
  return grpc::Status::OK;
}

StatusOr<uint64_t> NeurondService::RingExecute(Session& session, const std::string& bytes,
                                               uint8_t* reply, uint64_t reply_room) {
  v1::ExecuteRequest request;
  if (!request.ParseFromString(bytes)) {
    return InvalidError("the ring's execute request is not an ExecuteRequest");
  }
  if (request.options().record_trace()) {
    return InvalidError("an execution that records a trace is served by the Execute RPC only "
                        "(its reply may not fit a data slot)");
  }
  v1::ExecuteResponse response;
  RunExecution(session, request, &response);
  const size_t bytes_out = response.ByteSizeLong();
  if (bytes_out > reply_room) {
    return ResourceError("the execution's reply is " + std::to_string(bytes_out) +
                         " bytes, more than a data slot (" + std::to_string(reply_room) + ")");
  }
  response.SerializeWithCachedSizesToArray(reply);
  return uint64_t{bytes_out};
}

void NeurondService::RunExecution(Session& session, const v1::ExecuteRequest& request,
                                  v1::ExecuteResponse* response) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point rpc_start = Clock::now();
  ExecutionScope scope;
  bool reached_device = false;
  uint64_t simulated_ps = 0;
  auto run = [&]() -> trnsim::Status {
    std::vector<driver::CoreExecution> cores;
    cores.reserve(request.cores_size());
    for (const v1::CoreExecution& core : request.cores()) {
      TRNSIM_ASSIGN_OR_RETURN(driver::CoreExecution parsed, remote::CoreExecutionFromProto(core));
      cores.push_back(std::move(parsed));
    }
    TRNSIM_ASSIGN_OR_RETURN(driver::ExecutionRequestOptions options,
                            remote::ExecutionOptionsFromProto(request.options()));
    if (options.collective) {
      TRNSIM_RETURN_IF_ERROR(BindRank(session, options.collective->communicator,
                                      options.collective->rank, options.collective->world_size));
    }
    TRNSIM_RETURN_IF_ERROR(session.PrepareExecution(&cores, &scope));
    options.cancel = session.cancel_flag();
    options.faults = session.faults();
    // Runaway programs: the daemon's event budget, and its host-time ceiling on any timeout.
    options.max_events = options_.max_exec_events;
    options.max_host_time = options_.max_exec_time;
    simulator::core::ExecutionTrace trace;
    trace.limits = {options_.max_trace_events, options_.max_trace_bytes};
    if (request.options().record_trace()) options.trace = &trace;
    session.BeginExecution(scope);
    reached_device = true;
    const Clock::time_point device_start = Clock::now();
    StatusOr<driver::ExecutionResult> result = device_->Execute(cores, options);
    const uint64_t device_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - device_start).count());
    {
      std::lock_guard lock(counters_mutex_);
      for (int physical : scope.physical_cores) core_busy_wall_ns_[physical] += device_ns;
      if (result.ok()) {
        ++executions_;
        // The result's cores are in the order of the request's (and of scope.physical_cores).
        for (size_t i = 0; i < scope.physical_cores.size() && i < result->cores.size(); ++i) {
          const int physical = scope.physical_cores[i];
          ++core_executions_[physical];
          core_busy_ps_[physical] += result->cores[i].duration_ps;
          for (const driver::EngineStats& engine : result->cores[i].engines) {
            core_flops_[physical] += engine.flops;
          }
        }
      }
    }
    if (options.trace != nullptr) {
      // Also after a failure: the events up to it are the profile of a failed execution.
      remote::ToProto(trace, response->mutable_trace());
      trace.Clear();
      // Leave room for the status the reply gets after this.
      constexpr size_t kStatusRoomBytes = 1 << 20;
      const size_t bytes = response->ByteSizeLong();
      if (bytes > size_t(driver::remote::kMaxExecuteReplyBytes) - kStatusRoomBytes) {
        response->clear_trace();
        return ResourceError("the execution's trace is " + std::to_string(bytes) +
                             " bytes, more than one reply can carry (" +
                             std::to_string(driver::remote::kMaxExecuteReplyBytes) + ")");
      }
    }
    if (!result.ok()) return result.status();
    simulated_ps = result->duration_ps;
    remote::ToProto(*result, response->mutable_result());
    return trnsim::Status::Ok();
  };
  const trnsim::Status status = run();
  if (reached_device) {
    ExecutionSample sample;
    sample.ok = status.ok();
    sample.status_code = static_cast<uint32_t>(status.code());
    sample.simulated_ps = sample.ok ? simulated_ps : 0;
    sample.wall_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - rpc_start).count());
    sample.finished_ms = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Uptime()).count());
    session.EndExecution(scope, sample);
  }
  Reply(session, "Execute", status, response->mutable_status());
}

trnsim::Status NeurondService::BindRank(const Session& session, const std::string& communicator,
                                        uint32_t rank, uint32_t world_size) {
  const uint64_t id = session.identity().id;
  const uint32_t cluster_world = cluster_ != nullptr ? cluster_->MaxWorld(communicator) : 0;
  TRNSIM_RETURN_IF_ERROR(communicators_.Bind(id, session.HeldCores().size(), communicator, rank,
                                             world_size, cluster_world));
  if (session.closed()) {  // ended while binding: EndSession's Release may have run already
    communicators_.Release(id);
    return FailureError("session ended");
  }
  // A multi-instance job: the root learns which instance the rank runs on (docs/cluster.md).
  if (cluster_ != nullptr) return cluster_->BindRank(communicator, rank, world_size);
  return trnsim::Status::Ok();
}

// Host-driven collectives: the session's process joins the instance's hub as a rank that is its
// own (BindRank); the wait ends with the session (its cancel flag), so a client that dies fails
// the others' barrier at once. Sizes are checked before anything is copied, and running out of
// memory is NRT_RESOURCE with nothing left behind (the hub is all-or-nothing).
grpc::Status NeurondService::HostCollective(grpc::ServerContext* context,
                                            const v1::HostCollectiveRequest* request,
                                            v1::HostCollectiveResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "HostCollective", &denied);
  if (session == nullptr) return denied;
  auto run = [&]() -> trnsim::Status {
    driver::HostCollectiveCall call;
    switch (request->kind()) {
      case v1::HOST_COLLECTIVE_BARRIER:
        call.kind = driver::HostCollectiveKind::kBarrier;
        break;
      case v1::HOST_COLLECTIVE_ALL_GATHER:
        call.kind = driver::HostCollectiveKind::kAllGather;
        break;
      default:
        return InvalidError("HostCollectiveRequest.kind " + std::to_string(request->kind()) +
                            " is not a host collective");
    }
    using Rep = std::chrono::milliseconds::rep;
    // Its deadline is now plus the timeout in nanoseconds: a longer one would overflow it.
    if (request->timeout_ms() > remote::kMaxHostTimeoutMs) {
      return InvalidError("HostCollectiveRequest.timeout_ms " +
                          std::to_string(request->timeout_ms()) + " is out of range (at most " +
                          std::to_string(remote::kMaxHostTimeoutMs) + ")");
    }
    const uint64_t input_bytes = request->input().size();
    if (call.kind == driver::HostCollectiveKind::kBarrier && input_bytes != 0) {
      return InvalidError("a host barrier carries no input (" + std::to_string(input_bytes) +
                          " bytes given)");
    }
    // world_size is at most MaxWorldSize (checked by BindRank below, before this is used).
    if (request->world_size() != 0 &&
        input_bytes > kMaxHostAllGatherBytes / request->world_size()) {
      return InvalidError("a host all_gather of " + std::to_string(request->world_size()) +
                          " ranks × " + std::to_string(input_bytes) + " bytes is more than " +
                          std::to_string(kMaxHostAllGatherBytes) + " bytes");
    }
    TRNSIM_RETURN_IF_ERROR(BindRank(*session, request->communicator(), request->rank(),
                                    request->world_size()));
    call.communicator = request->communicator();
    call.rank = request->rank();
    call.world_size = request->world_size();
    call.sequence = request->sequence();
    call.input.assign(request->input().begin(), request->input().end());
    driver::HostCollectiveOptions options;
    options.host_timeout = std::chrono::milliseconds(Rep(request->timeout_ms()));
    options.cancel = session->cancel_flag();
    TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> output, device_->HostCollective(call, options));
    response->set_output(output.data(), output.size());
    return trnsim::Status::Ok();
  };
  trnsim::Status status;
  try {
    status = run();
  } catch (const std::bad_alloc&) {
    response->clear_output();
    status = ResourceError("out of host memory for a host collective");
  }
  Reply(*session, "HostCollective", status, response->mutable_status());
  return grpc::Status::OK;
}

}  // namespace trnsim::neurond
