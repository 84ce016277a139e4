// The process-wide libnrt session of the module: nrt_init on first use, nrt_close at interpreter
// exit (registered with Python's atexit), and the lock that keeps nrt_close from running while a
// call is inside libnrt.
//
// Lifecycle: NotStarted -> Open (first EnsureOpen that succeeds; a failed nrt_init leaves it
// NotStarted, so a later call retries) -> NotStarted again after runtime_close() (the front
// end restarts the runtime when a kernel needs another LNC or instance; the next EnsureOpen
// starts a new session) -> Closed (at exit; for good: calls then raise
// TrnsimError NRT_CLOSED, and handles of loaded models are dead, so nothing frees them).
//
// Thread safety: EnsureOpen needs the GIL. A RuntimeCall may be taken with or without the GIL
// (model calls take it after releasing the GIL), but its holder must never wait for the GIL:
// the exit hook holds the GIL until it releases it to wait for every RuntimeCall to end.
#pragma once

#include <cstdint>
#include <shared_mutex>

namespace trnsim::python {

// nrt_init(NRT_FRAMEWORK_TYPE_NO_FW) once; TrnsimError if it fails or the runtime was closed.
void EnsureOpen();
// True once the runtime has been closed (model handles are dead).
bool RuntimeClosed();
// The runtime session: incremented by every nrt_init. A model loaded in an earlier session
// (before runtime_close() and a restart) has dead handles.
uint64_t RuntimeSession();

// Holds the runtime open for one call into libnrt; ok() is false when it was closed first.
class RuntimeCall {
 public:
  RuntimeCall();
  bool ok() const { return ok_; }
  uint64_t session() const { return session_; }

 private:
  std::shared_lock<std::shared_mutex> lock_;
  bool ok_;
  uint64_t session_;
};

}  // namespace trnsim::python
