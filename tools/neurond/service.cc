// The session, core and Status RPCs of NeurondService; memory RPCs are in service_memory.cc.
#include "tools/neurond/service.h"

#include <algorithm>
#include <google/protobuf/descriptor.h>

#include <utility>

#include "common/log.h"
#include "common/version.h"
#include "driver/remote/convert.h"
#include "simulator/collective/collective_hub.h"
#include "tools/neurond/credentials.h"
#include "tools/neurond/peer_identity.h"

namespace trnsim::neurond {
namespace {

namespace remote = driver::remote;

static_assert(kRecentExecutions == static_cast<size_t>(v1::RECENT_EXECUTIONS),
              "session.h and proto/neurond.proto disagree on the recent executions kept");

// Client-supplied strings kept for logs and Status are cut to this many bytes.
constexpr size_t kMaxClientTextBytes = 1024;

std::string ClientText(const std::string& text) { return text.substr(0, kMaxClientTextBytes); }

grpc::Status Unauthenticated(const std::string& message) {
  v1::NrtStatus details;
  remote::ToProto(InvalidError(message), &details);
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, message, details.SerializeAsString());
}

}  // namespace

NeurondService::NeurondService(driver::Device* device, ServiceOptions options)
    : device_(device),
      options_(std::move(options)),
      started_at_(std::chrono::steady_clock::now()),
      sessions_(
          device, options_.max_sessions, options_.max_sessions_per_peer,
          SessionLimits{options_.max_session_memory_bytes, options_.max_session_program_bytes},
          options_.attach_grace),
      core_executions_(device->instance_spec().PhysicalCores(), 0),
      core_busy_ps_(device->instance_spec().PhysicalCores(), 0),
      core_busy_wall_ns_(device->instance_spec().PhysicalCores(), 0),
      core_flops_(device->instance_spec().PhysicalCores(), 0),
      chip_errors_(device->instance_spec().chip_count),
      communicators_(simulator::collective::MaxWorldSize(device->instance_spec())),
      reaper_([this] { ReapUnattached(); }) {
  const int read_method = google::protobuf::DescriptorPool::generated_pool()
                              ->FindServiceByName(v1::Neurond::service_full_name())
                              ->FindMethodByName("Read")
                              ->index();
  MarkMethodStreamed(
      read_method,
      new grpc::internal::SplitServerStreamingHandler<v1::ReadRequest, grpc::ByteBuffer>(
          [this](grpc::ServerContext* context,
                 grpc::ServerSplitStreamer<v1::ReadRequest, grpc::ByteBuffer>* stream) {
            return RawRead(context, stream);
          }));
  const int write_method = google::protobuf::DescriptorPool::generated_pool()
                               ->FindServiceByName(v1::Neurond::service_full_name())
                               ->FindMethodByName("Write")
                               ->index();
  MarkMethodStreamed(
      write_method,
      new grpc::internal::ClientStreamingHandler<NeurondService, grpc::ByteBuffer,
                                                 v1::WriteResponse>(
          [](NeurondService* service, grpc::ServerContext* context,
             grpc::ServerReader<grpc::ByteBuffer>* reader,
             v1::WriteResponse* response) { return service->RawWrite(context, reader, response); },
          this));
}

NeurondService::~NeurondService() {
  {
    std::lock_guard lock(reaper_mutex_);
    stop_reaper_ = true;
  }
  reaper_cv_.notify_all();
  reaper_.join();
  CloseAllSessions();
}

void NeurondService::ReapUnattached() {
  const auto period = std::clamp(options_.attach_grace / 4, std::chrono::milliseconds(1),
                                 std::chrono::milliseconds(1000));
  const std::string reason =
      "never attached within " + std::to_string(options_.attach_grace.count()) + " ms";
  std::unique_lock lock(reaper_mutex_);
  while (!reaper_cv_.wait_for(lock, period, [this] { return stop_reaper_; })) {
    lock.unlock();
    for (const auto& session : sessions_.RemoveUnattached()) EndSession(session, reason.c_str());
    lock.lock();
  }
}

void NeurondService::BeginShutdown() { shutting_down_ = true; }

void NeurondService::CloseAllSessions() {
  for (const auto& session : sessions_.RemoveAll()) EndSession(session, "daemon shutting down");
}

