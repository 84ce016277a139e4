#include "tools/neurond/session.h"

#include <algorithm>
#include <utility>

#include "driver/sim/program_footprint.h"

namespace trnsim::neurond {

Session::Session(SessionIdentity identity, driver::Device* device, SessionLimits limits,
                 std::unique_ptr<driver::faults::FaultPlan> faults)
    : identity_(std::move(identity)),
      device_(device),
      limits_(limits),
      opened_at_(std::chrono::steady_clock::now()),
      faults_(std::move(faults)),
      cores_held_(device->instance_spec().PhysicalCores(), false) {}

Session::~Session() { Close(); }

Status Session::CheckOpen() const {
  if (closed_) return FailureError("session " + std::to_string(identity_.id) + " has ended");
  return Status::Ok();
}

namespace {

// Whether `held` + `bytes` stays within `limit` (0: no limit), without overflowing.
bool Fits(uint64_t held, uint64_t bytes, uint64_t limit) {
  return limit == 0 || (bytes <= limit && held <= limit - bytes);
}

}  // namespace

Status Session::CheckLimit(uint64_t bytes, const std::string& what, bool program) const {
  const uint64_t held_programs = program_bytes_ + upload_bytes_;
  const uint64_t held = memory_bytes_ + held_programs;
  const char* flag = nullptr;
  uint64_t limit = 0;
  uint64_t counted = 0;
  if (!Fits(held, bytes, limits_.memory_bytes)) {
    flag = "--max-session-memory";
    limit = limits_.memory_bytes;
    counted = held;
  } else if (program && !Fits(held_programs, bytes, limits_.program_bytes)) {
    flag = "--max-session-program-memory";
    limit = limits_.program_bytes;
    counted = held_programs;
  } else {
    return Status::Ok();
  }
  return ResourceError("session " + std::to_string(identity_.id) + " would hold " +
                       std::to_string(counted) + " + " + std::to_string(bytes) + " bytes (" + what +
                       "), above the daemon's limit of " + std::to_string(limit) +
                       " per session (" + flag + "; it holds " + std::to_string(memory_bytes_) +
                       " of device memory, " + std::to_string(program_bytes_) + " of programs, " +
                       std::to_string(upload_bytes_) + " of uploads in flight)");
}

bool Session::MarkAttached() {
  std::lock_guard lock(mutex_);
  if (attached_ || closed_) return false;
  attached_ = true;
  return true;
}

bool Session::attached() const {
  std::lock_guard lock(mutex_);
  return attached_;
}

bool Session::WaitClosed(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return closed_cv_.wait_for(lock, timeout, [this] { return closed_; });
}

Status Session::AcquireCores(int first, int count) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  // The Device checks the range and refuses cores any session (this one included) holds.
  TRNSIM_RETURN_IF_ERROR(device_->AcquireCores(first, count));
  for (int c = first; c < first + count; ++c) cores_held_[c] = true;
  return Status::Ok();
}

Status Session::ReleaseCores(int first, int count) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  const int total = static_cast<int>(cores_held_.size());
  if (first < 0 || count <= 0 || first > total - count) {
    return InvalidError("physical cores [" + std::to_string(first) + ", +" +
                        std::to_string(count) + ") are outside the " + std::to_string(total) +
                        " cores of the instance");
  }
  // Only this session's cores: another session's stay held.
  for (int c = first; c < first + count; ++c) {
    if (!cores_held_[c]) continue;
    device_->ReleaseCores(c, 1);
    cores_held_[c] = false;
  }
  return Status::Ok();
}

bool Session::HoldsCore(int physical_core) const {
  std::lock_guard lock(mutex_);
  return physical_core >= 0 && physical_core < static_cast<int>(cores_held_.size()) &&
         cores_held_[physical_core];
}

std::vector<int> Session::HeldCores() const {
  std::lock_guard lock(mutex_);
  std::vector<int> cores;
  for (int c = 0; c < static_cast<int>(cores_held_.size()); ++c) {
    if (cores_held_[c]) cores.push_back(c);
  }
  return cores;
}

