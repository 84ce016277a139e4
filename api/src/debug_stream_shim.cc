// Debug streams (nrt/ndebug_stream.h): per-core event streams fed by device code. They arrive
// with the debug stream; until then these validate their arguments and the lifecycle, then
// report NotImplemented (docs/api-status.md).
#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/ndebug_stream.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

namespace {
constexpr char kDebugStream[] = "debug streams (arrive with the debug stream)";
}  // namespace

extern "C" {

NRT_STATUS nrt_debug_client_connect(int logical_nc_idx, int* stream_fd) {
  if (stream_fd == nullptr) return NullArgument(__func__, "stream_fd");
  trnsim::Status ready = CheckInitializedVnc(logical_nc_idx);
  if (!ready.ok()) return Report(__func__, ready);
  return NotImplemented(__func__, kDebugStream);
}

// No stream can be connected yet, so every descriptor is unknown: the documented behaviour is
// to ignore it. One line is logged so the call is not silently lost.
void nrt_debug_client_connect_close(int stream_fd) { NotImplemented(__func__, kDebugStream); }

NRT_STATUS nrt_debug_client_read_one_event(int stream_fd, ndebug_stream_event_header_t* header,
                                           void** payload) {
  if (header == nullptr) return NullArgument(__func__, "header");
  if (payload == nullptr) return NullArgument(__func__, "payload");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  return NotImplemented(__func__, kDebugStream);
}

}  // extern "C"
