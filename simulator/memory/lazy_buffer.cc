#include "simulator/memory/lazy_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "simulator/memory/sparse_copy.h"

namespace trnsim::simulator {
namespace {

size_t PageBytes() {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return page;
}

uint8_t* Map(size_t size) {
  if (size == 0) return nullptr;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_NOHUGEPAGE
  madvise(p, size, MADV_NOHUGEPAGE);  // advice only: a host without THP ignores it
#endif
  return static_cast<uint8_t*>(p);
}

}  // namespace

LazyBuffer::LazyBuffer(size_t size_bytes) : data_(Map(size_bytes)), size_(size_bytes) {}

LazyBuffer::~LazyBuffer() {
  if (data_ != nullptr) munmap(data_, size_);
}

LazyBuffer::LazyBuffer(const LazyBuffer& other) : data_(Map(other.size_)), size_(other.size_) {
  CopyFrom(other);
}

LazyBuffer& LazyBuffer::operator=(const LazyBuffer& other) {
  if (this == &other) return *this;
  if (size_ != other.size_) {
    LazyBuffer fresh(other.size_);
    std::swap(data_, fresh.data_);
    std::swap(size_, fresh.size_);
  } else {
    Clear();
  }
  CopyFrom(other);
  return *this;
}

LazyBuffer::LazyBuffer(LazyBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

LazyBuffer& LazyBuffer::operator=(LazyBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void LazyBuffer::CopyFrom(const LazyBuffer& other) {
  // Only pages holding a non-zero byte are written (sparse_copy.h).
  CopyNonZeroPages(data_, other.data_, size_, PageBytes());
}

void LazyBuffer::Clear() {
  // MADV_DONTNEED on a private anonymous mapping: the next access sees zero-filled pages.
  if (data_ != nullptr && madvise(data_, size_, MADV_DONTNEED) != 0) std::memset(data_, 0, size_);
}

bool operator==(const LazyBuffer& a, const LazyBuffer& b) {
  return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
}

}  // namespace trnsim::simulator