StatusOr<driver::AllocationInfo> Session::Allocate(const driver::AllocationRequest& request) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  const int cores = static_cast<int>(cores_held_.size());
  if (request.owner_core < 0 || request.owner_core >= cores) {
    return InvalidError("owner core " + std::to_string(request.owner_core) + " is outside the " +
                        std::to_string(cores) + " cores of the instance");
  }
  TRNSIM_RETURN_IF_ERROR(CheckLimit(request.size_bytes, "an allocation of device memory", false));
  TRNSIM_ASSIGN_OR_RETURN(driver::AllocationInfo info, device_->Allocate(request));
  // The Device rounds the size up; the limit applies to what it reserved.
  if (Status limit = CheckLimit(info.size_bytes, "an allocation of device memory", false);
      !limit.ok()) {
    (void)device_->Free(info.handle);
    return limit;
  }
  DeviceMemory memory;
  memory.device_handle = info.handle;
  memory.info = info;
  memory.info.handle = next_handle_++;
  memory.model_id = request.owner_model_id;
  memory_[memory.info.handle] = memory;
  memory_bytes_ += info.size_bytes;
  bytes_by_category_[{info.chip, info.hbm, info.category, memory.model_id}] += info.size_bytes;
  return memory.info;
}

Status Session::Free(driver::MemoryHandle handle) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  auto it = memory_.find(handle);
  if (it == memory_.end()) {
    return InvalidHandleError("no device memory with handle " + std::to_string(handle) +
                              " in this session");
  }
  TRNSIM_RETURN_IF_ERROR(device_->Free(it->second.device_handle));
  const driver::AllocationInfo& info = it->second.info;
  memory_bytes_ -= info.size_bytes;
  auto bucket = bytes_by_category_.find({info.chip, info.hbm, info.category, it->second.model_id});
  bucket->second -= info.size_bytes;
  if (bucket->second == 0) bytes_by_category_.erase(bucket);
  memory_.erase(it);
  return Status::Ok();
}

StatusOr<Session::DeviceMemory> Session::Resolve(driver::MemoryHandle handle) const {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  auto it = memory_.find(handle);
  if (it == memory_.end()) {
    return InvalidHandleError("no device memory with handle " + std::to_string(handle) +
                              " in this session");
  }
  return it->second;
}

std::vector<SessionMemory> Session::MemoryUsage() const {
  std::lock_guard lock(mutex_);
  std::vector<SessionMemory> usage;
  for (const auto& [where, bytes] : bytes_by_category_) {
    usage.push_back(
        {std::get<0>(where), std::get<1>(where), std::get<2>(where), bytes, std::get<3>(where)});
  }
  return usage;
}

uint64_t Session::memory_bytes() const {
  std::lock_guard lock(mutex_);
  return memory_bytes_;
}

Status Session::ReserveUpload(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  TRNSIM_RETURN_IF_ERROR(CheckLimit(bytes, "a program upload", true));
  upload_bytes_ += bytes;
  return Status::Ok();
}

void Session::ReleaseUpload(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (closed_) return;  // Close returned it
  upload_bytes_ -= std::min(bytes, upload_bytes_);
}

StatusOr<driver::ProgramHandle> Session::LoadProgram(const driver::ProgramImage& image,
                                                     const driver::ModelOwner& owner) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  const uint64_t bytes = driver::sim::LoadedProgramBytes(image);
  TRNSIM_RETURN_IF_ERROR(CheckLimit(bytes, "a loaded program", true));
  if (faults_ != nullptr) {
    TRNSIM_RETURN_IF_ERROR(faults_->BeforeLoad(owner.name, owner.physical_core, image));
  }
  TRNSIM_ASSIGN_OR_RETURN(driver::ProgramHandle device_handle, device_->LoadProgram(image, owner));
  const driver::ProgramHandle handle = next_program_++;
  programs_[handle] = Program{device_handle, owner, bytes};
  program_bytes_ += bytes;
  return handle;
}

Status Session::UnloadProgram(driver::ProgramHandle program) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  auto it = programs_.find(program);
  if (it == programs_.end()) {
    return InvalidHandleError("no program with handle " + std::to_string(program) +
                              " in this session");
  }
  TRNSIM_RETURN_IF_ERROR(device_->UnloadProgram(it->second.device_handle));
  const uint64_t model_id = it->second.owner.id;
  program_bytes_ -= it->second.bytes;
  programs_.erase(it);
  ForgetModelIfGone(model_id);
  return Status::Ok();
}

