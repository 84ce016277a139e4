// RemoteDevice's Write and Read (remote_device_impl.h): through mapped device memory, the shared
// region (its ring or RPCs), or the chunked streams.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.h"
#include "driver/remote/chunking.h"
#include "driver/remote/remote_device_impl.h"
#include "driver/remote/shared_region.h"

namespace trnsim::driver::remote {
namespace {

// Smallest transfer that maps its device memory (MappedMemory) rather than going through the
// daemon: one mapping costs a side-socket round trip and an mmap, about what the ring moves a
// quarter of this in.
constexpr uint64_t kMinMappedTransferBytes = 64 * 1024;

constexpr char kWriteMethod[] = "/trnsim.neurond.v1.Neurond/Write";

constexpr char kReadMethod[] = "/trnsim.neurond.v1.Neurond/Read";

// A serialised WriteRequest {data: chunk} whose payload is a view of `chunk`: the field's tag
// and length are the only bytes made here. The caller keeps `chunk` alive until the call ends.
grpc::ByteBuffer ChunkMessage(std::string_view chunk) {
  uint8_t prefix[kChunkPrefixMaxBytes];
  const size_t used = EncodeChunkPrefix(v1::WriteRequest::kDataFieldNumber, chunk.size(), prefix);
  grpc::Slice slices[2] = {grpc::Slice(prefix, used),
                           grpc::Slice(chunk.data(), chunk.size(), grpc::Slice::STATIC_SLICE)};
  return grpc::ByteBuffer(slices, 2);
}

}  // namespace

Status RemoteDevice::CheckTransferRange(uint64_t offset, uint64_t size) const {
  const uint64_t stack_bytes = spec_->chip->hbm_bytes_per_stack;
  if (size > stack_bytes || offset > stack_bytes - size) {
    return InvalidError("range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                        ") is larger than any allocation (one HBM stack holds " +
                        std::to_string(stack_bytes) + " bytes)");
  }
  return Status::Ok();
}

std::shared_ptr<MappedMemory> RemoteDevice::MappingFor(MemoryHandle handle) {
  {
    std::lock_guard lock(mappings_mutex_);
    auto it = mappings_.find(handle);
    if (it != mappings_.end()) return it->second;
    if (unmappable_.contains(handle)) return nullptr;
    // Mapped from its second transfer: memory written once (a model's weights) never pays for a
    // mapping it would not use again (bench/README.md "nrt_remote_bench", TensorWriteOnce).
    if (transferred_once_.insert(handle).second) return nullptr;
  }
  const auto timeout =
      std::min<std::chrono::milliseconds>(options_.rpc_deadline, std::chrono::milliseconds(10'000));
  StatusOr<std::unique_ptr<MappedMemory>> mapped = MapDeviceMemory(
      SharedMemorySocketPath(address_.substr(5)), session_key_, handle, int(timeout.count()));
  std::lock_guard lock(mappings_mutex_);
  if (!mapped.ok()) {
    if (mapped.status().code() != StatusCode::kExecNcBusy) {
      TRNSIM_LOG(Debug, Tdrv) << "device memory " << handle << " is not mapped, its transfers go "
                              << "through neurond (" << mapped.status().message() << ")";
      unmappable_.insert(handle);
    }
    return nullptr;
  }
  // Another thread may have mapped it meanwhile: keep one mapping.
  auto [it, inserted] = mappings_.emplace(handle, std::move(*mapped));
  return it->second;
}

std::shared_ptr<MappedMemory> RemoteDevice::MappedPart(MemoryHandle handle, uint64_t offset,
                                                       uint64_t size, uint64_t* lo, uint64_t* hi) {
  if (shared_ == nullptr || size < kMinMappedTransferBytes) return nullptr;
  std::shared_ptr<MappedMemory> mapping = MappingFor(handle);
  // Out of the memory's range: the daemon refuses it, before any byte moves.
  if (mapping == nullptr || offset > mapping->memory_size() ||
      size > mapping->memory_size() - offset) {
    return nullptr;
  }
  *lo = std::max(offset, mapping->offset());
  *hi = std::min(offset + size, mapping->offset() + mapping->size());
  return *lo < *hi ? mapping : nullptr;
}

Status RemoteDevice::Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size) {
  if (size > 0 && src == nullptr) return InvalidError("source buffer is NULL");
  TRNSIM_RETURN_IF_ERROR(CheckTransferRange(offset, size));
  TRNSIM_RETURN_IF_ERROR(CheckSession());
  uint64_t lo = 0, hi = 0;
  if (std::shared_ptr<MappedMemory> m = MappedPart(handle, offset, size, &lo, &hi)) {
    const uint8_t* bytes = static_cast<const uint8_t*>(src);
    std::memcpy(m->data() + (lo - m->offset()), bytes + (lo - offset), hi - lo);
    // The bytes outside the whole pages the mapping holds (at most a page on each side).
    if (lo > offset) TRNSIM_RETURN_IF_ERROR(WriteThroughDaemon(handle, offset, bytes, lo - offset));
    if (hi < offset + size) {
      return WriteThroughDaemon(handle, hi, bytes + (hi - offset), offset + size - hi);
    }
    return Status::Ok();
  }
  return WriteThroughDaemon(handle, offset, src, size);
}

Status RemoteDevice::WriteThroughDaemon(MemoryHandle handle, uint64_t offset, const void* src,
                                        uint64_t size) {
  const std::chrono::milliseconds deadline = StreamDeadline(size);
  if (shared_ != nullptr) {
    // Another thread's transfer holding the region: this one takes the stream instead.
    std::unique_lock region = shared_->TryLock();
    if (region.owns_lock() && !shared_->broken()) {
      return shared_->Write(handle, offset, src, size, Hooks(deadline));
    }
  }
  grpc::ClientContext context;
  Prepare(&context, deadline);
  v1::WriteResponse response;
  // The stream is written as raw messages so that each data chunk goes to gRPC as a view of
  // `src` (ChunkMessage), not copied into a WriteRequest first and serialised again.
  std::unique_ptr<grpc::ClientWriter<grpc::ByteBuffer>> writer(
      grpc::internal::ClientWriterFactory<grpc::ByteBuffer>::Create(
          channel_.get(),
          grpc::internal::RpcMethod(kWriteMethod, grpc::internal::RpcMethod::CLIENT_STREAMING,
                                    channel_),
          &context, &response));
  v1::WriteRequest message;
  v1::WriteHeader* header = message.mutable_header();
  header->set_handle(handle);
  header->set_offset(offset);
  header->set_size(size);
  // A failed Write means the daemon ended the call early (it refused the header, or the
  // connection broke); Finish says which.
  // buffer_hint lets gRPC coalesce messages instead of flushing each one.
  const grpc::WriteOptions buffered = grpc::WriteOptions().set_buffer_hint();
  grpc::ByteBuffer bytes;
  bool serialized = false;
  if (!grpc::SerializationTraits<v1::WriteRequest>::Serialize(message, &bytes, &serialized).ok()) {
    return ProtocolError("Write", "cannot serialise the header");
  }
  bool open = writer->Write(bytes, size > 0 ? buffered : grpc::WriteOptions());
  if (size > 0) {
    std::vector<std::string_view> chunks =
        SplitChunks(std::string_view(static_cast<const char*>(src), size));
    for (size_t i = 0; open && i < chunks.size(); ++i) {
      bytes = ChunkMessage(chunks[i]);
      open = writer->Write(bytes, i + 1 < chunks.size() ? buffered : grpc::WriteOptions());
    }
  }
  if (open) writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (!status.ok()) return TransportError("Write", status, deadline);
  return StatusFromProto(response.status());
}

Status RemoteDevice::Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size) {
  if (size > 0 && dst == nullptr) return InvalidError("destination buffer is NULL");
  TRNSIM_RETURN_IF_ERROR(CheckTransferRange(offset, size));
  TRNSIM_RETURN_IF_ERROR(CheckSession());
  uint64_t lo = 0, hi = 0;
  if (std::shared_ptr<MappedMemory> m = MappedPart(handle, offset, size, &lo, &hi)) {
    uint8_t* bytes = static_cast<uint8_t*>(dst);
    if (lo > offset) TRNSIM_RETURN_IF_ERROR(ReadThroughDaemon(handle, offset, bytes, lo - offset));
    if (hi < offset + size) {
      TRNSIM_RETURN_IF_ERROR(
          ReadThroughDaemon(handle, hi, bytes + (hi - offset), offset + size - hi));
    }
    std::memcpy(bytes + (lo - offset), m->data() + (lo - m->offset()), hi - lo);
    return Status::Ok();
  }
  return ReadThroughDaemon(handle, offset, dst, size);
}

Status RemoteDevice::ReadThroughDaemon(MemoryHandle handle, uint64_t offset, void* dst,
                                       uint64_t size) {
  const std::chrono::milliseconds deadline = StreamDeadline(size);
  if (shared_ != nullptr) {
    std::unique_lock region = shared_->TryLock();
    if (region.owns_lock() && !shared_->broken()) {
      return shared_->Read(handle, offset, dst, size, Hooks(deadline));
    }
  }
  grpc::ClientContext context;
  Prepare(&context, deadline);
  v1::ReadRequest request;
  request.set_handle(handle);
  request.set_offset(offset);
  request.set_size(size);
  // The chunks arrive as raw messages, copied from gRPC's buffers straight to `dst` (CopyChunk).
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
          channel_.get(),
          grpc::internal::RpcMethod(kReadMethod, grpc::internal::RpcMethod::SERVER_STREAMING,
                                    channel_),
          &context, request));
  grpc::ByteBuffer message;
  uint64_t received = 0;
  Status result;
  while (reader->Read(&message)) {
    if (!result.ok()) continue;  // drain what is still in flight after TryCancel
    const uint64_t room = std::min<uint64_t>(kChunkBytes, size - received);
    std::optional<uint64_t> copied = CopyChunk(message, v1::ReadResponse::kDataFieldNumber,
                                               static_cast<uint8_t*>(dst) + received, room);
    if (copied && *copied <= room) {
      received += *copied;
      continue;
    }
    v1::ReadResponse chunk;
    if (!copied &&
        !grpc::SerializationTraits<v1::ReadResponse>::Deserialize(&message, &chunk).ok()) {
      result = ProtocolError("Read", "a reply that is not a ReadResponse");
    } else if (!copied && chunk.status().code() != 0) {
      result = StatusFromProto(chunk.status());
    } else if (copied || chunk.data().size() > room) {
      const uint64_t bytes = copied ? *copied : chunk.data().size();
      result = ProtocolError("Read", "a chunk of " + std::to_string(bytes) + " bytes after " +
                                         std::to_string(received) + " of " + std::to_string(size) +
                                         " bytes");
    } else {
      std::memcpy(static_cast<uint8_t*>(dst) + received, chunk.data().data(), chunk.data().size());
      received += chunk.data().size();
      continue;
    }
    context.TryCancel();
  }
  grpc::Status status = reader->Finish();
  if (!result.ok()) return result;
  if (!status.ok()) return TransportError("Read", status, deadline);
  if (received != size) {
    return ProtocolError("Read", "the stream ended after " + std::to_string(received) + " of " +
                                     std::to_string(size) + " bytes");
  }
  return Status::Ok();
}

}  // namespace trnsim::driver::remote
