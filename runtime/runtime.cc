// Runtime: the lifecycle (Init, Close, the fork handler, the lock and the gate) and the instance
// queries. The entry points of each concern are in a file of their own: runtime_tensors.cc,
// runtime_models.cc, runtime_execute.cc, runtime_async.cc, runtime_collectives.cc,
// runtime_profiling.cc, runtime_debug.cc.
#include "runtime/runtime.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <new>
#include <utility>

#include "common/log.h"
#include "runtime/profiling/inspect_env.h"
#include "simulator/collective/collective_hub.h"

namespace trnsim::runtime {
namespace {

constexpr uint32_t kFrameworkTypeFirst = 1;        // NRT_FRAMEWORK_TYPE_NO_FW
constexpr uint32_t kFrameworkTypeLast = 5;         // NRT_FRAMEWORK_TYPE_PRECHECK

std::string VisibleText(const RuntimeConfig& config) {
  int last = config.first_visible_vnc + config.visible_vnc_count - 1;
  return std::to_string(config.first_visible_vnc) +
         (config.visible_vnc_count > 1 ? "-" + std::to_string(last) : "");
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

// Connects to TRNSIM_DAEMON without naming an instance type: the device reports the daemon's.
StatusOr<std::unique_ptr<driver::Device>> OpenDaemonDevice(const Environment& env) {
  TRNSIM_ASSIGN_OR_RETURN(DaemonConnection daemon, ParseDaemonConnection(env));
  driver::DeviceOptions options;
  options.backend = "remote";
  options.instance = nullptr;
  options.address = std::move(daemon.address);
  options.token = std::move(daemon.token);
  options.tls_ca_file = std::move(daemon.tls_ca_file);
  options.tls_server_name = std::move(daemon.tls_server_name);
  return OpenBackend(options);
}

}  // namespace

Runtime& Runtime::Get() {
  // Never destroyed: libnrt may be called from other libraries' static destructors.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

Runtime::Runtime() {
  // Hold the lock across fork() so the child never inherits it mid-update from another thread.
  pthread_atfork([] { Get().mutex_.lock(); }, [] { Get().mutex_.unlock(); }, &Runtime::OnForkChild);
}

void Runtime::OnForkChild() {
  Runtime& self = Get();
  // The child got a copy of the parent's state but shares no device with it. It must not free
  // anything the parent holds; everything it owns is abandoned.
  // The lock taken in the prepare handler belongs to the parent's thread id, which a
  // pthread rwlock will not let the child release: start the child with a fresh one.
  new (&self.mutex_) std::shared_mutex();
  // A parent's execution may have held the object table's lock (it takes it without mutex_).
  new (&self.objects_mutex_) std::shared_mutex();
  if (self.state_ == State::kInit) {
    self.state_ = State::kChild;
    (void)self.device_.release();
    (void)self.core_map_.release();
    (void)self.vnc_bytes_used_.release();
    (void)self.core_claims_.release();  // its mutexes may be held by the parent's threads
    // Leaked: destroying the tensors would free the parent's memory.
    new std::unordered_map<const Tensor*, std::shared_ptr<Tensor>>(std::move(self.tensors_));
    self.tensors_.clear();
    self.tensor_sets_.clear();
    self.models_->Abandon();
    (void)self.models_.release();
    (void)self.executor_.release();  // its mutexes may be held by the parent's threads
    (void)self.debug_streams_.release();  // likewise; its descriptors are the parent's too
  }
}

Status Runtime::Init(uint32_t framework, const std::string& framework_version,
                     const std::string& fal_version) {
  std::unique_lock lock(mutex_);
  if (state_ == State::kInit) return Status::Ok();  // configuration stays frozen
  Environment env = Environment::FromProcess();
  ConfigureLogging(env);
  if (state_ == State::kChild) {
    return FailureError(
        "this process was forked from one that initialised the runtime; a "
        "forked child cannot use it");
  }
  if (framework < kFrameworkTypeFirst || framework > kFrameworkTypeLast) {
    return InvalidError("framework type " + std::to_string(framework) +
                        " is not a valid nrt_framework_type_t");
  }
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
    options.backend = config.backend;
    options.instance = config.instance;
    options.address = config.daemon_address;
    options.token = config.token;
    options.tls_ca_file = config.tls_ca_file;
    options.tls_server_name = config.tls_server_name;
    options.faults = config.faults;
    TRNSIM_ASSIGN_OR_RETURN(device, OpenBackend(options));
  }

  auto core_map = std::make_unique<CoreMap>(config);
  CoreLocation first = core_map->Locate(0);
  Status acquired =
      device->AcquireCores(first.first_physical, config.visible_vnc_count * config.lnc);
  if (!acquired.ok()) {
    return FailureError("Logical Neuron Core(s) not available - Requested: " + VisibleText(config) +
                        " (" + acquired.message() + ")");
  }

  config_ = config;
  core_map_ = std::move(core_map);
  device_ = std::move(device);
  vnc_bytes_used_ = std::make_unique<std::atomic<uint64_t>[]>(config.visible_vnc_count);
  core_claims_ = std::make_unique<CoreClaims>();
  // A model goes at its last unpin (model_registry.h); the executor then forgets its record.
  models_ = std::make_unique<model::ModelRegistry>(
      device_.get(), config_, *core_map_, vnc_bytes_used_.get(), core_claims_.get(),
      [this](const model::Model* model, uint64_t model_id) {
        if (executor_ != nullptr) executor_->Forget(model, model_id);
      });
  read_options_.validate_hash = config_.validate_hash;
  execution::ExecutorOptions exec_options;
  exec_options.host_timeout = std::chrono::seconds(config_.exec_timeout_s);
  exec_options.report = config_.exec_report;
  exec_options.stochastic_rounding = config_.stochastic_rounding;
  exec_options.rounding_seed = config_.rounding_seed;
  exec_options.check_numerics = config_.check_numerics;
  exec_options.instance_name = config_.instance->type_name;
  exec_options.sys_trace = &sys_trace_;
  exec_options.core_claims = core_claims_.get();
  debug::DebugStreamOptions debug_options;
  debug_options.buffer_events = size_t(config_.debug_stream_events);
  debug_options.output_dir = config_.debug_output_dir;
  debug_streams_ = std::make_unique<debug::DebugStreams>(config_.visible_vnc_count, debug_options);
  if (debug_streams_->builtin_consumer()) {
    TRNSIM_LOG(Info, Nrt) << "debug streams: writing device prints to " << debug_options.output_dir
                          << " (NEURON_RT_DEBUG_OUTPUT_DIR)";
  }
  exec_options.debug_streams = debug_streams_.get();
  executor_ =
      std::make_unique<execution::Executor>(device_.get(), *config_.instance->chip, exec_options);
  if (sys_trace_.capturing()) (void)sys_trace_.Stop();  // not expected: Close stops it
  // NEURON_RT_INSPECT_ENABLE: the session runs from here to nrt_inspect_stop or Close.
  if (config_.inspect.CapturesSystemTrace() || config_.inspect.CapturesDeviceProfiles()) {
    std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
    BeginInspectLocked(config_.inspect, /*from_environment=*/true);
  }
  host_collectives_ = std::make_unique<collectives::HostCollectives>(
      device_.get(), config_.root_comm_id, exec_options.host_timeout);
  collectives::SendRecv::Options send_recv_options;
  send_recv_options.enabled = config_.send_recv_enabled;
  // NEURON_RT_EXEC_TIMEOUT bounds a connect or transfer (capped at ~31 years: no overflow).
  send_recv_options.timeout =
      config_.exec_timeout_s > 0
          ? std::chrono::milliseconds(std::min<int64_t>(config_.exec_timeout_s, 1'000'000'000) *
                                      1000)
          : simulator::collective::kDefaultCollectiveTimeout;
  send_recv_options.total_lnc_count = int(config_.total_vnc);
  send_recv_ = std::make_unique<collectives::SendRecv>(device_.get(), send_recv_options);
  async::ExecutionUnitQueues::Options queue_options;
  queue_options.lnc_count = int(config_.visible_vnc_count);
  async_queues_ = std::make_shared<async::ExecutionUnitQueues>(queue_options);
  implicit_async_depth_ = config_.implicit_async_depth;
  if (config_.implicit_async_depth > 0) {
    queue_options.depth = size_t(config_.implicit_async_depth);
    queue_options.fatal_disables_unit = false;  // nrt_execute reports each failure by itself
    implicit_queues_ = std::make_shared<async::ExecutionUnitQueues>(queue_options);
    TRNSIM_LOG(Info, Nrt) << "implicit async mode: up to " << config_.implicit_async_depth
                          << " executions in flight per logical core";
  }
  state_ = State::kInit;
  TRNSIM_LOG(Info, Nrt) << "initialised on emulated " << config.instance->type_name
                        << ", LNC=" << config.lnc << ", logical cores " << VisibleText(config)
                        << " (framework " << framework << " '" << framework_version << "', fal '"
                        << fal_version << "')";
  return Status::Ok();
}

void Runtime::Close() {
  ShutDownAsync();  // queued requests complete first; they need mutex_ shared
  std::unique_lock lock(mutex_);
  if (state_ != State::kInit) return;
  // No call can enter now; executions and host collectives still running finish first.
  gate_.WaitUntilEmpty();
  {
    std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
    EndInspectLocked();  // writes its ntrace.json
    if (runtime_trace_.running()) {
      (void)runtime_trace_.End();  // nrt_trace_start without nrt_trace_stop: discarded
      TRNSIM_LOG(Warn, Nrt) << "nrt_close: the trace nrt_trace_start began was not stopped; "
                               "it is discarded";
    }
  }
  if (sys_trace_.capturing()) (void)sys_trace_.Stop();  // its rings go with the runtime
  async_queues_.reset();  // shut down: nothing queued, nothing running
  implicit_queues_.reset();
  implicit_async_depth_ = 0;
  executor_.reset();       // no execution runs (gate_ is empty)
  debug_streams_.reset();  // closes every client's descriptor; the executor delivered last
  host_collectives_.reset();  // nor a host collective
  send_recv_->CloseAll();     // before the tensors its transfers name are freed
  send_recv_.reset();
  models_.reset();  // unloads every model (nothing pins one any more)
  core_claims_.reset();
  {
    std::unique_lock objects(objects_mutex_);
    cc_contexts_.clear();
    for (TensorSet* set : tensor_sets_) delete set;
    tensor_sets_.clear();
    tensors_.clear();  // device memory goes back with the storage
  }
  output_completions_.Clear();  // waiters on those tensors return NRT_INVALID_HANDLE
  CoreLocation first = core_map_->Locate(0);
  device_->ReleaseCores(first.first_physical, config_.visible_vnc_count * config_.lnc);
  device_.reset();
  core_map_.reset();
  vnc_bytes_used_.reset();
  state_ = State::kClosed;
  TRNSIM_LOG(Info, Nrt) << "closed";
}

Status Runtime::CheckInitializedLocked() const {
  switch (state_) {
    case State::kInit:
      return Status::Ok();
    case State::kStart:
      return Status(StatusCode::kUninitialized, "the runtime is not initialised: call nrt_init");
    case State::kClosed:
      return Status(StatusCode::kClosed, "the runtime was closed by nrt_close");
    case State::kChild:
      return FailureError("a process forked from an initialised runtime cannot use it");
  }
  return FailureError("unknown runtime state");
}

StatusOr<OperationGate::Ticket> Runtime::Enter() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return gate_.Enter();
}

Status Runtime::CheckInitialized() const {
  std::shared_lock lock(mutex_);
  return CheckInitializedLocked();
}

StatusOr<RuntimeConfig> Runtime::CurrentConfig() const {
  {
    std::shared_lock lock(mutex_);
    if (state_ == State::kInit) return config_;
  }
  Environment env = Environment::FromProcess();
  if (!InstanceComesFromDaemon(env)) return ParseRuntimeConfig(env);
  // Before nrt_init, the daemon's instance type costs one short session.
  TRNSIM_ASSIGN_OR_RETURN(std::unique_ptr<driver::Device> probe, OpenDaemonDevice(env));
  return ParseRuntimeConfig(env, &probe->instance_spec());
}

StatusOr<uint32_t> Runtime::TotalVncCount() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  return static_cast<uint32_t>(config.total_vnc);
}

StatusOr<uint32_t> Runtime::VisibleVncCount() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  return static_cast<uint32_t>(config.visible_vnc_count);
}

StatusOr<uint32_t> Runtime::LogicalCoreSize() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  return static_cast<uint32_t>(config.lnc);
}

StatusOr<InstanceInfo> Runtime::GetInstanceInfo() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  InstanceInfo info;
  info.family = config.instance->nrt_family;
  info.size = config.instance->nrt_size;
  info.arch_name = config.instance->chip->core_arch;
  info.device_revision = config.instance->chip->device_revision;
  return info;
}

StatusOr<uint32_t> Runtime::HostDeviceId(int neuron_device) const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  if (neuron_device < 0 || neuron_device >= config.instance->chip_count) {
    return InvalidError("no Neuron device " + std::to_string(neuron_device) + " (the " +
                        config.instance->type_name + " has " +
                        std::to_string(config.instance->chip_count) + ")");
  }
  // trnsim runs no containers that remap devices: runtime and host ids coincide.
  return static_cast<uint32_t>(neuron_device);
}

StatusOr<std::vector<uint32_t>> Runtime::RoutingIdMap() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig());
  std::vector<uint32_t> map(config.instance->chip_count);
  for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<uint32_t>(i);  // rid == host id
  return map;
}

}  // namespace trnsim::runtime