void Session::ForgetModelIfGone(uint64_t model_id) {
  if (model_id == 0) return;
  for (const auto& [handle, program] : programs_) {
    if (program.owner.id == model_id) return;
  }
  auto running = model_running_.find(model_id);
  if (running != model_running_.end() && running->second > 0) return;
  if (running != model_running_.end()) model_running_.erase(running);
  model_cores_ran_.erase(model_id);
}

std::vector<SessionModel> Session::Models() const {
  std::lock_guard lock(mutex_);
  std::map<uint64_t, SessionModel> models;
  // Programs in handle order: a model's name and uuid are those of its first program.
  for (const auto& [handle, program] : programs_) {
    if (program.owner.id == 0) continue;
    models.try_emplace(program.owner.id, SessionModel{program.owner, {}, false});
  }
  std::map<uint64_t, std::set<int>> cores;
  for (const auto& [handle, memory] : memory_) {
    if (models.count(memory.model_id)) cores[memory.model_id].insert(memory.info.owner_core);
  }
  for (const auto& [model_id, ran] : model_cores_ran_) {
    if (models.count(model_id)) cores[model_id].insert(ran.begin(), ran.end());
  }
  std::vector<SessionModel> out;
  for (auto& [model_id, model] : models) {
    const std::set<int>& on = cores[model_id];
    model.physical_cores.assign(on.begin(), on.end());
    auto running = model_running_.find(model_id);
    model.is_running = running != model_running_.end() && running->second > 0;
    out.push_back(std::move(model));
  }
  return out;
}

uint32_t Session::loaded_programs() const {
  std::lock_guard lock(mutex_);
  return static_cast<uint32_t>(programs_.size());
}

uint64_t Session::program_bytes() const {
  std::lock_guard lock(mutex_);
  return program_bytes_;
}

uint64_t Session::upload_bytes() const {
  std::lock_guard lock(mutex_);
  return upload_bytes_;
}

Status Session::PrepareExecution(std::vector<driver::CoreExecution>* cores,
                                 ExecutionScope* scope) const {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  scope->physical_cores.clear();
  scope->core_models.clear();
  scope->model_ids.clear();
  scope->model_name.clear();
  std::set<uint64_t> model_ids;
  const simulator::InstanceSpec& spec = device_->instance_spec();
  const int per_chip = spec.chip->physical_cores;
  for (driver::CoreExecution& core : *cores) {
    // The Device's own messages (driver/device.h): a client sees the same refusals either way.
    if (core.chip < 0 || core.chip >= spec.chip_count) {
      return InvalidError("chip " + std::to_string(core.chip) + " is outside the " +
                          std::to_string(spec.chip_count) + " chips of the instance");
    }
    if (core.physical_core < 0 || core.physical_core >= per_chip) {
      return InvalidError("physical core " + std::to_string(core.physical_core) +
                          " is outside the " + std::to_string(per_chip) + " cores of a " +
                          spec.chip->name + " chip");
    }
    const int physical = core.chip * per_chip + core.physical_core;
    if (!cores_held_[physical]) {
      return FailureError("NeuronCore " + std::to_string(physical) +
                          " is not held by this session (AcquireCores)");
    }
    auto program = programs_.find(core.program);
    if (program == programs_.end()) {
      return InvalidHandleError("no program with handle " + std::to_string(core.program) +
                                " in this session");
    }
    core.program = program->second.device_handle;
    if (scope->physical_cores.empty()) scope->model_name = program->second.owner.name;
    scope->physical_cores.push_back(physical);
    scope->core_models.push_back(program->second.owner.id);
    if (program->second.owner.id != 0) model_ids.insert(program->second.owner.id);
    for (driver::VarBinding& var : core.vars) {
      if (var.memory == driver::kInvalidMemoryHandle && var.size == 0) continue;  // empty
      auto memory = memory_.find(var.memory);
      if (memory == memory_.end()) {
        return InvalidError("var_id " + std::to_string(var.var_id) +
                            ": no device memory with handle " + std::to_string(var.memory) +
                            " in this session");
      }
      var.memory = memory->second.device_handle;
    }
  }
  scope->model_ids.assign(model_ids.begin(), model_ids.end());
  return Status::Ok();
}

void Session::BeginExecution(const ExecutionScope& scope) {
  std::lock_guard lock(mutex_);
  ++executions_running_;
  for (uint64_t model_id : scope.model_ids) ++model_running_[model_id];
  for (size_t i = 0; i < scope.physical_cores.size() && i < scope.core_models.size(); ++i) {
    if (scope.core_models[i] != 0) {
      model_cores_ran_[scope.core_models[i]].insert(scope.physical_cores[i]);
    }
  }
}

