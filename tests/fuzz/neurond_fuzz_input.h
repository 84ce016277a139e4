// The byte format of neurond_service_fuzzer's inputs (tests/fuzz/README.md): a sequence of
// operations, each one RPC (or one message of a streamed RPC) of proto/neurond.proto sent by
// one of two sessions. FuzzReader decodes it for the fuzzer; FuzzWriter encodes it for the seed
// corpus (neurond_corpus_writer.cc). Reading past the end yields zeros, so every byte string is
// an input.
//
// An operation is [Op][caller] then its fields, in the order the fuzzer reads them
// (neurond_service_fuzzer.cc, Run*). caller & 3: 0 session A, 1 session B, 2 a stale or forged
// session key, 3 no key (Hello: caller & 1 is the slot the new session takes).
// A Value is a tag byte (% 8) then: 0 u8, 1 u16, 2 u32, 3 u64, 4 2^(u8 % 64), 5 2^64-1-u8,
// 6 2^(u8 % 64) - 1, 7 2^(u8 % 64) + 1 — so boundary values are one mutation away.
// A handle is one byte: below 0xF0 an index into the handles of its kind (memory, program or
// point-to-point id) the daemon returned so far in this input, to either session (the byte
// itself when there are none), 0xF0..0xFE the literal 0..14, 0xFF a Value.
// Bytes are a u16 length then that many bytes (fewer at the end of the input); a Text is Bytes
// read as 7-bit ASCII.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace trnsim::neurond::fuzz {

enum class Op : uint8_t {
  kHello,
  kAttach,
  kBreakAttach,
  kGoodbye,
  kAcquireCores,
  kReleaseCores,
  kAllocate,
  kFree,
  kDescribe,
  kWriteBegin,  // opens a Write stream in a slot (header or not)
  kWriteData,   // one more message on it
  kWriteEnd,    // WritesDone + Finish, or cancel
  kRead,
  kCopy,
  kFill,
  kGetHbmUsage,
  kLoadBegin,  // opens a LoadProgram stream in a slot
  kLoadChunk,  // in order, out of order, raw, a second header, empty, oversized
  kLoadEnd,
  kLoadTemplate,  // a whole LoadProgram of a built-in program, optionally patched
  kUnload,
  kExecute,
  kHostCollective,
  kPointToPoint,
  kStatus,
  kWriteShared,  // a shared-memory transfer naming a forged region (the fuzz daemon takes none)
  kReadShared,
  kCount
};

// Stream slots (kWriteBegin / kLoadBegin): streams open at once per input.
inline constexpr int kStreamSlots = 3;

// Caller codes (the byte after the Op).
inline constexpr uint8_t kSessionA = 0, kSessionB = 1, kStaleKey = 2, kNoKey = 3;

// Chunk kinds of kLoadChunk.
enum class LoadChunk : uint8_t { kNext, kSlice, kRaw, kHeader, kEmpty, kBig, kCount };
// Message kinds of kWriteData.
enum class WriteData : uint8_t { kBytes, kFill, kHeader, kCount };

class FuzzReader {
 public:
  FuzzReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool done() const { return pos_ >= size_; }

  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint64_t Uint(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{U8()} << (8 * i);
    return v;
  }
  uint64_t Value() {
    const uint8_t tag = U8() % 8;
    switch (tag) {
      case 0:
        return U8();
      case 1:
        return Uint(2);
      case 2:
        return Uint(4);
      case 3:
        return Uint(8);
      case 4:
        return uint64_t{1} << (U8() % 64);
      case 5:
        return ~uint64_t{0} - U8();
      case 6:
        return (uint64_t{1} << (U8() % 64)) - 1;
      default:
        return (uint64_t{1} << (U8() % 64)) + 1;
    }
  }
  std::string Bytes() {
    size_t n = static_cast<size_t>(Uint(2));
    n = std::min(n, size_ - std::min(pos_, size_));
    std::string out(reinterpret_cast<const char*>(data_) + pos_, n);
    pos_ += n;
    return out;
  }
  // Bytes() as 7-bit ASCII, for proto3 `string` fields: protobuf refuses to parse a message
  // whose string is not UTF-8 (gRPC INTERNAL) before the daemon sees it.
  std::string Text() {
    std::string out = Bytes();
    for (char& c : out) c = static_cast<char>(c & 0x7f);
    return out;
  }
  // A handle from `pool` (see the file comment).
  uint64_t Handle(const std::vector<uint64_t>& pool) {
    const uint8_t b = U8();
    if (b < 0xF0) return pool.empty() ? b : pool[b % pool.size()];
    if (b < 0xFF) return b - 0xF0;
    return Value();
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class FuzzWriter {
 public:
  FuzzWriter& Begin(Op op, uint8_t caller) { return U8(static_cast<uint8_t>(op)).U8(caller); }
  FuzzWriter& U8(uint8_t v) {
    out_.push_back(static_cast<char>(v));
    return *this;
  }
  FuzzWriter& Uint(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  // The shortest plain encoding of `v` (tags 0 to 3).
  FuzzWriter& Value(uint64_t v) {
    if (v <= 0xFF) return U8(0).U8(static_cast<uint8_t>(v));
    if (v <= 0xFFFF) return U8(1).Uint(v, 2);
    if (v <= 0xFFFFFFFF) return U8(2).Uint(v, 4);
    return U8(3).Uint(v, 8);
  }
  FuzzWriter& Bytes(std::string_view bytes) {
    Uint(bytes.size(), 2);
    out_.append(bytes);
    return *this;
  }
  // The index-th handle of its kind the daemon returned in this input.
  FuzzWriter& Handle(uint8_t index) { return U8(index); }
  // A literal handle 0..14.
  FuzzWriter& LiteralHandle(uint8_t value) { return U8(static_cast<uint8_t>(0xF0 + value)); }

  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

}  // namespace trnsim::neurond::fuzz
