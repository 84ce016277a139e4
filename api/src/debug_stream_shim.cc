// Debug streams (nrt/ndebug_stream.h): one event stream per logical core, fed by the device
// prints of executions (the debug_print instruction; docs/debug-stream.md). Thin forwards to
// runtime::DebugClients (runtime/debug_clients.h); the runtime lays out each event's payload
// exactly as the header's structs, which the static_asserts below pin.
#include <cstddef>
#include <cstring>

#include "api/src/shim.h"
#include "nrt/ndebug_stream.h"
#include "runtime/debug/debug_event.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
namespace dbg = trnsim::runtime::debug;

static_assert(sizeof(ndebug_stream_event_header_t) == 64);
static_assert(dbg::kEventTypeTensorRead == NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, prefix) == dbg::kPrefixOffset);
static_assert(sizeof(ndebug_stream_payload_debug_tensor_read_t::prefix) == dbg::kPrefixBytes);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, logical_nc_id) ==
              dbg::kLogicalNcIdOffset);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, pipe) == dbg::kPipeOffset);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_dtype) ==
              dbg::kDtypeOffset);
static_assert(sizeof(ndebug_stream_payload_debug_tensor_read_t::tensor_dtype) == dbg::kDtypeBytes);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_shape) ==
              dbg::kShapeOffset);
static_assert(sizeof(ndebug_stream_payload_debug_tensor_read_t::tensor_shape) ==
              8 * dbg::kMaxShapeDims);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_data_size) ==
              dbg::kDataSizeOffset);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_data) ==
              dbg::kTensorDataOffset);

extern "C" {

NRT_STATUS nrt_debug_client_connect(int logical_nc_idx, int* stream_fd) {
  if (stream_fd == nullptr) return NullArgument(__func__, "stream_fd");
  trnsim::StatusOr<int> fd = Rt().debug().Connect(logical_nc_idx);
  if (!fd.ok()) return Report(__func__, fd.status());
  *stream_fd = *fd;
  return NRT_SUCCESS;
}

// void: an unknown descriptor (or a call outside the runtime's life) is ignored, as AWS's
// header says, with one logged line.
void nrt_debug_client_connect_close(int stream_fd) {
  trnsim::Status closed = Rt().debug().Close(stream_fd);
  if (!closed.ok()) {
    trnsim::LogLine(trnsim::LogLevel::kWarn, trnsim::LogComponent::kNrt, __func__,
                    closed.message() + " (ignored)");
  }
}

NRT_STATUS nrt_debug_client_read_one_event(int stream_fd, ndebug_stream_event_header_t* header,
                                           void** payload) {
  if (header == nullptr) return NullArgument(__func__, "header");
  if (payload == nullptr) return NullArgument(__func__, "payload");
  trnsim::StatusOr<dbg::DebugEvent> event = Rt().debug().Read(stream_fd);
  // An empty queue is the normal answer of a poll loop: no log line.
  if (!event.ok() && event.status().code() == trnsim::StatusCode::kQueueEmpty) {
    return NRT_QUEUE_EMPTY;
  }
  if (!event.ok()) return Report(__func__, event.status());
  std::memset(header, 0, sizeof(*header));
  header->data_size = event->payload_bytes;
  header->type = event->type;
  *payload = event->payload.release();  // malloc'd; the caller frees it
  return NRT_SUCCESS;
}

}  // extern "C"