void Session::EndExecution(const ExecutionScope& scope, const ExecutionSample& sample) {
  std::lock_guard lock(mutex_);
  --executions_running_;
  ++executions_;
  if (!sample.ok) ++failed_executions_;
  ++execution_statuses_[sample.status_code];
  for (uint64_t model_id : scope.model_ids) {
    auto running = model_running_.find(model_id);
    if (running != model_running_.end() && running->second > 0) --running->second;
    ForgetModelIfGone(model_id);  // unloaded while this execution ran
  }
  recent_.push_back(sample);
  if (recent_.size() > kRecentExecutions) recent_.pop_front();
}

std::vector<ExecutionSample> Session::RecentExecutions() const {
  std::lock_guard lock(mutex_);
  return std::vector<ExecutionSample>(recent_.begin(), recent_.end());
}

uint64_t Session::executions() const {
  std::lock_guard lock(mutex_);
  return executions_;
}

uint64_t Session::failed_executions() const {
  std::lock_guard lock(mutex_);
  return failed_executions_;
}

std::map<uint32_t, uint64_t> Session::ExecutionStatuses() const {
  std::lock_guard lock(mutex_);
  return execution_statuses_;
}

uint32_t Session::executions_running() const {
  std::lock_guard lock(mutex_);
  return executions_running_;
}

Session::Released Session::Close() {
  Released released;
  // Stopped when this returns, after the lock is released: a ring's thread may be waiting for it.
  std::vector<std::unique_ptr<RingServer>> ring_servers;
  cancel_ = true;  // before the lock: an execution of this session may be running
  {
    std::lock_guard lock(mutex_);
    if (closed_) return released;
    closed_ = true;
    ring_servers.swap(ring_servers_);
    released.ended = true;
    for (auto& [handle, memory] : memory_) {
      // The Device knows the handle (only this session frees it), so this cannot fail unless
      // its state is corrupt; nothing else can be done about that here.
      (void)device_->Free(memory.device_handle);
      ++released.allocations;
      released.bytes += memory.info.size_bytes;
    }
    memory_.clear();
    regions_.clear();
    for (const auto& [handle, program] : programs_) {
      (void)device_->UnloadProgram(program.device_handle);
      ++released.programs;
    }
    programs_.clear();
    model_cores_ran_.clear();  // model_running_ stays: EndExecution of a running one needs it
    bytes_by_category_.clear();
    memory_bytes_ = 0;
    program_bytes_ = 0;
    upload_bytes_ = 0;  // streams still in flight see closed_ and release nothing
    for (int c = 0; c < static_cast<int>(cores_held_.size()); ++c) {
      if (!cores_held_[c]) continue;
      device_->ReleaseCores(c, 1);
      cores_held_[c] = false;
      ++released.cores;
    }
  }
  closed_cv_.notify_all();
  return released;
}

StatusOr<uint64_t> Session::AddSharedRegion(std::shared_ptr<driver::remote::SharedRegion> region) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  if (regions_.size() >= kMaxSharedRegions) {
    return ResourceError("session " + std::to_string(identity_.id) + " already has " +
                         std::to_string(regions_.size()) + " shared-memory regions (at most " +
                         std::to_string(kMaxSharedRegions) + ")");
  }
  const uint64_t id = next_region_++;
  regions_.emplace(id, std::move(region));
  return id;
}

Status Session::AddRingServer(std::unique_ptr<RingServer> server) {
  std::unique_ptr<RingServer> refused;  // stopped after the lock is released
  std::lock_guard lock(mutex_);
  if (Status open = CheckOpen(); !open.ok()) {
    refused = std::move(server);
    return open;
  }
  ring_servers_.push_back(std::move(server));
  return Status::Ok();
}

StatusOr<std::shared_ptr<driver::remote::SharedRegion>> Session::SharedRegionById(
    uint64_t id) const {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  auto it = regions_.find(id);
  if (it == regions_.end()) {
    return InvalidHandleError("shared-memory region " + std::to_string(id) +
                              " is not one of this session's");
  }
  return it->second;
}

bool Session::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

}  // namespace trnsim::neurond
