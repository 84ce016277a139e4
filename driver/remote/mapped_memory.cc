#include "driver/remote/mapped_memory.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "driver/remote/convert.h"
#include "driver/remote/fd_passing.h"
#include "driver/remote/shared_region.h"
#include "proto/neurond.pb.h"

namespace trnsim::driver::remote {
MappedMemory::~MappedMemory() { munmap(data_, size_); }

StatusOr<std::unique_ptr<MappedMemory>> MapDeviceMemory(const std::string& socket_path,
                                                        const std::string& session_key,
                                                        uint64_t handle, int timeout_ms) {
  TRNSIM_ASSIGN_OR_RETURN(UniqueFd socket, ConnectSharedMemorySocket(socket_path, timeout_ms));
  neurond::v1::SharedRegionRequest request;
  request.set_session_key(session_key);
  request.set_map_memory(true);
  request.set_handle(handle);
  TRNSIM_RETURN_IF_ERROR(SendWithFd(socket.get(), request.SerializeAsString(), -1));
  TRNSIM_ASSIGN_OR_RETURN(Datagram datagram,
                          ReceiveWithFd(socket.get(), kMaxSharedRegionReplyBytes));
  neurond::v1::SharedRegionResponse reply;
  if (!reply.ParseFromString(datagram.bytes)) {
    return FailureError("the daemon's map_memory reply does not parse");
  }
  TRNSIM_RETURN_IF_ERROR(StatusFromProto(reply.status()));
  const uint64_t offset = reply.mapped_offset();
  const uint64_t size = reply.mapped_size();
  const uint64_t memory_size = reply.size_bytes();
  struct stat info {};
  if (!datagram.fd.valid() || fstat(datagram.fd.get(), &info) != 0 || size == 0 ||
      static_cast<uint64_t>(info.st_size) != size || offset > memory_size ||
      size > memory_size - offset) {
    return FailureError("the daemon's map_memory reply is inconsistent (memfd " +
                        std::string(datagram.fd.valid() ? "attached" : "missing") + ", [" +
                        std::to_string(offset) + ", +" + std::to_string(size) + ") of " +
                        std::to_string(memory_size) + " bytes)");
  }
  void* data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, datagram.fd.get(), 0);
  if (data == MAP_FAILED) {
    return FailureError(std::string("mmap of device memory: ") + std::strerror(errno));
  }
  // The mapping keeps the memfd's pages; the descriptor closes with the datagram.
  return std::unique_ptr<MappedMemory>(
      new MappedMemory(static_cast<uint8_t*>(data), offset, size, memory_size));
}

}  // namespace trnsim::driver::remote
