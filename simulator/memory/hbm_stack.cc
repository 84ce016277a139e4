#include "simulator/memory/hbm_stack.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace trnsim::simulator {

StatusOr<std::unique_ptr<HbmStack>> HbmStack::Create(uint64_t size_bytes) {
  if (size_bytes == 0) return InvalidError("an HBM stack cannot be empty");
  void* base = mmap(nullptr, size_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    return ResourceError("cannot reserve " + std::to_string(size_bytes) +
                         " bytes of host address space for emulated HBM: " +
                         std::strerror(errno));
  }
  return std::unique_ptr<HbmStack>(new HbmStack(static_cast<uint8_t*>(base), size_bytes));
}

HbmStack::~HbmStack() { munmap(base_, size_bytes_); }

void HbmStack::CheckRange(uint64_t offset, uint64_t size) const {
  if (offset > size_bytes_ || size > size_bytes_ - offset) {
    std::fprintf(stderr, "trnsim: HBM access [%llu, +%llu) outside the %llu-byte stack\n",
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size),
                 static_cast<unsigned long long>(size_bytes_));
    std::abort();
  }
}

void HbmStack::Read(uint64_t offset, void* dst, uint64_t size) const {
  CheckRange(offset, size);
  if (size) std::memcpy(dst, base_ + offset, size);
}

void HbmStack::Write(uint64_t offset, const void* src, uint64_t size) {
  CheckRange(offset, size);
  if (size) std::memcpy(base_ + offset, src, size);
}

void HbmStack::Fill(uint64_t offset, uint8_t value, uint64_t size) {
  CheckRange(offset, size);
  if (size) std::memset(base_ + offset, value, size);
}

void HbmStack::Discard(uint64_t offset, uint64_t size) {
  CheckRange(offset, size);
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t first_page = (offset + page - 1) / page * page;
  uint64_t end = offset + size;
  uint64_t last_page = end / page * page;
  if (first_page < last_page) {
    // MADV_DONTNEED on private anonymous memory: the next read sees zero-filled pages.
    madvise(base_ + first_page, last_page - first_page, MADV_DONTNEED);
    std::memset(base_ + offset, 0, first_page - offset);
    std::memset(base_ + last_page, 0, end - last_page);
  } else {
    std::memset(base_ + offset, 0, size);
  }
}

uint8_t* HbmStack::HostAddress(uint64_t offset) const {
  CheckRange(offset, 0);
  return base_ + offset;
}

}  // namespace trnsim::simulator
