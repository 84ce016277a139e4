#include "tools/neurond/session.h"

#include <utility>

namespace trnsim::neurond {

Session::Session(SessionIdentity identity, driver::Device* device, uint64_t max_memory_bytes)
    : identity_(std::move(identity)),
      device_(device),
      max_memory_bytes_(max_memory_bytes),
      opened_at_(std::chrono::steady_clock::now()),
      cores_held_(device->instance_spec().PhysicalCores(), false) {}

Session::~Session() { Close(); }

Status Session::CheckOpen() const {
  if (closed_) return FailureError("session " + std::to_string(identity_.id) + " has ended");
  return Status::Ok();
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
  auto over_limit = [&](uint64_t bytes) {
    return max_memory_bytes_ != 0 &&
           (bytes > max_memory_bytes_ || memory_bytes_ > max_memory_bytes_ - bytes);
  };
  auto limit_error = [&](uint64_t bytes) {
    return ResourceError("session " + std::to_string(identity_.id) + " would hold " +
                         std::to_string(memory_bytes_) + " + " + std::to_string(bytes) +
                         " bytes of device memory, above the daemon's limit of " +
                         std::to_string(max_memory_bytes_) + " per session");
  };
  if (over_limit(request.size_bytes)) return limit_error(request.size_bytes);
  TRNSIM_ASSIGN_OR_RETURN(driver::AllocationInfo info, device_->Allocate(request));
  // The Device rounds the size up; the limit applies to what it reserved.
  if (over_limit(info.size_bytes)) {
    (void)device_->Free(info.handle);
    return limit_error(info.size_bytes);
  }
  DeviceMemory memory;
  memory.device_handle = info.handle;
  memory.info = info;
  memory.info.handle = next_handle_++;
  memory_[memory.info.handle] = memory;
  memory_bytes_ += info.size_bytes;
  bytes_by_category_[{info.chip, info.hbm, info.category}] += info.size_bytes;
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
  auto bucket = bytes_by_category_.find({info.chip, info.hbm, info.category});
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
    usage.push_back({std::get<0>(where), std::get<1>(where), std::get<2>(where), bytes});
  }
  return usage;
}

uint64_t Session::memory_bytes() const {
  std::lock_guard lock(mutex_);
  return memory_bytes_;
}

StatusOr<driver::ProgramHandle> Session::LoadProgram(const driver::ProgramImage& image) {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  TRNSIM_ASSIGN_OR_RETURN(driver::ProgramHandle device_handle, device_->LoadProgram(image));
  const driver::ProgramHandle handle = next_program_++;
  programs_[handle] = device_handle;
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
  TRNSIM_RETURN_IF_ERROR(device_->UnloadProgram(it->second));
  programs_.erase(it);
  return Status::Ok();
}

uint32_t Session::loaded_programs() const {
  std::lock_guard lock(mutex_);
  return static_cast<uint32_t>(programs_.size());
}

Status Session::PrepareExecution(std::vector<driver::CoreExecution>* cores) const {
  std::lock_guard lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckOpen());
  const simulator::InstanceSpec& spec = device_->instance_spec();
  const int per_chip = spec.chip->physical_cores;
  for (driver::CoreExecution& core : *cores) {
    if (core.chip < 0 || core.chip >= spec.chip_count || core.physical_core < 0 ||
        core.physical_core >= per_chip) {
      return InvalidError("core " + std::to_string(core.physical_core) + " of chip " +
                          std::to_string(core.chip) + " is not on this instance");
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
    core.program = program->second;
    for (driver::VarBinding& var : core.vars) {
      if (var.memory == driver::kInvalidMemoryHandle && var.size == 0) continue;  // empty
      auto memory = memory_.find(var.memory);
      if (memory == memory_.end()) {
        return InvalidHandleError("variable " + std::to_string(var.var_id) +
                                  " names no device memory of this session (handle " +
                                  std::to_string(var.memory) + ")");
      }
      var.memory = memory->second.device_handle;
    }
  }
  return Status::Ok();
}

void Session::BeginExecution() {
  std::lock_guard lock(mutex_);
  ++executions_running_;
}

void Session::EndExecution(bool ok) {
  std::lock_guard lock(mutex_);
  --executions_running_;
  ++executions_;
  if (!ok) ++failed_executions_;
}

uint64_t Session::executions() const {
  std::lock_guard lock(mutex_);
  return executions_;
}

uint64_t Session::failed_executions() const {
  std::lock_guard lock(mutex_);
  return failed_executions_;
}

uint32_t Session::executions_running() const {
  std::lock_guard lock(mutex_);
  return executions_running_;
}

Session::Released Session::Close() {
  Released released;
  cancel_ = true;  // before the lock: an execution of this session may be running
  {
    std::lock_guard lock(mutex_);
    if (closed_) return released;
    closed_ = true;
    released.ended = true;
    for (auto& [handle, memory] : memory_) {
      // The Device knows the handle (only this session frees it), so this cannot fail unless
      // its state is corrupt; nothing else can be done about that here.
      (void)device_->Free(memory.device_handle);
      ++released.allocations;
      released.bytes += memory.info.size_bytes;
    }
    memory_.clear();
    for (const auto& [handle, device_handle] : programs_) {
      (void)device_->UnloadProgram(device_handle);
      ++released.programs;
    }
    programs_.clear();
    bytes_by_category_.clear();
    memory_bytes_ = 0;
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

bool Session::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

}  // namespace trnsim::neurond
