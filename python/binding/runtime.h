// The process-wide libnrt session of the module: nrt_init on first use, nrt_close at interpreter
// exit (registered with Python's atexit), and the lock that keeps nrt_close from running while a
// call is inside libnrt.
//
// Lifecycle: NotStarted -> Open (first EnsureOpen that succeeds; a failed nrt_init leaves it
// NotStarted, so a later call retries) -> Closed (at exit; for good: calls then raise
// TrnsimError NRT_CLOSED, and handles of loaded models are dead, so nothing frees them).
//
// Thread safety: EnsureOpen needs the GIL. A RuntimeCall may be taken with or without the GIL
// (model calls take it after releasing the GIL), but its holder must never wait for the GIL:
// the exit hook holds the GIL until it releases it to wait for every RuntimeCall to end.
#pragma once

#include <shared_mutex>

namespace trnsim::python {

// nrt_init(NRT_FRAMEWORK_TYPE_NO_FW) once; TrnsimError if it fails or the runtime was closed.
void EnsureOpen();
// True once the runtime has been closed (model handles are dead).
bool RuntimeClosed();

// Holds the runtime open for one call into libnrt; ok() is false when it was closed first.
class RuntimeCall {
 public:
  RuntimeCall();
  bool ok() const { return ok_; }

 private:
  std::shared_lock<std::shared_mutex> lock_;
  bool ok_;
};

}  // namespace trnsim::python
