// Core: one physical core of the kernel — one NEFF subgraph (sg00, sg01 for LNC=2): its five
// engine streams, its SBUF and PSUM allocators, its semaphores, DMA queue sets and descriptors,
// and its debug_print prefixes.
//
// Dependencies between instructions of the core are recorded with KernelBuilder::Depend and
// turned into semaphores when the kernel is built (sync.h). Semaphores a kernel plumbs by hand
// come from AllocSemaphore(), which the automatic plumbing never reuses.
//
// Thread safety: none. A Core is owned by its KernelBuilder.
#pragma once

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "runtime/neff/neff.h"
#include "tools/kernel_builder/allocator.h"
#include "tools/kernel_builder/debug_prefixes.h"
#include "tools/kernel_builder/stream.h"
#include "tools/kernel_builder/sync.h"

namespace trnsim::kb {

// What the NEFF records about one engine besides its instructions (neff::EngineProgram).
struct EngineFiles {
  std::string json_file;   // empty: the default "<Stem>.json"; "-": no engine JSON
  std::string instr_file;  // empty: the default "<Stem>.bin"
  std::vector<neff::DmaDescriptor> dma;
  std::vector<std::string> activation_function_sets;
  std::vector<neff::DveTable> dve_tables;
};

class Core {
 public:
  Core(int index, const isa::IsaLimits* limits, Diagnostics* diagnostics);

  int index() const { return index_; }
  Stream& stream(isa::Engine engine) { return streams_[static_cast<int>(engine)]; }
  const Stream& stream(isa::Engine engine) const { return streams_[static_cast<int>(engine)]; }
  Stream& pe() { return stream(isa::Engine::kPe); }
  Stream& act() { return stream(isa::Engine::kAct); }
  Stream& dve() { return stream(isa::Engine::kDve); }
  Stream& pool() { return stream(isa::Engine::kPool); }
  Stream& sp() { return stream(isa::Engine::kSp); }

  // ---- on-chip memory (allocator.h) ---------------------------------------------------------
  StatusOr<Tile> AllocSbuf(std::string_view name, isa::Dtype dtype, int partitions, int64_t cols,
                           int64_t align = 0);
  StatusOr<Tile> AllocPsum(std::string_view name, isa::Dtype dtype, int partitions, int64_t cols,
                           int64_t align = 0);
  Status Free(const Tile& tile);
  const OnChipAllocator& sbuf() const { return sbuf_; }
  const OnChipAllocator& psum() const { return psum_; }

  // ---- synchronisation ----------------------------------------------------------------------
  // A semaphore for hand-made plumbing (highest free index first); NRT_RESOURCE when none left.
  StatusOr<int> AllocSemaphore();
  const std::set<int>& reserved_semaphores() const { return reserved_; }
  void AddDependency(const Dependency& d) { deps_.push_back(d); }
  const std::vector<Dependency>& dependencies() const { return deps_; }

  // ---- DMA queue sets and descriptors (def.json "dma_queue", <Engine>.json "dma") -----------
  Status AddQueueSet(const neff::QueueSet& set);
  // A descriptor on `engine`'s JSON, for dma_trigger. Its queue must be a declared queue set.
  Status AddDescriptor(isa::Engine engine, const neff::DmaDescriptor& descriptor);
  const std::vector<neff::QueueSet>& queue_sets() const { return queue_sets_; }
  EngineFiles& files(isa::Engine engine) { return files_[static_cast<int>(engine)]; }
  const EngineFiles& files(isa::Engine engine) const { return files_[static_cast<int>(engine)]; }

  // ---- debug_print prefixes (def.json "debug_prefixes"; Stream::DebugPrint adds to it) -------
  DebugPrefixTable& debug_prefixes() { return debug_prefixes_; }
  const DebugPrefixTable& debug_prefixes() const { return debug_prefixes_; }

  // def.json "name" / "version" (empty: absent).
  std::string def_name;
  std::string def_version;

  // True once anything was emitted, allocated or declared on the core.
  bool touched() const;

 private:
  int index_;
  const isa::IsaLimits* limits_;
  std::vector<Stream> streams_;
  OnChipAllocator sbuf_;
  OnChipAllocator psum_;
  std::set<int> reserved_;
  std::vector<Dependency> deps_;
  std::vector<neff::QueueSet> queue_sets_;
  std::array<EngineFiles, isa::kEngineCount> files_;
  DebugPrefixTable debug_prefixes_;
};

}  // namespace trnsim::kb
