// HbmStack: the storage of one emulated HBM stack, backed lazily by host memory.
//
// The whole stack is one reserved, never-committed range of host address space
// (mmap MAP_NORESERVE): a page costs host memory only once written, and unwritten bytes read
// as zero. A 16-chip instance (64 stacks, 1.5 TiB) therefore costs nothing until used.
// Discard() hands pages back to the host (the driver does it when memory is freed), so a
// fresh allocation always reads as zero — deterministic, unlike real HBM.
//
// Bounds are the caller's contract (the driver validates every request); a violation here is
// a broken invariant and aborts. Thread safety: distinct byte ranges may be accessed
// concurrently; overlapping concurrent writes race as they would on hardware.
#pragma once

#include <cstdint>
#include <memory>

#include "common/status_or.h"

namespace trnsim::simulator {

class HbmStack {
 public:
  // Reserves `size_bytes` of host address space. NRT_RESOURCE if the host refuses.
  static StatusOr<std::unique_ptr<HbmStack>> Create(uint64_t size_bytes);
  ~HbmStack();
  HbmStack(const HbmStack&) = delete;
  HbmStack& operator=(const HbmStack&) = delete;

  uint64_t size_bytes() const { return size_bytes_; }

  void Read(uint64_t offset, void* dst, uint64_t size) const;
  void Write(uint64_t offset, const void* src, uint64_t size);
  void Fill(uint64_t offset, uint8_t value, uint64_t size);
  // Makes [offset, offset+size) read as zero again, returning whole pages to the host.
  void Discard(uint64_t offset, uint64_t size);

  // Host address of byte `offset`; valid for the lifetime of the stack.
  uint8_t* HostAddress(uint64_t offset) const;

  // Page size of the host: the unit of Share.
  static uint64_t PageBytes();

  // Puts [offset, offset+size) in a memfd of `size` bytes that another process may map: the
  // range's current bytes are copied into it (pages of zeros stay unbacked), the memfd is mapped
  // over the range in place (MAP_FIXED | MAP_SHARED), and it is sealed against shrinking,
  // growing and further sealing, so no holder can make an access of this stack fault. Returns
  // the descriptor, owned by the caller; the stack keeps its mapping, not the descriptor. The
  // range must be whole pages (PageBytes) inside the stack, NRT_INVALID otherwise, and not shared
  // already (the caller's contract). NRT_RESOURCE when the host refuses a memfd or the mapping
  // (Linux checks its mapping limits before it replaces anything, so the range is as before).
  // The caller keeps the range from being written while it is copied (the driver holds its
  // allocation lock exclusively and refuses an allocation an execution is bound to).
  StatusOr<int> Share(uint64_t offset, uint64_t size);
  // Makes a range Share returned private again, reading as zero: the memfd's pages stay with
  // whoever still maps the descriptor and no longer alias this stack. Call it before Discard or
  // reuse of the range. A host that refuses the mapping aborts (the pages would stay shared).
  void Unshare(uint64_t offset, uint64_t size);

 private:
  HbmStack(uint8_t* base, uint64_t size_bytes) : base_(base), size_bytes_(size_bytes) {}
  void CheckRange(uint64_t offset, uint64_t size) const;

  uint8_t* base_;
  uint64_t size_bytes_;
};

}  // namespace trnsim::simulator
