#include "simulator/memory/hbm_stack.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "simulator/memory/sparse_copy.h"

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

uint64_t HbmStack::PageBytes() {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return page;
}

StatusOr<int> HbmStack::Share(uint64_t offset, uint64_t size) {
  const uint64_t page = PageBytes();
  if (size == 0 || offset % page != 0 || size % page != 0 || offset > size_bytes_ ||
      size > size_bytes_ - offset) {
    return InvalidError("cannot share [" + std::to_string(offset) + ", +" + std::to_string(size) +
                        ") of the HBM stack: not whole pages inside it");
  }
  const int fd = memfd_create("trnsim-hbm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return ResourceError(std::string("memfd_create: ") + std::strerror(errno));
  auto fail = [fd](const std::string& what) {
    const std::string message = what + ": " + std::strerror(errno);
    close(fd);
    return ResourceError(message);
  };
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) return fail("ftruncate of a memfd");
  void* staging = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (staging == MAP_FAILED) return fail("mmap of a memfd");
  // Only the pages holding a non-zero byte cost memory in the memfd.
  CopyNonZeroPages(static_cast<uint8_t*>(staging), base_ + offset, size, page);
  munmap(staging, size);
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return fail("sealing a memfd");
  }
  if (mmap(base_ + offset, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
      MAP_FAILED) {
    return fail("mapping a memfd over emulated HBM");  // MAP_FIXED failing leaves the range
  }
  return fd;
}

void HbmStack::Unshare(uint64_t offset, uint64_t size) {
  CheckRange(offset, size);
  if (mmap(base_ + offset, size, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
    std::fprintf(stderr, "trnsim: cannot make shared HBM [%llu, +%llu) private again: %s\n",
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size),
                 std::strerror(errno));
    std::abort();
  }
}

uint8_t* HbmStack::HostAddress(uint64_t offset) const {
  CheckRange(offset, 0);
  return base_ + offset;
}

}  // namespace trnsim::simulator
