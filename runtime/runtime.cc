// Runtime: lifecycle, instance queries, models, execution and profiling. Tensors and tensor sets
// are in runtime_tensors.cc, collectives in runtime_collectives.cc, async queues in
// runtime_async.cc.
#include "runtime/runtime.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <new>

#include "common/log.h"
#include "runtime/profiling/inspect_env.h"
#include "simulator/collective/collective_hub.h"

namespace trnsim::runtime {
namespace {

constexpr uint32_t kFrameworkTypeFirst = 1;        // NRT_FRAMEWORK_TYPE_NO_FW
constexpr uint32_t kFrameworkTypeLast = 5;         // NRT_FRAMEWORK_TYPE_PRECHECK
constexpr int64_t kMaxImplicitAsyncInflight = 63;  // AWS runtime 2.23+
constexpr int64_t kMaxDebugStreamEvents = int64_t{1} << 24;

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
  driver::DeviceOptions options;
  options.backend = "remote";
  options.instance = nullptr;
  options.address = std::string(env.Get(EnvVar::kDaemon));
  TRNSIM_ASSIGN_OR_RETURN(options.token, DaemonToken(env));
  options.tls_ca_file = std::string(env.Get(EnvVar::kTlsCa));
  options.tls_server_name = std::string(env.Get(EnvVar::kTlsServerName));
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
  if (self.state_ == State::kInit) {
    self.state_ = State::kChild;
    (void)self.device_.release();
    (void)self.core_map_.release();
    (void)self.vnc_bytes_used_.release();
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
  TRNSIM_ASSIGN_OR_RETURN(bool validate_hash, env.GetBool(EnvVar::kValidateHash));
  TRNSIM_ASSIGN_OR_RETURN(int64_t exec_timeout_s, env.GetInt(EnvVar::kExecTimeout));
  if (exec_timeout_s < 0) {
    return InvalidError("NEURON_RT_EXEC_TIMEOUT=" + std::to_string(exec_timeout_s) +
                        " is not a number of seconds (0: no limit)");
  }
  TRNSIM_ASSIGN_OR_RETURN(bool exec_report, env.GetBool(EnvVar::kExecReport));
  TRNSIM_ASSIGN_OR_RETURN(bool send_recv_enabled, env.GetBool(EnvVar::kAsyncSendRecvEnabled));
  if (env.Get(EnvVar::kAsyncSendRecvBootstrapPort) != "") {
    TRNSIM_ASSIGN_OR_RETURN(int64_t port, env.GetInt(EnvVar::kAsyncSendRecvBootstrapPort));
    if (port < 1 || port > 65535) {
      return InvalidError("NEURON_RT_ASYNC_SENDRECV_BOOTSTRAP_PORT=" + std::to_string(port) +
                          " is not a TCP port (1..65535)");
    }
  }
  TRNSIM_ASSIGN_OR_RETURN(bool stochastic, env.GetBool(EnvVar::kStochasticRounding));
  TRNSIM_ASSIGN_OR_RETURN(int64_t rounding_seed, env.GetInt(EnvVar::kStochasticSeed));
  TRNSIM_ASSIGN_OR_RETURN(bool fail_on_nan, env.GetBool(EnvVar::kFailOnNan));
  std::string verbosity(env.Get(EnvVar::kNumericalErrorsVerbosity));
  std::transform(verbosity.begin(), verbosity.end(), verbosity.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (verbosity != "critical" && verbosity != "none") {
    return InvalidError("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY='" +
                        std::string(env.Get(EnvVar::kNumericalErrorsVerbosity)) +
                        "' is neither critical nor none");
  }
  TRNSIM_ASSIGN_OR_RETURN(int64_t max_inflight, env.GetInt(EnvVar::kAsyncExecMaxInflight));
  if (max_inflight < 0) {
    return InvalidError("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=" +
                        std::to_string(max_inflight) + " is not a number of requests");
  }
  if (max_inflight > kMaxImplicitAsyncInflight) {
    TRNSIM_LOG(Warn, Nrt) << "NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=" << max_inflight
                          << " is above the cap; using " << kMaxImplicitAsyncInflight;
    max_inflight = kMaxImplicitAsyncInflight;
  }
  TRNSIM_ASSIGN_OR_RETURN(int64_t debug_buffer, env.GetInt(EnvVar::kDebugStreamBufferSize));
  if (debug_buffer < 1 || debug_buffer > kMaxDebugStreamEvents) {
    return InvalidError("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE=" + std::to_string(debug_buffer) +
                        " is not a number of events (1.." + std::to_string(kMaxDebugStreamEvents) +
                        ")");
  }
  TRNSIM_ASSIGN_OR_RETURN(profiling::InspectSettings inspect,
                          profiling::ParseInspectSettings(env, uint32_t(config.visible_vnc_count)));

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
  models_ = std::make_unique<model::ModelRegistry>(device_.get(), config_, *core_map_,
                                                   vnc_bytes_used_.get());
  read_options_.validate_hash = validate_hash;
  execution::ExecutorOptions exec_options;
  exec_options.host_timeout = std::chrono::seconds(exec_timeout_s);
  exec_options.report = exec_report;
  exec_options.stochastic_rounding = stochastic;
  exec_options.rounding_seed = uint64_t(rounding_seed);
  exec_options.check_numerics = fail_on_nan || verbosity == "critical";
  exec_options.instance_name = config_.instance->type_name;
  exec_options.sys_trace = &sys_trace_;
  debug::DebugStreamOptions debug_options;
  debug_options.buffer_events = size_t(debug_buffer);
  debug_options.output_dir = std::string(env.Get(EnvVar::kDebugOutputDir));
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
  if (inspect.CapturesSystemTrace() || inspect.CapturesDeviceProfiles()) {
    std::lock_guard<std::mutex> profiling_lock(profiling_mutex_);
    BeginInspectLocked(std::move(inspect), /*from_environment=*/true);
  }
  host_collectives_ = std::make_unique<collectives::HostCollectives>(
      device_.get(), config_.root_comm_id, exec_options.host_timeout);
  collectives::SendRecv::Options send_recv_options;
  send_recv_options.enabled = send_recv_enabled;
  // NEURON_RT_EXEC_TIMEOUT bounds a connect or transfer (capped at ~31 years: no overflow).
  send_recv_options.timeout =
      exec_timeout_s > 0
          ? std::chrono::milliseconds(std::min<int64_t>(exec_timeout_s, 1'000'000'000) * 1000)
          : simulator::collective::kDefaultCollectiveTimeout;
  send_recv_options.total_lnc_count = int(config_.total_vnc);
  send_recv_ = std::make_unique<collectives::SendRecv>(device_.get(), send_recv_options);
  async::ExecutionUnitQueues::Options queue_options;
  queue_options.lnc_count = int(config_.visible_vnc_count);
  async_queues_ = std::make_shared<async::ExecutionUnitQueues>(queue_options);
  implicit_async_depth_ = uint32_t(max_inflight);
  if (max_inflight > 0) {
    queue_options.depth = size_t(max_inflight);
    queue_options.fatal_disables_unit = false;  // nrt_execute reports each failure by itself
    implicit_queues_ = std::make_shared<async::ExecutionUnitQueues>(queue_options);
    TRNSIM_LOG(Info, Nrt) << "implicit async mode: up to " << max_inflight
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
  executor_.reset();       // no execution runs: Execute holds the lock shared
  debug_streams_.reset();  // closes every client's descriptor; the executor delivered last
  host_collectives_.reset();  // nor a host collective: they hold it shared too
  send_recv_->CloseAll();     // before the tensors its transfers name are freed
  send_recv_.reset();
  models_.reset();  // unloads every model
  cc_contexts_.clear();
  for (TensorSet* set : tensor_sets_) delete set;
  tensor_sets_.clear();
  for (Tensor* tensor : tensors_) delete tensor;  // device memory goes back with the storage
  tensors_.clear();
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

StatusOr<model::Model*> Runtime::LoadModel(std::span<const uint8_t> neff_bytes, int vnc,
                                           int vnc_count) {
  return LoadBytes(neff_bytes, vnc, vnc_count, std::nullopt);
}

StatusOr<model::Model*> Runtime::LoadBytes(std::span<const uint8_t> neff_bytes, int vnc,
                                           int vnc_count,
                                           std::optional<driver::CollectiveMembership> rank) {
  const uint64_t started_ns = profiling::SysTraceRecorder::NowNs();
  neff::ReadOptions options;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    options = read_options_;
  }
  if (neff_bytes.empty()) return InvalidError("the NEFF is 0 bytes");
  StatusOr<neff::Neff> neff = neff::ReadNeff(neff_bytes, options);
  if (!neff.ok()) {
    // A load that fails before it has a core is traced on the core it asked for, if any.
    if (vnc >= 0 && sys_trace_.Wants(profiling::SysTraceType::kModelLoad, uint32_t(vnc))) {
      profiling::SysTraceData stop;
      stop.status = StatusCodeName(neff.status().code());
      sys_trace_.RecordSpan(profiling::SysTraceType::kModelLoad, uint32_t(vnc), started_ns,
                            profiling::SysTraceRecorder::NowNs(), {}, std::move(stop));
    }
    return neff.status();
  }
  return LoadParsed(std::move(*neff), vnc, vnc_count, started_ns, std::move(rank));
}

StatusOr<model::Model*> Runtime::LoadModel(neff::Neff neff, int vnc, int vnc_count) {
  return LoadParsed(std::move(neff), vnc, vnc_count, profiling::SysTraceRecorder::NowNs(),
                    std::nullopt);
}

StatusOr<model::Model*> Runtime::LoadParsed(neff::Neff neff, int vnc, int vnc_count,
                                            uint64_t started_ns,
                                            std::optional<driver::CollectiveMembership> rank) {
  const std::string name = neff.header.name;
  StatusOr<model::Model*> loaded = [&]() -> StatusOr<model::Model*> {
    std::unique_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    TRNSIM_ASSIGN_OR_RETURN(model::Model * model, models_->Load(std::move(neff), vnc, vnc_count));
    if (rank) {
      model->SetCollectiveRank(std::move(*rank));  // before anyone else can see the model
    } else if (model->programs().has_collectives()) {
      const int where = model->vnc();
      Status unloaded = models_->Unload(model);
      if (!unloaded.ok()) {
        TRNSIM_LOG(Error, Nrt) << "unloading: " << unloaded.message();
      }
      return InvalidError("model '" + name + "' on logical core " + std::to_string(where) +
                          ": the NEFF holds collective instructions; load it with "
                          "nrt_load_collectives, giving its rank and world size");
    }
    return model;
  }();
  const int core = loaded.ok() ? (*loaded)->vnc() : vnc;
  if (core >= 0 && sys_trace_.Wants(profiling::SysTraceType::kModelLoad, uint32_t(core))) {
    profiling::SysTraceData start;
    start.model_name = name;
    profiling::SysTraceData stop;
    stop.model_name = name;
    if (loaded.ok() && (*loaded)->collective_rank()) {
      start.worker_gid = stop.worker_gid = int64_t((*loaded)->collective_rank()->rank);
    }
    stop.status = StatusCodeName(loaded.ok() ? StatusCode::kOk : loaded.status().code());
    sys_trace_.RecordSpan(profiling::SysTraceType::kModelLoad, uint32_t(core), started_ns,
                          profiling::SysTraceRecorder::NowNs(), std::move(start), std::move(stop));
  }
  return loaded;
}

StatusOr<model::Model*> Runtime::LoadCollectiveModel(std::span<const uint8_t> neff_bytes, int vnc,
                                                     int vnc_count, uint32_t rank,
                                                     uint32_t world_size) {
  if (world_size == 0 || rank >= world_size) {
    return InvalidError("rank " + std::to_string(rank) + " is not within a world of " +
                        std::to_string(world_size));
  }
  std::string root_comm_id;
  {
    std::shared_lock lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
    root_comm_id = config_.root_comm_id;
  }
  TRNSIM_RETURN_IF_ERROR(collectives::CheckRootCommId(root_comm_id, "a collective NEFF"));
  TRNSIM_ASSIGN_OR_RETURN(model::Model * model, LoadBytes(neff_bytes, vnc, vnc_count,
                                                          driver::CollectiveMembership{
                                                              root_comm_id, rank, world_size, 0}));
  TRNSIM_LOG(Info, Nrt) << "model '" << model->name() << "' on logical core " << model->vnc()
                        << " is rank " << rank << " of " << world_size << " in communicator '"
                        << root_comm_id << "'";
  return model;
}

Status Runtime::UnloadModel(model::Model* model) {
  std::unique_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_RETURN_IF_ERROR(models_->Check(model));
  const uint64_t model_id = model->id();  // `model` is destroyed by Unload
  TRNSIM_RETURN_IF_ERROR(models_->Unload(model));
  executor_->Forget(model, model_id);
  return Status::Ok();
}

StatusOr<ModelInfo> Runtime::GetModelInfo(const model::Model* model) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_RETURN_IF_ERROR(models_->Check(model));
  return ModelInfo{model->vnc(), model->vnc_count(), model->instance_count(), model->id()};
}

StatusOr<std::vector<neff::TensorDecl>> Runtime::GetModelTensors(const model::Model* model) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_RETURN_IF_ERROR(models_->Check(model));
  return model->tensors();
}

Status Runtime::CheckExecution(const model::Model* model, const TensorSet* inputs,
                               const TensorSet* outputs) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_RETURN_IF_ERROR(models_->Check(model));
  TRNSIM_RETURN_IF_ERROR(CheckSet(inputs));
  TRNSIM_RETURN_IF_ERROR(CheckSet(outputs));
  return model->CheckExecutable();
}

StatusOr<execution::IoBinding> Runtime::BindExecution(const model::Model* model,
                                                      const TensorSet* inputs,
                                                      const TensorSet* outputs, int repeat) {
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_RETURN_IF_ERROR(models_->Check(model));
  TRNSIM_RETURN_IF_ERROR(CheckSet(inputs));
  TRNSIM_RETURN_IF_ERROR(CheckSet(outputs));
  TRNSIM_RETURN_IF_ERROR(model->CheckExecutable());
  if (repeat < 1) {
    return InvalidError("repeat count " + std::to_string(repeat) + " is not a positive number");
  }
  StatusOr<execution::IoBinding> binding = [&] {
    std::shared_lock objects(objects_mutex_);
    return execution::IoBinding::Bind(model->tensors(), *inputs, *outputs);
  }();
  if (!binding.ok()) {
    return Status(binding.status().code(), "model '" + model->name() + "' on logical core " +
                                               std::to_string(model->vnc()) + ": " +
                                               binding.status().message());
  }
  return binding;
}

namespace {

// The tensors bound to the model's declared outputs, once per output name.
std::vector<const void*> OutputTensors(const model::Model& model,
                                       const execution::IoBinding& binding) {
  std::vector<const void*> outputs;
  for (const neff::TensorDecl& declared : model.tensors()) {
    if (declared.usage != neff::TensorUsage::kOutput) continue;
    if (const Tensor* tensor = binding.Find(declared.name)) outputs.push_back(tensor);
  }
  return outputs;
}

}  // namespace

Status Runtime::Execute(const model::Model* model, const TensorSet* inputs,
                        const TensorSet* outputs, int repeat) {
  const uint64_t started_ns = profiling::SysTraceRecorder::NowNs();
  std::shared_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(execution::IoBinding binding,
                          BindExecution(model, inputs, outputs, repeat));
  // The nrt_execute span is recorded once the call is valid; its start time is the call's.
  const uint32_t core = uint32_t(model->vnc());
  const int64_t worker_gid =
      model->collective_rank() ? int64_t(model->collective_rank()->rank) : int64_t{-1};
  uint64_t tracking_id = 0;
  if (sys_trace_.Wants(profiling::SysTraceType::kNrtExecute, core)) {
    profiling::SysTraceData start;
    start.model_name = model->name();
    start.repeat = repeat;
    start.worker_gid = worker_gid;
    tracking_id = sys_trace_.RecordStart(profiling::SysTraceType::kNrtExecute, core, started_ns,
                                         std::move(start));
  }
  Status ran = executor_->Execute(*model, core_map_->Locate(model->vnc()),
                                  models_->scratchpad(model->vnc()), binding, repeat);
  output_completions_.Complete(OutputTensors(*model, binding));
  if (tracking_id != 0) {
    profiling::SysTraceData stop;
    stop.model_name = model->name();
    stop.status = StatusCodeName(ran.code());
    stop.worker_gid = worker_gid;
    sys_trace_.RecordStop(profiling::SysTraceType::kNrtExecute, core, tracking_id,
                          profiling::SysTraceRecorder::NowNs(), std::move(stop));
  }
  return ran;
}

StatusOr<execution::ExecutionRecord> Runtime::GetLastExecution(const model::Model* model) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  TRNSIM_RETURN_IF_ERROR(models_->Check(model));
  std::optional<execution::ExecutionRecord> record = executor_->Last(model);
  if (!record) {
    return InvalidError("model '" + model->name() +
                        "' has not been executed since it was "
                        "loaded");
  }
  return *record;
}

}  // namespace trnsim::runtime