std::shared_ptr<Session> NeurondService::Authenticate(grpc::ServerContext* context,
                                                      const char* rpc, grpc::Status* denied) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find(kSessionKeyMetadata);
  std::string message;
  if (it == metadata.end()) {
    message = std::string(rpc) + ": no session key (metadata " + kSessionKeyMetadata +
              "); call Hello first";
  } else if (auto session = sessions_.Find(std::string_view(it->second.data(),
                                                            it->second.size()))) {
    return session;
  } else {
    message = std::string(rpc) + ": unknown or ended session key";
  }
  TRNSIM_LOG(Warn, Tool) << "refused " << context->peer() << ": " << message;
  *denied = Unauthenticated(message);
  return nullptr;
}

void NeurondService::Reply(const Session& session, const char* rpc, const trnsim::Status& status,
                           v1::NrtStatus* out) {
  remote::ToProto(status, out);
  if (!status.ok()) {
    TRNSIM_LOG(Warn, Tool) << "session " << session.identity().id << " " << rpc << ": "
                           << StatusCodeName(status.code()) << ": " << status.message();
  }
}

void NeurondService::EndSession(const std::shared_ptr<Session>& session, const char* reason) {
  // Closed before it leaves the table, so Status lists the session until all it held is back.
  Session::Released released = session->Close();
  sessions_.Remove(session->identity().id);
  if (!released.ended) return;  // another caller ended it
  ClosePeers(session->identity().id);
  communicators_.Release(session->identity().id);
  TRNSIM_LOG(Info, Tool) << "session " << session->identity().id << " closed (" << reason
                         << "): released " << released.cores << " cores, "
                         << released.allocations << " allocations (" << released.bytes
                         << " bytes), unloaded " << released.programs << " programs";
}

grpc::Status NeurondService::Hello(grpc::ServerContext* context, const v1::HelloRequest* request,
                                   v1::HelloResponse* response) {
  response->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  response->set_instance_type(device_->instance_spec().type_name);
  response->set_daemon_version(TrnsimVersion());
  response->set_shared_memory(shared_memory_.load());
  if (!options_.token.empty() && !TokensEqual(options_.token, request->token())) {
    std::string message = request->token().empty()
                              ? "Hello: this daemon needs a token (TRNSIM_TOKEN)"
                              : "Hello: wrong token";
    TRNSIM_LOG(Warn, Tool) << "refused " << context->peer() << " (pid " << request->client_pid()
                           << "): " << message;
    return Unauthenticated(message);
  }
  trnsim::Status status;
  if (request->protocol_version() != v1::PROTOCOL_VERSION_CURRENT) {
    status = InvalidError("Hello: the client speaks neurond protocol version " +
                          std::to_string(request->protocol_version()) + ", the daemon version " +
                          std::to_string(v1::PROTOCOL_VERSION_CURRENT));
  } else if (shutting_down_) {
    status = FailureError("Hello: the daemon is shutting down");
  }
  std::unique_ptr<driver::faults::FaultPlan> faults;
  if (status.ok() && !request->faults().empty()) {
    StatusOr<driver::faults::FaultSpec> spec = driver::faults::ParseFaultSpec(request->faults());
    StatusOr<std::unique_ptr<driver::faults::FaultPlan>> plan =
        spec.ok() ? driver::faults::FaultPlan::Create(*spec, device_->instance_spec())
                  : StatusOr<std::unique_ptr<driver::faults::FaultPlan>>(spec.status());
    if (plan.ok()) {
      faults = std::move(*plan);
      faults->SetInjectionObserver(
          [this](const driver::faults::FaultOutcome& fault) { CountInjectedFault(fault); });
    } else {
      status = trnsim::Status(plan.status().code(), "Hello: " + plan.status().message());
    }
  }
  if (status.ok()) {
    SessionIdentity identity;
    identity.client_pid = request->client_pid();
    identity.client_command = ClientText(request->client_command());
    identity.runtime_version = ClientText(request->runtime_version());
    identity.peer = PeerIdentity(context->peer());
    const std::string fault_text =
        faults ? driver::faults::FormatFaultSpec(faults->spec()) : std::string();
    StatusOr<std::shared_ptr<Session>> session =
        sessions_.Open(std::move(identity), std::move(faults));
    if (session.ok()) {
      const SessionIdentity& id = (*session)->identity();
      response->set_session_id(id.id);
      response->set_session_key(id.key);
      TRNSIM_LOG(Info, Tool) << "session " << id.id << " opened: pid " << id.client_pid << " '"
                             << id.client_command << "' (trnsim " << id.runtime_version
                             << ") from " << context->peer()
                             << (fault_text.empty() ? "" : ", fault injection: " + fault_text);
    }
    status = session.status();
  }
  remote::ToProto(status, response->mutable_status());
  if (!status.ok()) {
    TRNSIM_LOG(Warn, Tool) << "refused " << context->peer() << " (pid " << request->client_pid()
                           << "): " << status.message();
  }
  return grpc::Status::OK;
}

