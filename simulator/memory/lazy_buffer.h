// LazyBuffer: a fixed-size, zero-initialised byte array whose host memory is committed page by
// page on first write — what a core's SBUF and PSUM (reference::CoreState) live in.
//
// The bytes are one private anonymous mapping (mmap MAP_NORESERVE, as HbmStack): creating a
// buffer costs address space only, an untouched page reads as zero without being backed (the
// kernel's shared zero page), and a page costs host memory from its first write. So a 24 MiB
// SBUF costs only the pages a kernel touches, and creating one zero-fills nothing. The bytes are
// contiguous and addressed directly (data()), so readers and writers pay no per-access check.
// Transparent huge pages are turned off for the mapping (MADV_NOHUGEPAGE): one 2 MiB page would
// back ten 192 KiB partitions at once, and a tile that touches every partition would commit it
// all.
//
// It keeps the slice of std::vector<uint8_t>'s interface that users of CoreState need: data(),
// size(), [], begin()/end() (pointers, so std::span and algorithms take it), ==. Copies are deep
// (a copy backs only the source's pages that hold a non-zero byte); moves transfer the mapping.
// Creation failure (no address space) throws std::bad_alloc, as the vector it replaces did.
//
// Thread safety: as a plain array — distinct bytes may be written concurrently.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trnsim::simulator {

class LazyBuffer {
 public:
  using value_type = uint8_t;
  using iterator = uint8_t*;
  using const_iterator = const uint8_t*;

  LazyBuffer() = default;
  explicit LazyBuffer(size_t size_bytes);  // every byte zero
  ~LazyBuffer();
  LazyBuffer(const LazyBuffer& other);
  LazyBuffer& operator=(const LazyBuffer& other);
  LazyBuffer(LazyBuffer&& other) noexcept;
  LazyBuffer& operator=(LazyBuffer&& other) noexcept;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint8_t& operator[](size_t i) { return data_[i]; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }
  uint8_t* begin() { return data_; }
  uint8_t* end() { return data_ + size_; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }

  // Makes every byte zero again and hands the committed pages back to the host.
  void Clear();

  friend bool operator==(const LazyBuffer& a, const LazyBuffer& b);

 private:
  void CopyFrom(const LazyBuffer& other);  // into a zero buffer of the same size

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace trnsim::simulator
