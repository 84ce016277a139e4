// Runtime: the debug streams behind nrt_debug_client_* (runtime/debug/debug_streams.h,
// docs/debug-stream.md).
#include "runtime/runtime.h"

namespace trnsim::runtime {

StatusOr<int> Runtime::DebugConnect(int vnc) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return debug_streams_->Connect(vnc);
}

Status Runtime::DebugClose(int fd) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return debug_streams_->Close(fd);
}

StatusOr<debug::DebugEvent> Runtime::DebugRead(int fd) {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckInitializedLocked());
  return debug_streams_->Read(fd);
}

}  // namespace trnsim::runtime
