#include "driver/sim/sim_device.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/log.h"
#include "simulator/isa/encoding.h"
#include "simulator/memory/hbm_stack.h"

namespace trnsim::driver::sim {
namespace {

std::string RangeText(uint64_t offset, uint64_t size) {
  return "[" + std::to_string(offset) + ", +" + std::to_string(size) + ")";
}

// Checks what the chip model indexes with a descriptor's numbers: its queue, semaphore and event.
Status CheckDescriptors(const simulator::dma::DescriptorTable& table,
                        const isa::IsaLimits& limits) {
  for (int e = 0; e < isa::kEngineCount; ++e) {
    for (const simulator::dma::Descriptor& d : table.per_engine[e]) {
      std::string where = "engine " + std::string(isa::EngineName(isa::Engine(e))) +
                          " DMA descriptor " + std::to_string(d.id) + ": ";
      if (d.queue < 0 || d.queue >= limits.dma_queues) {
        return InvalidError(where + "queue " + std::to_string(d.queue) + " is not below " +
                            std::to_string(limits.dma_queues));
      }
      if (d.semaphore && *d.semaphore >= uint32_t(limits.semaphores)) {
        return InvalidError(where + "semaphore " + std::to_string(*d.semaphore) + " is not below " +
                            std::to_string(limits.semaphores));
      }
      if (d.event && *d.event >= uint32_t(limits.events)) {
        return InvalidError(where + "event " + std::to_string(*d.event) + " is not below " +
                            std::to_string(limits.events));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Device>> OpenSimDevice(const DeviceOptions& options) {
  if (options.instance == nullptr) return InvalidError("the sim back end needs an instance type");
  std::unique_ptr<faults::FaultPlan> plan;
  if (!options.faults.empty()) {
    TRNSIM_ASSIGN_OR_RETURN(plan, faults::FaultPlan::Create(options.faults, *options.instance));
    TRNSIM_LOG(Info, Tdrv) << "fault injection: " << faults::FormatFaultSpec(options.faults);
  }
  TRNSIM_ASSIGN_OR_RETURN(auto instance, simulator::Instance::Create(*options.instance));
  TRNSIM_LOG(Info, Tdrv) << "emulated " << options.instance->type_name << ": "
                         << options.instance->chip_count << " x " << options.instance->chip->name;
  return std::unique_ptr<Device>(new SimDevice(std::move(instance), std::move(plan),
                                               options.host_threads, options.collective_fabric));
}

SimDevice::SimDevice(std::unique_ptr<simulator::Instance> instance,
                     std::unique_ptr<faults::FaultPlan> faults, bool host_threads,
                     std::shared_ptr<simulator::collective::CollectiveFabric> fabric)
    : instance_(std::move(instance)),
      faults_(std::move(faults)),
      host_threads_(host_threads),
      collectives_(fabric != nullptr
                       ? std::move(fabric)
                       : std::make_shared<simulator::collective::CollectiveHub>(instance_->spec())),
      peers_([this](uint64_t src, uint64_t src_offset, uint64_t dst, uint64_t dst_offset,
                    uint64_t size) { return Copy(src, src_offset, dst, dst_offset, size); }),
      clock_(instance_->spec().PhysicalCores()) {
  const simulator::InstanceSpec& spec = instance_->spec();
  for (int c = 0; c < spec.chip_count; ++c) {
    for (int h = 0; h < spec.chip->hbm_stacks; ++h) {
      allocators_.emplace_back(spec.chip->hbm_bytes_per_stack);
    }
  }
  core_owned_.assign(spec.PhysicalCores(), false);
  core_busy_.assign(spec.PhysicalCores(), false);
  core_states_.resize(spec.PhysicalCores());
}

Status SimDevice::AcquireCores(int first, int count) {
  std::unique_lock lock(mutex_);
  int total = static_cast<int>(core_owned_.size());
  if (first < 0 || count <= 0 || first > total - count) {
    return InvalidError("physical cores " + RangeText(first, count) + " are outside the " +
                        std::to_string(total) + " cores of the instance");
  }
  for (int c = first; c < first + count; ++c) {
    if (core_owned_[c]) {
      return FailureError("NeuronCore " + std::to_string(c) + " is already in use");
    }
  }
  for (int c = first; c < first + count; ++c) core_owned_[c] = true;
  return Status::Ok();
}

void SimDevice::ReleaseCores(int first, int count) {
  // A released core's SBUF/PSUM state goes with it: the next owner starts from zeroed on-chip
  // memory, and a long-lived device (neurond) does not keep 28 MiB per core ever used. An
  // execution still running on one of the cores keeps its state until it ends.
  const int total = static_cast<int>(core_owned_.size());
  std::vector<int> range;
  for (int c = std::max(first, 0); c < total && c - first < count; ++c) range.push_back(c);
  auto busy = [&] {
    for (int c : range) {
      if (core_busy_[c]) return true;
    }
    return false;
  };
  std::vector<std::unique_ptr<reference::CoreState>> dropped;
  {
    std::unique_lock cores_lock(cores_mutex_);
    if (busy()) {
      cores_lock.unlock();
      Notify(Event::kReleaseWaiting, range);
      cores_lock.lock();
      cores_cv_.wait(cores_lock, [&] { return !busy(); });
    }
    std::unique_lock lock(mutex_);
    for (int c : range) {
      if (!core_owned_[c]) continue;
      core_owned_[c] = false;
      if (core_states_[c] != nullptr) dropped.push_back(std::move(core_states_[c]));
    }
  }
  if (dropped.empty()) return;
  dropped.clear();
  // A core state is two large vectors (SBUF, PSUM); glibc serves such blocks from its heaps once
  // its mmap threshold has risen, and keeps them after free. Hand the pages back to the host.
  malloc_trim(0);
}

HbmAllocator& SimDevice::AllocatorFor(int chip, int hbm) {
  return allocators_[chip * instance_->spec().chip->hbm_stacks + hbm];
}

StatusOr<AllocationInfo> SimDevice::Allocate(const AllocationRequest& request) {
  const simulator::InstanceSpec& spec = instance_->spec();
  if (request.chip < 0 || request.chip >= spec.chip_count || request.hbm < 0 ||
      request.hbm >= spec.chip->hbm_stacks) {
    return InvalidError("no HBM stack " + std::to_string(request.hbm) + " on chip " +
                        std::to_string(request.chip));
  }
  std::unique_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(HbmAllocator::Block block,
                          AllocatorFor(request.chip, request.hbm)
                              .Allocate(request.size_bytes, request.alignment_bytes));
  // Freed memory was discarded, so the block already reads as zero.
  Allocation allocation;
  allocation.hbm_offset = block.offset;
  allocation.info.handle = next_handle_++;
  allocation.info.chip = request.chip;
  allocation.info.hbm = request.hbm;
  allocation.info.device_address = spec.chip->hbm_base_pa[request.hbm] + block.offset;
  allocation.info.size_bytes = block.size_bytes;
  allocation.info.owner_core = request.owner_core;
  allocation.info.category = request.category;
  allocations_[allocation.info.handle] = allocation;
  return allocation.info;
}

Status SimDevice::Free(MemoryHandle handle) {
  std::unique_lock lock(mutex_);
  auto it = allocations_.find(handle);
  if (it == allocations_.end() || it->second.freed) {
    return InvalidHandleError("no device memory with handle " + std::to_string(handle));
  }
  // A running execution is bound to it: the last one to end releases it (Unpin).
  if (it->second.pins > 0) {
    it->second.freed = true;
    return Status::Ok();
  }
  return ReleaseLocked(it);
}

Status SimDevice::ReleaseLocked(AllocationMap::iterator it) {
  const Allocation& a = it->second;
  TRNSIM_ASSIGN_OR_RETURN(HbmAllocator::Block free_range,
                          AllocatorFor(a.info.chip, a.info.hbm).Free(a.hbm_offset));
  if (a.shared_fd >= 0) {
    // Before the range is discarded or handed out again: the memfd's pages stay with the
    // processes that mapped it and never alias device memory again.
    instance_->chip(a.info.chip).hbm(a.info.hbm).Unshare(a.shared_hbm_offset, a.shared_size);
    close(a.shared_fd);
  }
  // The whole coalesced free range, not just the block: a page the block shared with free
  // neighbours goes back to the host too (free bytes read as zero, so only the range's partial
  // edge pages, shared with live blocks, are zeroed in place).
  instance_->chip(a.info.chip).hbm(a.info.hbm).Discard(free_range.offset, free_range.size_bytes);
  allocations_.erase(it);
  return Status::Ok();
}

StatusOr<const SimDevice::Allocation*> SimDevice::Lookup(MemoryHandle handle, uint64_t offset,
                                                         uint64_t size) const {
  auto it = allocations_.find(handle);
  if (it == allocations_.end() || it->second.freed) {
    return InvalidHandleError("no device memory with handle " + std::to_string(handle));
  }
  uint64_t limit = it->second.info.size_bytes;
  if (offset > limit || size > limit - offset) {
    return InvalidError("range " + RangeText(offset, size) + " is outside the " +
                        std::to_string(limit) + "-byte allocation");
  }
  return &it->second;
}

StatusOr<AllocationInfo> SimDevice::Describe(MemoryHandle handle) {
  std::shared_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(const Allocation* a, Lookup(handle, 0, 0));
  return a->info;
}

Status SimDevice::Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size) {
  std::shared_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(const Allocation* a, Lookup(handle, offset, size));
  if (size > 0 && src == nullptr) return InvalidError("source buffer is NULL");
  instance_->chip(a->info.chip).hbm(a->info.hbm).Write(a->hbm_offset + offset, src, size);
  return Status::Ok();
}

Status SimDevice::Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size) {
  std::shared_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(const Allocation* a, Lookup(handle, offset, size));
  if (size > 0 && dst == nullptr) return InvalidError("destination buffer is NULL");
  instance_->chip(a->info.chip).hbm(a->info.hbm).Read(a->hbm_offset + offset, dst, size);
  return Status::Ok();
}

Status SimDevice::Copy(MemoryHandle src, uint64_t src_offset, MemoryHandle dst, uint64_t dst_offset,
                       uint64_t size) {
  std::shared_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(const Allocation* s, Lookup(src, src_offset, size));
  TRNSIM_ASSIGN_OR_RETURN(const Allocation* d, Lookup(dst, dst_offset, size));
  if (size == 0) return Status::Ok();
  uint8_t* from = instance_->chip(s->info.chip).hbm(s->info.hbm).HostAddress(s->hbm_offset);
  uint8_t* to = instance_->chip(d->info.chip).hbm(d->info.hbm).HostAddress(d->hbm_offset);
  std::memmove(to + dst_offset, from + src_offset, size);
  return Status::Ok();
}

Status SimDevice::Fill(MemoryHandle handle, uint64_t offset, uint8_t value, uint64_t size) {
  std::shared_lock lock(mutex_);
  TRNSIM_ASSIGN_OR_RETURN(const Allocation* a, Lookup(handle, offset, size));
  instance_->chip(a->info.chip).hbm(a->info.hbm).Fill(a->hbm_offset + offset, value, size);
  return Status::Ok();
}

void* SimDevice::HostAddress(MemoryHandle handle, uint64_t offset) {
  std::shared_lock lock(mutex_);
  StatusOr<const Allocation*> a = Lookup(handle, offset, 0);
  if (!a.ok()) return nullptr;
  return instance_->chip((*a)->info.chip)
      .hbm((*a)->info.hbm)
      .HostAddress((*a)->hbm_offset + offset);
}

StatusOr<Device::SharedMemory> SimDevice::ShareMemory(MemoryHandle handle) {
  std::unique_lock lock(mutex_);  // no Write or Read of it while its bytes move to the memfd
  auto it = allocations_.find(handle);
  if (it == allocations_.end() || it->second.freed) {
    return InvalidHandleError("no device memory with handle " + std::to_string(handle));
  }
  Allocation& a = it->second;
  if (a.shared_fd < 0) {
    // An execution bound to it writes its bytes with no lock held: they could land in the
    // private pages after the copy and be lost.
    if (a.pins > 0) {
      return Status(StatusCode::kExecNcBusy, "device memory " + std::to_string(handle) +
                                                 " is bound to a running execution");
    }
    const uint64_t page = simulator::HbmStack::PageBytes();
    const uint64_t first = (a.hbm_offset + page - 1) / page * page;
    const uint64_t end = (a.hbm_offset + a.info.size_bytes) / page * page;
    if (end <= first) {
      return InvalidError("device memory " + std::to_string(handle) + " (" +
                          std::to_string(a.info.size_bytes) + " bytes) holds no whole host page");
    }
    TRNSIM_ASSIGN_OR_RETURN(a.shared_fd,
                            instance_->chip(a.info.chip).hbm(a.info.hbm).Share(first, end - first));
    a.shared_hbm_offset = first;
    a.shared_size = end - first;
  }
  const int fd = fcntl(a.shared_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return ResourceError(std::string("dup of a memfd: ") + std::strerror(errno));
  return SharedMemory{fd, a.shared_hbm_offset - a.hbm_offset, a.shared_size};
}

SimDevice::~SimDevice() {
  for (auto& [handle, a] : allocations_)
    if (a.shared_fd >= 0) close(a.shared_fd);
}

StatusOr<HbmUsage> SimDevice::GetHbmUsage(int chip, int hbm) {
  const simulator::InstanceSpec& spec = instance_->spec();
  if (chip < 0 || chip >= spec.chip_count || hbm < 0 || hbm >= spec.chip->hbm_stacks) {
    return InvalidError("no HBM stack " + std::to_string(hbm) + " on chip " + std::to_string(chip));
  }
  std::shared_lock lock(mutex_);
  HbmAllocator& allocator = AllocatorFor(chip, hbm);
  return HbmUsage{allocator.used_bytes(), allocator.capacity_bytes()};
}

StatusOr<ProgramHandle> SimDevice::LoadProgram(const ProgramImage& image, const ModelOwner& owner) {
  if (faults_ != nullptr) {
    TRNSIM_RETURN_IF_ERROR(faults_->BeforeLoad(owner.name, owner.physical_core, image));
  }
  isa::IsaLimits limits = isa::LimitsFor(*instance_->spec().chip);
  auto loaded = std::make_shared<LoadedProgram>();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const std::vector<uint8_t>& stream = image.streams[e];
    if (stream.empty()) continue;
    std::string where = "engine " + std::string(isa::EngineName(isa::Engine(e))) + ": ";
    std::shared_ptr<const isa::ValidatedProgram> program = image.decoded[e];
    if (program == nullptr || program->limits() != limits) {
      // Not decoded by the caller, or validated for another chip: decode and validate here.
      StatusOr<isa::ValidatedProgram> decoded = isa::DecodeValidatedStream(stream, limits);
      if (!decoded.ok()) {
        return Status(decoded.status().code(), where + decoded.status().message());
      }
      program = std::make_shared<const isa::ValidatedProgram>(std::move(decoded).value());
    }
    if (program->engine() != isa::Engine(e)) {
      return InvalidError(where + "the stream is encoded for engine '" +
                          std::string(isa::EngineName(program->engine())) + "'");
    }
    loaded->programs[e] = std::move(program);
  }
  TRNSIM_RETURN_IF_ERROR(CheckDescriptors(image.descriptors, limits));
  loaded->descriptors = image.descriptors;
  loaded->model_name = owner.name;
  std::unique_lock lock(mutex_);
  ProgramHandle handle = next_program_++;
  programs_[handle] = std::move(loaded);
  return handle;
}

Status SimDevice::UnloadProgram(ProgramHandle program) {
  std::unique_lock lock(mutex_);
  if (programs_.erase(program) == 0) {
    return InvalidHandleError("no program with handle " + std::to_string(program));
  }
  return Status::Ok();
}

}  // namespace trnsim::driver::sim
