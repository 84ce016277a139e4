// DebugEvent: one event of a logical core's debug stream (docs/debug-stream.md) as the runtime
// queues it — the header's fields and the payload already laid out byte for byte as AWS's
// <nrt/ndebug_stream.h> defines it, in a malloc'd block the C API hands to the client, who
// frees it (nrt_debug_client_read_one_event).
//
// The only event type is a tensor read (NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ = 1): what
// one debug_print instruction read (docs/isa.md §7.10). Its payload
// (ndebug_stream_payload_debug_tensor_read_t, LP64):
//   @0    char prefix[512]          the instruction's prefix, NUL-terminated, zero-padded
//   @512  uint32 logical_nc_id      the process-relative logical core (the vnc of connect)
//   @516  uint32 pipe               kDebugPipeStdout (docs/decisions.md)
//   @520  char tensor_dtype[16]     DebugDtypeName, NUL-terminated, zero-padded
//   @536  uint64 tensor_shape[8]    [rows, free sizes...], unused entries 0
//   @600  uint64 tensor_data_size   bytes of tensor_data
//   @608  char reserved0[416]       zero
//   @1024 tensor_data               the elements in access-pattern order, as in device memory
// and the header's data_size is 1024 + tensor_data_size. api/src/debug_stream_shim.cc checks
// these offsets against the header with static_asserts.
//
// Thread safety: plain values (move-only).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string_view>

#include "common/status_or.h"
#include "simulator/isa/dtype.h"

namespace trnsim::runtime::debug {

inline constexpr uint32_t kEventTypeTensorRead = 1;  // NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ
inline constexpr uint32_t kDebugPipeStdout = 1;
// Payload layout of a tensor read (see above).
inline constexpr size_t kPrefixOffset = 0;
inline constexpr size_t kPrefixBytes = 512;
inline constexpr size_t kLogicalNcIdOffset = 512;
inline constexpr size_t kPipeOffset = 516;
inline constexpr size_t kDtypeOffset = 520;
inline constexpr size_t kDtypeBytes = 16;
inline constexpr size_t kShapeOffset = 536;
inline constexpr size_t kMaxShapeDims = 8;
inline constexpr size_t kDataSizeOffset = 600;
inline constexpr size_t kTensorDataOffset = 1024;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct DebugEvent {
  uint32_t type = kEventTypeTensorRead;
  uint64_t payload_bytes = 0;                     // the header's data_size
  std::unique_ptr<uint8_t, FreeDeleter> payload;  // malloc'd, payload_bytes long
};

// The NumPy / NKI spelling of a dtype in tensor_dtype: "float32", "bfloat16", "float16",
// "float32r", "float8_e3m4", "float8_e4m3", "float8_e5m2", "int8" ... "uint64"; "" for kUnknown.
std::string_view DebugDtypeName(isa::Dtype dtype);

// A tensor-read event. NRT_INVALID for a prefix of 512 bytes or more, a shape of more than 8 or
// no dimensions, or data whose size is not the shape's; NRT_FAIL_HOST_MEM_ALLOC when malloc
// fails.
StatusOr<DebugEvent> MakeTensorReadEvent(std::string_view prefix, uint32_t logical_nc_id,
                                         isa::Dtype dtype, std::span<const uint64_t> shape,
                                         std::span<const uint8_t> data);

}  // namespace trnsim::runtime::debug
