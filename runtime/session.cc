// Session: opening the back end and building the INIT period's shared objects (session.h).
#include "runtime/session.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "common/log.h"
#include "simulator/collective/collective_hub.h"

namespace trnsim::runtime {
namespace {

driver::DeviceOptions RemoteOptions(const DaemonConnection& daemon) {
  driver::DeviceOptions options;
  options.backend = "remote";
  options.address = daemon.address;
  options.token = daemon.token;
  options.tls_ca_file = daemon.tls_ca_file;
  options.tls_server_name = daemon.tls_server_name;
  return options;
}

// Opens the configured back end; a remote one's errors name TRNSIM_DAEMON's address.
StatusOr<std::unique_ptr<driver::Device>> OpenBackend(const driver::DeviceOptions& options) {
  StatusOr<std::unique_ptr<driver::Device>> device = driver::OpenDevice(options);
  if (!device.ok() && options.backend == "remote") {
    return Status(device.status().code(),
                  "TRNSIM_DAEMON=" + options.address + ": " + device.status().message());
  }
  return device;
}

}  // namespace

StatusOr<std::unique_ptr<driver::Device>> OpenDaemonDevice(const Environment& env) {
  TRNSIM_ASSIGN_OR_RETURN(DaemonConnection daemon, ParseDaemonConnection(env));
  return OpenBackend(RemoteOptions(daemon));  // no instance named: the daemon's
}

StatusOr<std::unique_ptr<Session>> Session::Open(const Environment& env,
                                                 profiling::SysTraceRecorder* sys_trace) {
  // With TRNSIM_DAEMON and no TRNSIM_INSTANCE the instance is the daemon's: connect first.
  std::unique_ptr<driver::Device> device;
  if (InstanceComesFromDaemon(env)) {
    TRNSIM_ASSIGN_OR_RETURN(device, OpenDaemonDevice(env));
  }
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config,
                          ParseRuntimeConfig(env, device ? &device->instance_spec() : nullptr));
  // The fault spec travels in the daemon's Hello, which came before the core map was known:
  // say Hello again with it (the first session ends with its device).
  if (device && !config.faults.empty()) device.reset();
  if (!device) {
    driver::DeviceOptions options;
    if (config.backend == "remote") options = RemoteOptions(config.daemon);
    options.backend = config.backend;
    options.instance = config.instance;
    options.faults = config.faults;
    options.host_threads = config.host_threads;
    TRNSIM_ASSIGN_OR_RETURN(device, OpenBackend(options));
  }

  auto session = std::unique_ptr<Session>(new Session());
  session->config = std::move(config);
  const RuntimeConfig& cfg = session->config;
  session->core_map = std::make_unique<CoreMap>(cfg);
  CoreLocation first = session->core_map->Locate(0);
  Status acquired = device->AcquireCores(first.first_physical, cfg.visible_vnc_count * cfg.lnc);
  if (!acquired.ok()) {
    return FailureError("Logical Neuron Core(s) not available - Requested: " +
                        session->VisibleText() + " (" + acquired.message() + ")");
  }
  session->device = std::move(device);  // from here on ~Session releases the cores
  session->vnc_bytes_used = std::make_unique<std::atomic<uint64_t>[]>(cfg.visible_vnc_count);
  session->core_claims = std::make_unique<CoreClaims>();
  // A model goes at its last unpin (model_registry.h); the executor then forgets its record.
  Session* self = session.get();
  session->models = std::make_unique<model::ModelRegistry>(
      self->device.get(), cfg, *self->core_map, self->vnc_bytes_used.get(), self->core_claims.get(),
      [self](const model::Model* model, uint64_t model_id) {
        if (self->executor != nullptr) self->executor->Forget(model, model_id);
      });
  session->read_options.validate_hash = cfg.validate_hash;

  debug::DebugStreamOptions debug_options;
  debug_options.buffer_events = size_t(cfg.debug_stream_events);
  debug_options.output_dir = cfg.debug_output_dir;
  session->debug_streams =
      std::make_unique<debug::DebugStreams>(cfg.visible_vnc_count, debug_options);
  if (session->debug_streams->builtin_consumer()) {
    TRNSIM_LOG(Info, Nrt) << "debug streams: writing device prints to " << debug_options.output_dir
                          << " (NEURON_RT_DEBUG_OUTPUT_DIR)";
  }

  execution::ExecutorOptions exec_options;
  exec_options.host_timeout = std::chrono::seconds(cfg.exec_timeout_s);
  exec_options.report = cfg.exec_report;
  exec_options.stochastic_rounding = cfg.stochastic_rounding;
  exec_options.rounding_seed = cfg.rounding_seed;
  exec_options.check_numerics = cfg.check_numerics;
  exec_options.instance_name = cfg.instance->type_name;
  exec_options.sys_trace = sys_trace;
  exec_options.core_claims = session->core_claims.get();
  exec_options.debug_streams = session->debug_streams.get();
  session->executor = std::make_unique<execution::Executor>(session->device.get(),
                                                            *cfg.instance->chip, exec_options);

  session->host_collectives = std::make_unique<collectives::HostCollectives>(
      session->device.get(), cfg.root_comm_id, exec_options.host_timeout);
  collectives::SendRecv::Options send_recv_options;
  send_recv_options.enabled = cfg.send_recv_enabled;
  // NEURON_RT_EXEC_TIMEOUT bounds a connect or transfer (capped at ~31 years: no overflow).
  send_recv_options.timeout =
      cfg.exec_timeout_s > 0
          ? std::chrono::milliseconds(std::min<int64_t>(cfg.exec_timeout_s, 1'000'000'000) * 1000)
          : simulator::collective::kDefaultCollectiveTimeout;
  send_recv_options.total_lnc_count = int(cfg.total_vnc);
  session->send_recv =
      std::make_unique<collectives::SendRecv>(session->device.get(), send_recv_options);

  async::ExecutionUnitQueues::Options queue_options;
  queue_options.lnc_count = int(cfg.visible_vnc_count);
  session->async_queues = std::make_shared<async::ExecutionUnitQueues>(queue_options);
  if (cfg.implicit_async_depth > 0) {
    queue_options.depth = size_t(cfg.implicit_async_depth);
    queue_options.fatal_disables_unit = false;  // nrt_execute reports each failure by itself
    session->implicit_queues = std::make_shared<async::ExecutionUnitQueues>(queue_options);
    TRNSIM_LOG(Info, Nrt) << "implicit async mode: up to " << cfg.implicit_async_depth
                          << " executions in flight per logical core";
  }
  return session;
}

void Session::ShutDown() {
  if (implicit_queues) implicit_queues->Shutdown();  // idempotent; normally done already
  if (async_queues) async_queues->Shutdown();
  async_queues.reset();
  implicit_queues.reset();
  executor.reset();          // no execution runs (the lifecycle's gate is empty)
  debug_streams.reset();     // closes every client's descriptor; the executor delivered last
  host_collectives.reset();  // nor a host collective
  if (send_recv) send_recv->CloseAll();  // before the tensors its transfers name are freed
  send_recv.reset();
  models.reset();  // unloads every model (nothing pins one any more)
  core_claims.reset();
}

Session::~Session() {
  if (device == nullptr) return;
  CoreLocation first = core_map->Locate(0);
  device->ReleaseCores(first.first_physical, config.visible_vnc_count * config.lnc);
}

std::string Session::VisibleText() const {
  int last = config.first_visible_vnc + config.visible_vnc_count - 1;
  return std::to_string(config.first_visible_vnc) +
         (config.visible_vnc_count > 1 ? "-" + std::to_string(last) : "");
}

}  // namespace trnsim::runtime