grpc::Status NeurondService::Attach(grpc::ServerContext* context, const v1::AttachRequest*,
                                    grpc::ServerWriter<v1::SessionEvent>* writer) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Attach", &denied);
  if (session == nullptr) return denied;
  if (!session->MarkAttached()) {
    TRNSIM_LOG(Warn, Tool) << "session " << session->identity().id
                           << " Attach: refused a second Attach stream";
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "session " + std::to_string(session->identity().id) +
                            " already has an Attach stream");
  }
  v1::SessionEvent event;
  event.set_kind(v1::SessionEvent::KIND_ATTACHED);
  if (!writer->Write(event)) {
    EndSession(session, "attach stream broke");
    return grpc::Status::CANCELLED;
  }
  // Polled rather than notified: gRPC's synchronous API offers no callback when a client
  // vanishes, only IsCancelled().
  // The shutdown flag is read before the session's own end: CloseAllSessions follows
  // BeginShutdown, so a session the shutdown closed still gets its KIND_SHUTTING_DOWN.
  constexpr std::chrono::milliseconds kPoll{50};
  for (;;) {
    const bool closed = session->WaitClosed(kPoll);
    if (shutting_down_) {
      event.set_kind(v1::SessionEvent::KIND_SHUTTING_DOWN);
      event.set_message("neurond is shutting down; the session ends");
      writer->Write(event);
      return grpc::Status::OK;
    }
    if (closed) return grpc::Status::OK;  // Goodbye ended the session
    if (context->IsCancelled()) {
      EndSession(session, "attach stream broke");
      return grpc::Status::CANCELLED;
    }
  }
}

