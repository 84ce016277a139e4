// AsyncRequests: the explicit async API's queues (nrta_*, async/execution_unit_queues.h,
// docs/async.md): schedule a request on a queue of an execution unit of a logical core, ask
// whether it completed, watch requests and queues through file descriptors.
//
// Thread safety: every method. Calls return the lifecycle's statuses unless initialised.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "runtime/async/execution_unit_queues.h"
#include "runtime/lifecycle.h"

namespace trnsim::runtime {

class AsyncRequests {
 public:
  explicit AsyncRequests(const Lifecycle& lifecycle) : lifecycle_(lifecycle) {}
  AsyncRequests(const AsyncRequests&) = delete;
  AsyncRequests& operator=(const AsyncRequests&) = delete;

  // Queues `request` on queue `queue` of XU `xu` (an nrta_xu_t value) of process-relative
  // logical core `lnc` and returns its sequence id. The request's `run` executes on the queue's
  // worker thread and typically calls back into the runtime, which validates its handles
  // again then. Errors: NRT_INVALID for a bad address; then the queues' (NRT_QUEUE_FULL,
  // NRT_EXEC_UNIT_UNRECOVERABLE).
  StatusOr<uint64_t> Schedule(int64_t lnc, int64_t xu, int64_t queue, async::AsyncRequest request);
  StatusOr<bool> IsCompleted(uint64_t sequence_id);
  StatusOr<uint64_t> LastCompleted(int64_t lnc, int64_t xu, int64_t queue);
  Status WatchRequest(uint64_t sequence_id, int fd);
  Status WatchQueue(int64_t lnc, int64_t xu, int64_t queue, int fd);

  // nrt_close's first step, outside the lifecycle lock (queued requests call back into the
  // runtime): shuts down both sets of queues — the nrta_* ones and implicit async
  // nrt_execute's — after every queued request has completed. Nothing when not initialised.
  void ShutDown();

 private:
  const Lifecycle& lifecycle_;
};

}  // namespace trnsim::runtime
