#include "driver/remote/chunking.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace trnsim::driver::remote {

std::vector<std::string_view> SplitChunks(std::string_view bytes, uint64_t chunk_bytes) {
  std::vector<std::string_view> chunks;
  if (chunk_bytes == 0) chunk_bytes = kChunkBytes;
  for (uint64_t at = 0; at < bytes.size(); at += chunk_bytes) {
    chunks.push_back(bytes.substr(at, std::min<uint64_t>(chunk_bytes, bytes.size() - at)));
  }
  return chunks;
}

size_t EncodeChunkPrefix(uint32_t field_number, uint64_t size, uint8_t* out) {
  size_t used = 0;
  out[used++] = static_cast<uint8_t>(field_number << 3 | 2);  // wire type 2: length-delimited
  do {
    out[used++] = static_cast<uint8_t>(size & 0x7f) | (size >= 0x80 ? 0x80 : 0);
    size >>= 7;
  } while (size != 0);
  return used;
}

std::optional<uint64_t> CopyChunk(const grpc::ByteBuffer& message, uint32_t field_number,
                                  uint8_t* dst, uint64_t room) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return std::nullopt;
  size_t slice = 0, at = 0, consumed = 0;
  auto next_byte = [&]() -> int {
    while (slice < slices.size() && at >= slices[slice].size()) {
      ++slice;
      at = 0;
    }
    if (slice == slices.size()) return -1;
    ++consumed;
    return slices[slice].begin()[at++];
  };
  uint8_t prefix[kChunkPrefixMaxBytes];  // only its first byte, the field's tag, is compared
  EncodeChunkPrefix(field_number, 0, prefix);
  if (next_byte() != prefix[0]) return std::nullopt;
  uint64_t size = 0;
  for (int shift = 0;; shift += 7) {
    const int byte = next_byte();
    if (byte < 0 || shift > 63) return std::nullopt;
    size |= uint64_t(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  if (size != message.Length() - consumed) return std::nullopt;
  if (size > room) return size;
  for (uint64_t copied = 0; copied < size; ++slice, at = 0) {
    const uint64_t piece = slices[slice].size() - at;
    std::memcpy(dst + copied, slices[slice].begin() + at, piece);
    copied += piece;
  }
  return size;
}

StatusOr<ChunkAssembler> ChunkAssembler::Start(uint64_t total_bytes, uint64_t max_total_bytes) {
  if (total_bytes > max_total_bytes) {
    return InvalidError("streamed payload of " + std::to_string(total_bytes) +
                        " bytes is over the limit of " + std::to_string(max_total_bytes));
  }
  ChunkAssembler assembler(total_bytes);
  // The total is bounded by the caller's limit, so reserving it up front is safe and saves
  // the regrowth copies of a multi-MiB payload.
  assembler.bytes_.reserve(total_bytes);
  return assembler;
}

Status ChunkCounter::Accept(uint64_t size) {
  if (failed_) return InvalidError("streamed payload: chunk after an earlier error");
  Status status;
  if (size == 0) {
    status = InvalidError("streamed payload: empty chunk");
  } else if (size > kChunkBytes) {
    status = InvalidError("streamed payload: chunk of " + std::to_string(size) +
                          " bytes is larger than the chunk size " + std::to_string(kChunkBytes));
  } else if (size > total_bytes_ - received_bytes_) {
    status = InvalidError("streamed payload: chunks pass the announced total of " +
                          std::to_string(total_bytes_) + " bytes");
  }
  if (!status.ok()) {
    failed_ = true;
    return status;
  }
  received_bytes_ += size;
  return Status::Ok();
}

Status ChunkCounter::CheckComplete() const {
  if (failed_) return InvalidError("streamed payload: refused after an earlier error");
  if (received_bytes_ != total_bytes_) {
    return InvalidError("streamed payload truncated: " + std::to_string(received_bytes_) +
                        " of " + std::to_string(total_bytes_) + " bytes arrived");
  }
  return Status::Ok();
}

Status ChunkAssembler::Add(std::string_view chunk) {
  TRNSIM_RETURN_IF_ERROR(counter_.Accept(chunk.size()));
  bytes_.append(chunk);
  return Status::Ok();
}

StatusOr<std::string> ChunkAssembler::Finish() && {
  TRNSIM_RETURN_IF_ERROR(counter_.CheckComplete());
  return std::move(bytes_);
}

}  // namespace trnsim::driver::remote
