// DebugClients: the debug streams behind nrt_debug_client_* (debug/debug_streams.h,
// docs/debug-stream.md): a client connects to a logical core and reads the device prints of
// its executions.
//
// Thread safety: every method. Calls return the lifecycle's statuses unless initialised.
#pragma once

#include "common/status.h"
#include "runtime/debug/debug_streams.h"
#include "runtime/lifecycle.h"

namespace trnsim::runtime {

class DebugClients {
 public:
  explicit DebugClients(const Lifecycle& lifecycle) : lifecycle_(lifecycle) {}

  // `vnc` a visible process-relative core (NRT_INVALID otherwise, and for a second client or
  // while NEURON_RT_DEBUG_OUTPUT_DIR's built-in consumer runs). Returns the descriptor.
  StatusOr<int> Connect(int vnc);
  // Close and Read: NRT_INVALID for a descriptor Connect did not return (or already closed);
  // Read: NRT_QUEUE_EMPTY when nothing is queued. nrt_close closes every descriptor.
  Status Close(int fd);
  StatusOr<debug::DebugEvent> Read(int fd);

 private:
  const Lifecycle& lifecycle_;
};

}  // namespace trnsim::runtime
