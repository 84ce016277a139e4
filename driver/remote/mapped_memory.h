// MappedMemory: device memory of neurond mapped into this client process — the zero-copy leg of
// the shared-memory data plane (proto/README.md "Shared-memory data plane", step 5). The daemon
// shares the whole host pages inside an allocation as a memfd (Device::ShareMemory); the client
// maps it MAP_SHARED, and Device::Write and Device::Read of those bytes become one memcpy in the
// client, with no request to the daemon at all.
//
// MapDeviceMemory asks the daemon's side socket for the memfd of the session's memory `handle`
// and maps it. It trusts the answer no further than it must: the descriptor must be there and
// its size (fstat) the mapped size the reply states, and [mapped_offset, +mapped_size) must lie
// inside memory_size, the allocation's size the reply states; anything else is NRT_FAILURE and
// nothing stays mapped. The daemon's refusal comes back as its status (NRT_EXEC_NC_BUSY: an
// execution is bound to the memory; ask again later).
//
// Lifetime: the mapping lives as long as the object. Unmap it before freeing the memory; an
// access after the daemon freed it reaches pages that no longer alias device memory, so it
// changes nothing the device sees and reads whatever was last written there.
//
// Thread safety: immutable after construction; its bytes are device memory, with the races of
// device memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status_or.h"

namespace trnsim::driver::remote {

class MappedMemory {
 public:
  ~MappedMemory();
  MappedMemory(const MappedMemory&) = delete;
  MappedMemory& operator=(const MappedMemory&) = delete;

  // Bytes [offset(), offset() + size()) of the memory, at data().
  uint8_t* data() const { return data_; }
  uint64_t offset() const { return offset_; }
  uint64_t size() const { return size_; }
  // The allocation's whole size, as the daemon stated it.
  uint64_t memory_size() const { return memory_size_; }

 private:
  friend StatusOr<std::unique_ptr<MappedMemory>> MapDeviceMemory(const std::string&,
                                                                 const std::string&, uint64_t,
                                                                 int);
  MappedMemory(uint8_t* data, uint64_t offset, uint64_t size, uint64_t memory_size)
      : data_(data), offset_(offset), size_(size), memory_size_(memory_size) {}

  uint8_t* const data_;
  const uint64_t offset_;
  const uint64_t size_;
  const uint64_t memory_size_;
};

// Maps the session's (`session_key`) memory `handle` through the daemon's side socket at
// `socket_path`, waiting at most `timeout_ms` for each step.
StatusOr<std::unique_ptr<MappedMemory>> MapDeviceMemory(const std::string& socket_path,
                                                        const std::string& session_key,
                                                        uint64_t handle, int timeout_ms);

}  // namespace trnsim::driver::remote
