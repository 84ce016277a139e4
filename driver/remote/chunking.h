// Chunking of streamed payloads (Write, Read, LoadProgram): a payload of any size travels as
// pieces of at most kChunkBytes, so no gRPC message ever nears its size limit, and the receiver
// reassembles them against the total announced up front.
//
// The receiver trusts nothing: ChunkCounter refuses an empty chunk, a chunk larger than
// kChunkBytes, bytes past the announced total and a stream that ends short, each with
// NRT_INVALID and one message. A receiver that consumes each chunk as it arrives (neurond's
// Write) uses a ChunkCounter alone; ChunkAssembler adds a limit on the total and reassembles
// the payload (LoadProgram), never allocating more than the announced total.
//
// Thread safety: SplitChunks is reentrant; a ChunkCounter or ChunkAssembler is used by one
// thread at a time.
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "proto/neurond.pb.h"

namespace trnsim::driver::remote {

// The protocol's chunk size (neurond.proto, Limits.CHUNK_BYTES): 1 MiB.
inline constexpr uint64_t kChunkBytes = neurond::v1::CHUNK_BYTES;
static_assert(kChunkBytes == uint64_t{1} << 20);

// Largest serialised ProgramImage a daemon accepts: protobuf parses messages below 2 GiB only.
inline constexpr uint64_t kMaxProgramImageBytes = uint64_t{1} << 30;

// Views of consecutive pieces of `bytes`, each of `chunk_bytes` (> 0) except a shorter last
// one; no pieces for empty input. The views point into `bytes`.
std::vector<std::string_view> SplitChunks(std::string_view bytes,
                                          uint64_t chunk_bytes = kChunkBytes);

// The wire prefix of a length-delimited protobuf field `field_number` carrying `size` bytes
// (its tag, then the size as a varint): what precedes a chunk in a serialised WriteRequest or
// ReadResponse, whose data field is the only one set. Writes at most kChunkPrefixMaxBytes to
// `out` and returns how many.
inline constexpr size_t kChunkPrefixMaxBytes = 11;
size_t EncodeChunkPrefix(uint32_t field_number, uint64_t size, uint8_t* out);

// When `message` is a serialised message whose only field is the length-delimited field
// `field_number` (a ReadResponse or WriteRequest {data}: what carries every chunk), returns the
// field's size and copies its bytes to `dst` if they fit in `room` bytes (nothing is copied
// otherwise); nullopt for any other message, which the caller parses the ordinary way.
std::optional<uint64_t> CopyChunk(const grpc::ByteBuffer& message, uint32_t field_number,
                                  uint8_t* dst, uint64_t room);

class ChunkCounter {
 public:
  explicit ChunkCounter(uint64_t total_bytes) : total_bytes_(total_bytes) {}

  // Counts one chunk of `size` bytes: NRT_INVALID if it is empty, larger than kChunkBytes, or
  // would pass the total. After an error the counter refuses everything.
  Status Accept(uint64_t size);
  // NRT_INVALID after an error or if fewer bytes than the total arrived.
  Status CheckComplete() const;

  uint64_t total_bytes() const { return total_bytes_; }
  uint64_t received_bytes() const { return received_bytes_; }

 private:
  uint64_t total_bytes_ = 0;
  uint64_t received_bytes_ = 0;
  bool failed_ = false;
};

class ChunkAssembler {
 public:
  // An assembler for `total_bytes`; NRT_INVALID when that exceeds `max_total_bytes`.
  static StatusOr<ChunkAssembler> Start(uint64_t total_bytes, uint64_t max_total_bytes);

  // Appends one chunk: NRT_INVALID if it is empty, larger than kChunkBytes, or would pass the
  // total. After an error the assembler refuses everything.
  Status Add(std::string_view chunk);
  // The reassembled payload; NRT_INVALID if fewer bytes than the total arrived.
  StatusOr<std::string> Finish() &&;

  uint64_t total_bytes() const { return counter_.total_bytes(); }
  uint64_t received_bytes() const { return counter_.received_bytes(); }

 private:
  explicit ChunkAssembler(uint64_t total_bytes) : counter_(total_bytes) {}

  ChunkCounter counter_;
  std::string bytes_;
};

}  // namespace trnsim::driver::remote
