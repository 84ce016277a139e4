// ExecutionUnitQueues: the execution-unit (XU) queues behind the explicit async API (nrta_*,
// nrt/nrt_async.h) and the implicit async nrt_execute — one process's set, created at nrt_init
// and shut down at nrt_close.
//
// Model (AWS's, docs/async.md): each logical core has execution units of three types, each with
// a few FIFO queues (tensor-op 2, compute 1, collectives 3). A request submitted to a queue gets
// the next sequence number of that queue (1, 2, ...) and runs after every earlier request of
// the queue has completed; nothing orders requests of different queues, which run at once.
// Each queue has its own worker thread (started on first use), so host-side work (tensor
// copies) on one queue overlaps device work (executions) on another, as the hardware's DMA
// rings and cores do.
//
// Sequence ids: the top 16 bits name the queue (QueueId: logical core << 8 | XU type << 4 |
// queue), the low 48 bits are the request's number within it. Ids of different queues are not
// comparable.
//
// Completion: a request's `complete` callback runs (it writes the caller's *ret) strictly
// before the request counts as completed; then every eventfd registered for it or for its
// queue is signalled (8-byte write of 1). Completion is in submission order within a queue.
//
// Failure: with Options::fatal_disables_unit, a request ending with a fatal status (IsFatal:
// the hardware-error and timeout statuses AWS reports as FATAL-RT-UNDEFINED-STATE) puts its
// queue in a terminal state: later submissions return NRT_EXEC_UNIT_UNRECOVERABLE, and the
// requests still queued behind it complete with that status without running. Only a new
// ExecutionUnitQueues (nrt_close + nrt_init) clears it.
//
// Back-pressure: a queue holds at most Options::depth requests not yet completed (the running
// one included); one more is NRT_QUEUE_FULL.
//
// Thread safety: every method, from any thread. `run` and `complete` run on the queue's worker
// thread without any lock of this class held; they may call back into the runtime but must not
// call Drain or Shutdown.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/status_or.h"

namespace trnsim::runtime::async {

// The execution-unit types, numbered as nrta_xu_t.
enum class XuType : uint8_t { kTensorOp = 0, kCompute = 1, kCollectives = 2 };
inline constexpr int kXuTypeCount = 3;
// Queues per XU type on each logical core: tensor-op 2, compute 1, collectives 3.
int QueuesPerXu(XuType xu);
const char* XuName(XuType xu);

// One queue: a process-relative logical core (0 .. 255), an XU type and a queue of it.
struct QueueAddress {
  int lnc = 0;
  XuType xu = XuType::kCompute;
  int queue = 0;
  bool operator==(const QueueAddress&) const = default;
};

// NRT_INVALID unless `xu` is an XU type (as an nrta_xu_t value), `queue` one of its queues and
// `lnc` in [0, lnc_count).
StatusOr<QueueAddress> MakeQueueAddress(int64_t lnc, int64_t xu, int64_t queue, int lnc_count);

// The 16-bit queue id of a sequence id, and back (nullopt: the bits name no queue).
uint16_t EncodeQueueId(const QueueAddress& address);
std::optional<QueueAddress> DecodeQueueId(uint16_t id);
inline constexpr uint64_t kSequenceNumberMask = (uint64_t{1} << 48) - 1;
inline uint64_t MakeSequenceId(const QueueAddress& address, uint64_t number) {
  return (uint64_t{EncodeQueueId(address)} << 48) | (number & kSequenceNumberMask);
}

// True for statuses after which AWS's runtime considers the execution unit unusable: the
// execution hardware errors (1200..1205), NRT_TIMEOUT and NRT_HW_ERROR.
bool IsFatal(const Status& status);

// "<XU name> queue <q> of logical core <lnc>", for messages.
std::string DescribeQueue(const QueueAddress& address);

struct AsyncRequest {
  std::function<Status()> run;  // the work; its status is the request's
  // Then this, with the request's sequence id and status (e.g. writes *ret); may be empty.
  std::function<void(uint64_t sequence_id, const Status&)> complete;
};

// True on a queue's worker thread (inside `run` or `complete`).
bool OnQueueWorker();

class ExecutionUnitQueues {
 public:
  struct Options {
    int lnc_count = 1;   // logical cores: valid addresses have lnc in [0, lnc_count)
    size_t depth = 64;   // requests a queue holds before NRT_QUEUE_FULL (>= 1)
    bool fatal_disables_unit = true;  // see the file comment
  };

  explicit ExecutionUnitQueues(Options options);
  ~ExecutionUnitQueues();  // Shutdown()
  ExecutionUnitQueues(const ExecutionUnitQueues&) = delete;
  ExecutionUnitQueues& operator=(const ExecutionUnitQueues&) = delete;

  // Queues `request` and returns its sequence id. Errors (nothing queued): NRT_QUEUE_FULL,
  // NRT_EXEC_UNIT_UNRECOVERABLE (naming the request that failed the unit), NRT_CLOSED after
  // Shutdown, NRT_INVALID for an address outside Options::lnc_count.
  StatusOr<uint64_t> Submit(const QueueAddress& address, AsyncRequest request);

  // Whether request `sequence_id` has completed. NRT_INVALID for an id never issued.
  StatusOr<bool> IsCompleted(uint64_t sequence_id) const;
  // The id of the queue's last completed request (number 0 when none has completed).
  StatusOr<uint64_t> LastCompleted(const QueueAddress& address) const;
  // Requests submitted to the queue and not yet completed.
  size_t Pending(const QueueAddress& address) const;

  // Signal eventfd `fd` when request `sequence_id` completes (at once when it already has);
  // fd -1 removes the request's registration. NRT_INVALID for an id never issued or an fd
  // that is not open.
  Status WatchRequest(uint64_t sequence_id, int fd);
  // Signal eventfd `fd` at every completion on the queue; fd -1 removes the registration.
  Status WatchQueue(const QueueAddress& address, int fd);

  // Blocks until every queue of logical core `lnc` is empty (nrt_async_drain_queued_execs).
  void Drain(int lnc);
  // Refuses further submissions (NRT_CLOSED), waits until every queued request has completed
  // and joins the workers. Idempotent.
  void Shutdown();

 private:
  class Queue;
  // The queue at `address`, created on first use; null for an address outside lnc_count.
  Queue* Find(const QueueAddress& address, bool create) const;

  const Options options_;
  mutable std::mutex mutex_;  // guards queues_ and shut_down_
  mutable std::unordered_map<uint16_t, std::unique_ptr<Queue>> queues_;
  bool shut_down_ = false;
};

}  // namespace trnsim::runtime::async