grpc::Status NeurondService::Goodbye(grpc::ServerContext* context, const v1::GoodbyeRequest*,
                                     v1::GoodbyeResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Goodbye", &denied);
  if (session == nullptr) return denied;
  EndSession(session, "goodbye");
  remote::ToProto(trnsim::Status::Ok(), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::AcquireCores(grpc::ServerContext* context,
                                          const v1::CoreRange* request,
                                          v1::AcquireCoresResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "AcquireCores", &denied);
  if (session == nullptr) return denied;
  const int first = request->first_physical_core();
  const int count = request->count();
  trnsim::Status status;
  if (options_.lnc > 1 && (first % options_.lnc != 0 || count % options_.lnc != 0)) {
    status = InvalidError("physical cores [" + std::to_string(first) + ", +" +
                          std::to_string(count) + ") are not whole logical cores of LNC=" +
                          std::to_string(options_.lnc) + " (the daemon's --lnc)");
  } else {
    status = session->AcquireCores(first, count);
  }
  Reply(*session, "AcquireCores", status, response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::ReleaseCores(grpc::ServerContext* context,
                                          const v1::CoreRange* request,
                                          v1::ReleaseCoresResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "ReleaseCores", &denied);
  if (session == nullptr) return denied;
  Reply(*session, "ReleaseCores",
        session->ReleaseCores(request->first_physical_core(), request->count()),
        response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::Status(grpc::ServerContext* context, const v1::StatusRequest*,
                                    v1::StatusResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> caller = Authenticate(context, "Status", &denied);
  if (caller == nullptr) return denied;
  const simulator::InstanceSpec& spec = device_->instance_spec();
  response->set_instance_type(spec.type_name);
  response->set_chip_count(spec.chip_count);
  trnsim::Status status;
  for (int chip = 0; chip < spec.chip_count && status.ok(); ++chip) {
    for (int hbm = 0; hbm < spec.chip->hbm_stacks; ++hbm) {
      StatusOr<driver::HbmUsage> usage = device_->GetHbmUsage(chip, hbm);
      if (!usage.ok()) {
        status = usage.status();
        break;
      }
      v1::HbmStatus* out = response->add_hbm();
      out->set_chip(chip);
      out->set_hbm(hbm);
      out->set_used_bytes(usage->used_bytes);
      out->set_capacity_bytes(usage->capacity_bytes);
    }
  }
  std::vector<uint64_t> owners(spec.PhysicalCores(), 0);
  for (const auto& session : sessions_.List()) {
    const SessionIdentity& id = session->identity();
    for (int core : session->HeldCores()) owners[core] = id.id;
    v1::SessionStatus* out = response->add_sessions();
    out->set_session_id(id.id);
    // Another session's process only to a local caller, or with --show-all-processes.
    if (options_.show_all_processes || session == caller) {
      out->set_client_pid(id.client_pid);
      out->set_client_command(id.client_command);
    }
    out->set_runtime_version(id.runtime_version);
    for (const SessionMemory& memory : session->MemoryUsage()) {
      v1::MemoryUsage* usage = out->add_memory();
      usage->set_chip(memory.chip);
      usage->set_hbm(memory.hbm);
      usage->set_category(remote::ToProto(memory.category));
      usage->set_bytes(memory.bytes);
      usage->set_model_id(memory.model_id);
    }
    out->set_loaded_programs(session->loaded_programs());
    out->set_program_bytes(session->program_bytes());
    out->set_upload_bytes(session->upload_bytes());
    out->set_executions(session->executions());
    out->set_failed_executions(session->failed_executions());
    for (const auto& [code, count] : session->ExecutionStatuses()) {
      v1::StatusCount* entry = out->add_execution_statuses();
      entry->set_code(code);
      entry->set_count(count);
    }
    out->set_executions_running(session->executions_running());
    const int per_chip = spec.chip->physical_cores;
    for (const SessionModel& model : session->Models()) {
      v1::LoadedModel* loaded = out->add_models();
      loaded->set_model_id(model.owner.id);
      loaded->set_name(model.owner.name);
      loaded->set_uuid(model.owner.uuid);
      loaded->set_chip(model.physical_cores.empty() ? 0 : model.physical_cores[0] / per_chip);
      for (int core : model.physical_cores) loaded->add_physical_core(core);
      loaded->set_is_running(model.is_running);
    }
    for (const ExecutionSample& sample : session->RecentExecutions()) {
      v1::ExecutionSample* recent = out->add_recent_executions();
      recent->set_finished_ms(sample.finished_ms);
      recent->set_wall_ns(sample.wall_ns);
      recent->set_simulated_ps(sample.simulated_ps);
      recent->set_ok(sample.ok);
    }
  }
  {
    std::lock_guard lock(counters_mutex_);
    for (int core = 0; core < spec.PhysicalCores(); ++core) {
      v1::CoreStatus* out = response->add_cores();
      out->set_physical_core(core);
      out->set_owner_session_id(owners[core]);
      out->set_executions(core_executions_[core]);
      out->set_busy_ps(core_busy_ps_[core]);
      out->set_busy_wall_ns(core_busy_wall_ns_[core]);
      out->set_flops(core_flops_[core]);
    }
    response->set_executions(executions_);
    for (int chip = 0; chip < spec.chip_count; ++chip) {
      v1::ChipErrorCounters* out = response->add_chip_errors();
      out->set_chip(chip);
      out->set_mem_ecc_uncorrected(chip_errors_[chip].mem_ecc_uncorrected);
      out->set_mem_ecc_repairable_uncorrected(chip_errors_[chip].mem_ecc_repairable_uncorrected);
      out->set_sram_ecc_uncorrected(chip_errors_[chip].sram_ecc_uncorrected);
    }
  }
  response->set_uptime_ms(std::chrono::duration_cast<std::chrono::milliseconds>(Uptime()).count());
  Reply(*caller, "Status", status, response->mutable_status());
  return grpc::Status::OK;
}

}  // namespace trnsim::neurond
