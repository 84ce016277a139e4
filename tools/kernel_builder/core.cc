#include "tools/kernel_builder/core.h"

namespace trnsim::kb {

Core::Core(int index, const isa::IsaLimits* limits, Diagnostics* diagnostics)
    : index_(index),
      limits_(limits),
      sbuf_(isa::Memory::kSbuf, limits->partitions, limits->sbuf_bytes_per_partition, 0),
      psum_(isa::Memory::kPsum, limits->partitions, limits->psum_bytes_per_partition,
            limits->psum_bank_bytes) {
  for (int e = 0; e < isa::kEngineCount; ++e) {
    streams_.emplace_back(index, static_cast<isa::Engine>(e), limits, diagnostics,
                          &debug_prefixes_);
  }
}

StatusOr<Tile> Core::AllocSbuf(std::string_view name, isa::Dtype dtype, int partitions,
                               int64_t cols, int64_t align) {
  return sbuf_.Allocate(name, dtype, partitions, cols, align);
}

StatusOr<Tile> Core::AllocPsum(std::string_view name, isa::Dtype dtype, int partitions,
                               int64_t cols, int64_t align) {
  return psum_.Allocate(name, dtype, partitions, cols, align);
}

Status Core::Free(const Tile& tile) {
  return tile.memory == isa::Memory::kPsum ? psum_.Free(tile) : sbuf_.Free(tile);
}

StatusOr<int> Core::AllocSemaphore() {
  for (int s = limits_->semaphores - 1; s >= 0; --s) {
    if (reserved_.insert(s).second) return s;
  }
  return ResourceError("sg" + std::to_string(index_) + ": all " +
                       std::to_string(limits_->semaphores) + " semaphores are reserved");
}

Status Core::AddQueueSet(const neff::QueueSet& set) {
  for (const neff::QueueSet& q : queue_sets_) {
    if (q.name == set.name) return InvalidError("queue set '" + set.name + "' declared twice");
  }
  if (set.name.empty()) return InvalidError("a queue set needs a name");
  queue_sets_.push_back(set);
  return Status::Ok();
}

Status Core::AddDescriptor(isa::Engine engine, const neff::DmaDescriptor& descriptor) {
  EngineFiles& f = files(engine);
  for (const neff::DmaDescriptor& d : f.dma) {
    if (d.id == descriptor.id) {
      return InvalidError("descriptor id " + std::to_string(d.id) + " used twice on " +
                          std::string(isa::EngineName(engine)));
    }
  }
  if (!descriptor.queue.empty()) {
    bool found = false;
    for (const neff::QueueSet& q : queue_sets_) found = found || q.name == descriptor.queue;
    if (!found)
      return InvalidError("descriptor " + std::to_string(descriptor.id) + ": no queue set '" +
                          descriptor.queue + "'");
  }
  f.dma.push_back(descriptor);
  stream(engine).Declare();
  return Status::Ok();
}

bool Core::touched() const {
  for (const Stream& s : streams_) {
    if (s.declared()) return true;
  }
  return sbuf_.bytes_in_use() > 0 || psum_.bytes_in_use() > 0 || !queue_sets_.empty() ||
         !reserved_.empty() || !deps_.empty() || debug_prefixes_.size() > 0;
}

}  // namespace trnsim::kb
