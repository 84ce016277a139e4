// The memory RPCs of NeurondService: Allocate, Free, Describe, Write, Read, WriteShared,
// ReadShared, Copy, Fill and GetHbmUsage, and the registration of shared-memory regions. Handles
// in requests are the session's (Session::Resolve maps them to the Device's); every range is
// checked against the allocation (and a shared region's against the region's mapped size)
// before any byte moves. Write and Read stream: the daemon holds at most one chunk of a
// transfer, in a buffer each call reuses for all its chunks.
#include <grpc/slice.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "driver/remote/chunking.h"
#include "driver/remote/convert.h"
#include "driver/remote/shared_region.h"
#include "tools/neurond/service.h"

namespace trnsim::neurond {
namespace {

namespace remote = driver::remote;

// NRT_INVALID unless [offset, offset+size) lies inside the allocation.
trnsim::Status CheckRange(const Session::DeviceMemory& memory, uint64_t offset, uint64_t size) {
  const uint64_t limit = memory.info.size_bytes;
  if (offset > limit || size > limit - offset) {
    return InvalidError("range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                        ") is outside the " + std::to_string(limit) + "-byte allocation " +
                        std::to_string(memory.info.handle));
  }
  return trnsim::Status::Ok();
}

// Each chunk goes to the device as it arrives, through one pooled chunk buffer; nothing more is
// buffered. The header's range is checked before any byte moves and every chunk against it
// (ChunkCounter), so no chunk lands outside the range; a stream refused or broken off part-way
// leaves the range partly written, like an interrupted DMA. A data chunk is copied from gRPC's
// buffers (CopyChunk) without a protobuf message; anything else is parsed the ordinary way.
trnsim::Status DoWrite(driver::Device& device, Session& session, ChunkBufferPool& buffers,
                       grpc::ServerReader<grpc::ByteBuffer>* reader) {
  grpc::ByteBuffer raw;
  v1::WriteRequest message;
  if (!reader->Read(&raw)) return InvalidError("Write stream ended before its header");
  if (!grpc::SerializationTraits<v1::WriteRequest>::Deserialize(&raw, &message).ok() ||
      !message.has_header()) {
    return InvalidError("Write stream does not start with a header");
  }
  const v1::WriteHeader header = message.header();
  TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory memory, session.Resolve(header.handle()));
  TRNSIM_RETURN_IF_ERROR(CheckRange(memory, header.offset(), header.size()));
  remote::ChunkCounter counter(header.size());
  ChunkBufferPool::Lease buffer = buffers.Take();
  while (reader->Read(&raw)) {
    const uint64_t at = header.offset() + counter.received_bytes();
    std::optional<uint64_t> size =
        remote::CopyChunk(raw, v1::WriteRequest::kDataFieldNumber, buffer.data(), buffer.size());
    const uint8_t* data = buffer.data();
    if (!size) {
      if (!grpc::SerializationTraits<v1::WriteRequest>::Deserialize(&raw, &message).ok()) {
        return InvalidError("Write stream has a message that is not a WriteRequest");
      }
      if (message.has_header()) return InvalidError("Write stream has a second header");
      size = message.data().size();
      data = reinterpret_cast<const uint8_t*>(message.data().data());
    }
    TRNSIM_RETURN_IF_ERROR(counter.Accept(*size));  // refuses a chunk larger than the buffer
    TRNSIM_RETURN_IF_ERROR(device.Write(memory.device_handle, at, data, *size));
  }
  return counter.CheckComplete();
}

}  // namespace

