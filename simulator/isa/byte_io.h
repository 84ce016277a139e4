// Little-endian byte writer/reader for the stream codec. The reader never reads past its span:
// every Get checks the remaining length and latches a failure instead.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace trnsim::isa::internal {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  template <typename T>
  void Put(T value) {
    auto v = static_cast<std::make_unsigned_t<T>>(value);
    for (size_t i = 0; i < sizeof(T); ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Zeros(size_t n) { out_.insert(out_.end(), n, 0); }

 private:
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    if (!ok_ || bytes_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return T{};
    }
    std::make_unsigned_t<T> v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      v |= static_cast<std::make_unsigned_t<T>>(
          static_cast<std::make_unsigned_t<T>>(bytes_[pos_ + i]) << (8 * i));
    }
    pos_ += sizeof(T);
    return static_cast<T>(v);
  }
  // True when the next `n` bytes exist and are all zero; consumes them.
  bool ZerosOk(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) return ok_ = false;
    for (size_t i = 0; i < n; ++i) {
      if (bytes_[pos_ + i] != 0) {
        pos_ += n;
        return false;
      }
    }
    pos_ += n;
    return true;
  }
  bool ok() const { return ok_; }
  size_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace trnsim::isa::internal