grpc::Status NeurondService::Allocate(grpc::ServerContext* context,
                                      const v1::AllocationRequest* request,
                                      v1::AllocateResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Allocate", &denied);
  if (session == nullptr) return denied;
  auto run = [&]() -> trnsim::Status {
    TRNSIM_ASSIGN_OR_RETURN(driver::AllocationRequest parsed,
                            remote::AllocationRequestFromProto(*request));
    TRNSIM_ASSIGN_OR_RETURN(driver::AllocationInfo info, session->Allocate(parsed));
    remote::ToProto(info, response->mutable_info());
    return trnsim::Status::Ok();
  };
  Reply(*session, "Allocate", run(), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::Free(grpc::ServerContext* context, const v1::MemoryRef* request,
                                  v1::FreeResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Free", &denied);
  if (session == nullptr) return denied;
  Reply(*session, "Free", session->Free(request->handle()), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::Describe(grpc::ServerContext* context, const v1::MemoryRef* request,
                                      v1::DescribeResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Describe", &denied);
  if (session == nullptr) return denied;
  StatusOr<Session::DeviceMemory> memory = session->Resolve(request->handle());
  if (memory.ok()) remote::ToProto(memory->info, response->mutable_info());
  Reply(*session, "Describe", memory.status(), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::RawWrite(grpc::ServerContext* context,
                                      grpc::ServerReader<grpc::ByteBuffer>* reader,
                                      v1::WriteResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Write", &denied);
  if (session == nullptr) return denied;
  Reply(*session, "Write", DoWrite(*device_, *session, write_buffers_, reader),
        response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::RawRead(
    grpc::ServerContext* context,
    grpc::ServerSplitStreamer<v1::ReadRequest, grpc::ByteBuffer>* stream) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Read", &denied);
  if (session == nullptr) return denied;
  v1::ReadRequest request;
  if (!stream->Read(&request)) return grpc::Status(grpc::StatusCode::INTERNAL, "no ReadRequest");
  auto fail = [&](const trnsim::Status& status) {
    v1::ReadResponse response;
    Reply(*session, "Read", status, response.mutable_status());
    grpc::ByteBuffer bytes;
    bool own = false;
    if (grpc::SerializationTraits<v1::ReadResponse>::Serialize(response, &bytes, &own).ok()) {
      stream->Write(bytes);
    }
    return grpc::Status::OK;
  };
  StatusOr<Session::DeviceMemory> memory = session->Resolve(request.handle());
  if (!memory.ok()) return fail(memory.status());
  trnsim::Status range = CheckRange(*memory, request.offset(), request.size());
  if (!range.ok()) return fail(range);
  // Chunk by chunk: the daemon never holds more than one chunk of a large read. Each message
  // is a serialised ReadResponse {data}: the field's prefix, then the bytes, which the Device
  // reads straight into the slice gRPC sends.
  uint64_t done = 0;
  do {
    const uint64_t piece = std::min<uint64_t>(remote::kChunkBytes, request.size() - done);
    uint8_t prefix[remote::kChunkPrefixMaxBytes];
    const size_t prefix_bytes =
        remote::EncodeChunkPrefix(v1::ReadResponse::kDataFieldNumber, piece, prefix);
    // Filled before it is wrapped: a small slice keeps its bytes inline in the struct.
    grpc_slice raw = grpc_slice_malloc(prefix_bytes + piece);
    uint8_t* bytes = GRPC_SLICE_START_PTR(raw);
    std::memcpy(bytes, prefix, prefix_bytes);
    trnsim::Status status = device_->Read(memory->device_handle, request.offset() + done,
                                          bytes + prefix_bytes, piece);
    grpc::Slice slice(raw, grpc::Slice::STEAL_REF);
    if (!status.ok()) return fail(status);
    grpc::ByteBuffer message(&slice, 1);
    if (!stream->Write(message)) return grpc::Status::CANCELLED;  // the client went away
    done += piece;
  } while (done < request.size());
  return grpc::Status::OK;
}

grpc::Status NeurondService::WriteShared(grpc::ServerContext* context,
                                         const v1::SharedTransferRequest* request,
                                         v1::SharedTransferResponse* response) {
  return SharedTransfer(context, "WriteShared", /*to_device=*/true, *request, response);
}

grpc::Status NeurondService::ReadShared(grpc::ServerContext* context,
                                        const v1::SharedTransferRequest* request,
                                        v1::SharedTransferResponse* response) {
  return SharedTransfer(context, "ReadShared", /*to_device=*/false, *request, response);
}

grpc::Status NeurondService::SharedTransfer(grpc::ServerContext* context, const char* rpc,
                                            bool to_device,
                                            const v1::SharedTransferRequest& request,
                                            v1::SharedTransferResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, rpc, &denied);
  if (session == nullptr) return denied;
  auto run = [&]() -> trnsim::Status {
    TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory memory, session->Resolve(request.handle()));
    TRNSIM_RETURN_IF_ERROR(CheckRange(memory, request.offset(), request.size()));
    TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<remote::SharedRegion> region,
                            session->SharedRegionById(request.region()));
    TRNSIM_RETURN_IF_ERROR(region->CheckRange(request.region_offset(), request.size()));
    uint8_t* bytes = region->data() + request.region_offset();
    return to_device ? device_->Write(memory.device_handle, request.offset(), bytes, request.size())
                     : device_->Read(memory.device_handle, request.offset(), bytes, request.size());
  };
  Reply(*session, rpc, run(), response->mutable_status());
  return grpc::Status::OK;
}

trnsim::Status NeurondService::RingTransfer(Session& session, remote::RingOp op, uint64_t handle,
                                            uint64_t offset, uint64_t size, uint8_t* data) {
  TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory memory, session.Resolve(handle));
  TRNSIM_RETURN_IF_ERROR(CheckRange(memory, offset, size));
  return op == remote::RingOp::kWrite ? device_->Write(memory.device_handle, offset, data, size)
                                      : device_->Read(memory.device_handle, offset, data, size);
}

SharedMemoryListener::Answer NeurondService::RegisterSharedRegion(
    const v1::SharedRegionRequest& request, remote::UniqueFd fd, const PeerCredentials& peer) {
  SharedMemoryListener::Answer answer;
  v1::SharedRegionResponse& response = answer.response;
  std::shared_ptr<Session> session = sessions_.Find(request.session_key());
  const std::string who = "pid " + std::to_string(peer.pid) + ", uid " + std::to_string(peer.uid);
  if (session == nullptr) {
    TRNSIM_LOG(Warn, Tool) << "refused a shared-memory request (" << who
                           << "): unknown or ended session key";
    remote::ToProto(InvalidError("unknown or ended session key"), response.mutable_status());
    return answer;
  }
  const std::string& hello_peer = session->identity().peer;
  const bool other_uid =
      hello_peer.starts_with("uid:") && hello_peer != "uid:" + std::to_string(peer.uid);
  if (request.map_memory()) {
    auto map = [&]() -> trnsim::Status {
      if (other_uid) {
        return InvalidError("the request comes from uid " + std::to_string(peer.uid) +
                            ", the session's Hello from " + hello_peer);
      }
      TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory memory, session->Resolve(request.handle()));
      TRNSIM_ASSIGN_OR_RETURN(driver::Device::SharedMemory shared,
                              device_->ShareMemory(memory.device_handle));
      answer.fd = remote::UniqueFd(shared.fd);
      response.set_mapped_offset(shared.offset);
      response.set_mapped_size(shared.size);
      response.set_size_bytes(memory.info.size_bytes);
      return trnsim::Status::Ok();
    };
    Reply(*session, "MapMemory", map(), response.mutable_status());
    return answer;
  }
  auto run = [&]() -> trnsim::Status {
    if (other_uid) {
      return InvalidError("the region comes from uid " + std::to_string(peer.uid) +
                          ", the session's Hello from " + hello_peer);
    }
    TRNSIM_ASSIGN_OR_RETURN(
        std::unique_ptr<remote::SharedRegion> region,
        remote::SharedRegion::Map(std::move(fd), remote::kMaxSharedRegionBytes));
    const uint64_t size = region->size();
    std::shared_ptr<remote::SharedRegion> shared = std::move(region);
    TRNSIM_ASSIGN_OR_RETURN(uint64_t id, session->AddSharedRegion(shared));
    response.set_region(id);
    response.set_size_bytes(size);
    // The ring, when asked for and the region has room for it; else the client uses the RPCs.
    if (request.ring() && size >= remote::kMinRingRegionBytes) {
      // The server lives in the session and is stopped by its Close, so `raw` outlives it.
      Session* raw = session.get();
      auto serve = [this, raw](remote::RingOp op, uint64_t handle, uint64_t offset, uint64_t size,
                               uint8_t* data) {
        return RingTransfer(*raw, op, handle, offset, size, data);
      };
      RingServer::Execute execute;
      if (request.ring_execute()) {
        execute = [this, raw](const std::string& bytes, uint8_t* reply, uint64_t room) {
          return RingExecute(*raw, bytes, reply, room);
        };
      }
      TRNSIM_RETURN_IF_ERROR(session->AddRingServer(std::make_unique<RingServer>(
          shared, serve,
          "session " + std::to_string(session->identity().id) + " region " + std::to_string(id),
          execute)));
      response.set_ring(true);
      response.set_ring_execute(request.ring_execute());
    }
    TRNSIM_LOG(Info, Tool) << "session " << session->identity().id << ": shared-memory region "
                           << id << " of " << size << " bytes (" << who << ")"
                           << (response.ring() ? ", request ring" : "");
    return trnsim::Status::Ok();
  };
  Reply(*session, "RegisterSharedRegion", run(), response.mutable_status());
  return answer;
}

grpc::Status NeurondService::Copy(grpc::ServerContext* context, const v1::CopyRequest* request,
                                  v1::CopyResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Copy", &denied);
  if (session == nullptr) return denied;
  auto run = [&]() -> trnsim::Status {
    TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory src, session->Resolve(request->src_handle()));
    TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory dst, session->Resolve(request->dst_handle()));
    TRNSIM_RETURN_IF_ERROR(CheckRange(src, request->src_offset(), request->size()));
    TRNSIM_RETURN_IF_ERROR(CheckRange(dst, request->dst_offset(), request->size()));
    return device_->Copy(src.device_handle, request->src_offset(), dst.device_handle,
                         request->dst_offset(), request->size());
  };
  Reply(*session, "Copy", run(), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::Fill(grpc::ServerContext* context, const v1::FillRequest* request,
                                  v1::FillResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "Fill", &denied);
  if (session == nullptr) return denied;
  auto run = [&]() -> trnsim::Status {
    if (request->value() > 255) {
      return InvalidError("Fill value " + std::to_string(request->value()) +
                          " is not a byte (0..255)");
    }
    TRNSIM_ASSIGN_OR_RETURN(Session::DeviceMemory memory, session->Resolve(request->handle()));
    TRNSIM_RETURN_IF_ERROR(CheckRange(memory, request->offset(), request->size()));
    return device_->Fill(memory.device_handle, request->offset(),
                         static_cast<uint8_t>(request->value()), request->size());
  };
  Reply(*session, "Fill", run(), response->mutable_status());
  return grpc::Status::OK;
}

grpc::Status NeurondService::GetHbmUsage(grpc::ServerContext* context,
                                         const v1::HbmRef* request,
                                         v1::GetHbmUsageResponse* response) {
  grpc::Status denied;
  std::shared_ptr<Session> session = Authenticate(context, "GetHbmUsage", &denied);
  if (session == nullptr) return denied;
  StatusOr<driver::HbmUsage> usage = device_->GetHbmUsage(request->chip(), request->hbm());
  if (usage.ok()) remote::ToProto(*usage, response->mutable_usage());
  Reply(*session, "GetHbmUsage", usage.status(), response->mutable_status());
  return grpc::Status::OK;
}

}  // namespace trnsim::neurond
