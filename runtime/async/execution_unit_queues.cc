#include "runtime/async/execution_unit_queues.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <sstream>
#include <thread>
#include <vector>

#include "common/log.h"

namespace trnsim::runtime::async {
namespace {

constexpr int kMaxLnc = 255;  // 8 bits of the queue id

thread_local bool on_queue_worker = false;

std::string HexId(uint64_t id) {
  std::ostringstream out;
  out << "0x" << std::hex << id;
  return out.str();
}

Status CheckOpenFd(int fd) {
  if (fd < 0 || fcntl(fd, F_GETFD) == -1) {
    return InvalidError("fd " + std::to_string(fd) + " is not an open file descriptor");
  }
  return Status::Ok();
}

// Adds 1 to eventfd `fd`'s counter; a failure is logged (the caller's fd, the caller's bug).
void Signal(int fd) {
  const uint64_t one = 1;
  if (write(fd, &one, sizeof(one)) != ssize_t(sizeof(one))) {
    TRNSIM_LOG(Warn, Nrt) << "async: could not signal fd " << fd << ": " << std::strerror(errno);
  }
}

}  // namespace

bool OnQueueWorker() { return on_queue_worker; }

int QueuesPerXu(XuType xu) {
  switch (xu) {
    case XuType::kTensorOp: return 2;
    case XuType::kCompute: return 1;
    case XuType::kCollectives: return 3;
  }
  return 0;
}

const char* XuName(XuType xu) {
  switch (xu) {
    case XuType::kTensorOp: return "tensor-op";
    case XuType::kCompute: return "compute";
    case XuType::kCollectives: return "collectives";
  }
  return "unknown";
}

StatusOr<QueueAddress> MakeQueueAddress(int64_t lnc, int64_t xu, int64_t queue, int lnc_count) {
  if (xu < 0 || xu >= kXuTypeCount) {
    return InvalidError("execution unit " + std::to_string(xu) + " is not an nrta_xu_t");
  }
  const XuType type = XuType(xu);
  if (queue < 0 || queue >= QueuesPerXu(type)) {
    return InvalidError("queue " + std::to_string(queue) + " is not one of the " +
                        std::to_string(QueuesPerXu(type)) + " queues of the " + XuName(type) +
                        " execution unit");
  }
  if (lnc < 0 || lnc >= lnc_count || lnc > kMaxLnc) {
    return InvalidError("logical core " + std::to_string(lnc) + " is not one of this process's " +
                        std::to_string(lnc_count) + " visible cores");
  }
  return QueueAddress{int(lnc), type, int(queue)};
}

uint16_t EncodeQueueId(const QueueAddress& address) {
  return uint16_t((address.lnc & 0xFF) << 8 | int(address.xu) << 4 | (address.queue & 0xF));
}

std::optional<QueueAddress> DecodeQueueId(uint16_t id) {
  const int xu = (id >> 4) & 0xF;
  const int queue = id & 0xF;
  if (xu >= kXuTypeCount || queue >= QueuesPerXu(XuType(xu))) return std::nullopt;
  return QueueAddress{id >> 8, XuType(xu), queue};
}

bool IsFatal(const Status& status) {
  switch (status.code()) {
    case StatusCode::kTimeout:
    case StatusCode::kHwError:
    case StatusCode::kExecHwErrCollectives:
    case StatusCode::kExecHwErrHbmUe:
    case StatusCode::kExecHwErrNcUe:
    case StatusCode::kExecHwErrDmaAbort:
    case StatusCode::kExecSwNqOverflow:
    case StatusCode::kExecHwErrRepairableHbmUe:
      return true;
    default:
      return false;
  }
}

std::string DescribeQueue(const QueueAddress& address) {
  return std::string(XuName(address.xu)) + " queue " + std::to_string(address.queue) +
         " of logical core " + std::to_string(address.lnc);
}

// One FIFO queue and its worker thread.
class ExecutionUnitQueues::Queue {
 public:
  Queue(QueueAddress address, const Options& options)
      : address_(address), options_(options), worker_([this] { Work(); }) {}

  ~Queue() { Stop(); }

  StatusOr<uint64_t> Submit(AsyncRequest request) {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      return Status(StatusCode::kClosed, "the runtime is closing: " + DescribeQueue(address_) +
                                             " takes no more requests");
    }
    if (failure_) {
      return Status(StatusCode::kExecUnitUnrecoverable,
                    DescribeQueue(address_) + " is unrecoverable since " + *failure_ +
                        "; re-initialise the runtime (nrt_close, nrt_init)");
    }
    if (submitted_ - completed_ >= options_.depth) {
      return Status(StatusCode::kQueueFull, DescribeQueue(address_) + " is full (" +
                                                std::to_string(options_.depth) +
                                                " requests pending); retry after a completion");
    }
    const uint64_t number = ++submitted_;
    entries_.push_back({number, std::move(request)});
    wake_.notify_one();
    return MakeSequenceId(address_, number);
  }

  // nullopt: `number` was never issued.
  std::optional<bool> IsCompleted(uint64_t number) const {
    std::lock_guard lock(mutex_);
    if (number == 0 || number > submitted_) return std::nullopt;
    return number <= completed_;
  }

  uint64_t LastCompleted() const {
    std::lock_guard lock(mutex_);
    return completed_;
  }

  size_t Pending() const {
    std::lock_guard lock(mutex_);
    return submitted_ - completed_;
  }

  Status WatchRequest(uint64_t number, int fd) {
    std::lock_guard lock(mutex_);
    if (number == 0 || number > submitted_) {
      return InvalidError("sequence id " + HexId(MakeSequenceId(address_, number)) +
                          " was never issued on " + DescribeQueue(address_));
    }
    if (fd == -1) {
      request_fds_.erase(number);
      return Status::Ok();
    }
    TRNSIM_RETURN_IF_ERROR(CheckOpenFd(fd));
    if (number <= completed_) {
      Signal(fd);  // already complete: no lost wake-up
    } else {
      request_fds_[number].push_back(fd);
    }
    return Status::Ok();
  }

  Status WatchQueue(int fd) {
    std::lock_guard lock(mutex_);
    if (fd == -1) {
      queue_fds_.clear();
      return Status::Ok();
    }
    TRNSIM_RETURN_IF_ERROR(CheckOpenFd(fd));
    for (int known : queue_fds_) {
      if (known == fd) return Status::Ok();
    }
    queue_fds_.push_back(fd);
    return Status::Ok();
  }

  void WaitEmpty() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return completed_ == submitted_; });
  }

  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

 private:
  struct Entry {
    uint64_t number = 0;
    AsyncRequest request;
  };

  void Work() {
    on_queue_worker = true;
    for (;;) {
      Entry entry;
      std::optional<std::string> failure;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !entries_.empty(); });
        if (entries_.empty()) return;  // stopping, and everything queued has run
        entry = std::move(entries_.front());
        entries_.pop_front();
        failure = failure_;
      }
      Status status =
          failure ? Status(StatusCode::kExecUnitUnrecoverable,
                           DescribeQueue(address_) + " is unrecoverable since " + *failure)
                  : entry.request.run();
      if (entry.request.complete) {
        entry.request.complete(MakeSequenceId(address_, entry.number), status);
      }
      {
        std::lock_guard lock(mutex_);
        completed_ = entry.number;
        if (options_.fatal_disables_unit && !failure_ && IsFatal(status)) {
          failure_ = "request " + std::to_string(entry.number) + " failed (" +
                     status.ToString() + ")";
          TRNSIM_LOG(Error, Nrt) << "async: " << DescribeQueue(address_)
                                 << " is now unrecoverable: " << *failure_;
        }
        for (int fd : queue_fds_) Signal(fd);
        auto watched = request_fds_.find(entry.number);
        if (watched != request_fds_.end()) {
          for (int fd : watched->second) Signal(fd);
          request_fds_.erase(watched);
        }
      }
      idle_.notify_all();
    }
  }

  const QueueAddress address_;
  const Options& options_;
  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;  // the worker: a request arrived, or stop
  std::condition_variable idle_;  // WaitEmpty: a request completed
  std::deque<Entry> entries_;     // submitted, not yet started
  uint64_t submitted_ = 0;        // the last number issued
  uint64_t completed_ = 0;        // the last number completed (in order)
  std::optional<std::string> failure_;  // set once the unit is unrecoverable
  bool stopping_ = false;
  std::vector<int> queue_fds_;
  std::unordered_map<uint64_t, std::vector<int>> request_fds_;
  std::thread worker_;  // last: starts once the members above exist
};

ExecutionUnitQueues::ExecutionUnitQueues(Options options) : options_(options) {}

ExecutionUnitQueues::~ExecutionUnitQueues() { Shutdown(); }

ExecutionUnitQueues::Queue* ExecutionUnitQueues::Find(const QueueAddress& address,
                                                      bool create) const {
  if (address.lnc < 0 || address.lnc >= options_.lnc_count || address.lnc > kMaxLnc) {
    return nullptr;
  }
  std::lock_guard lock(mutex_);
  const uint16_t id = EncodeQueueId(address);
  auto it = queues_.find(id);
  if (it != queues_.end()) return it->second.get();
  if (!create || shut_down_) return nullptr;
  return queues_.emplace(id, std::make_unique<Queue>(address, options_)).first->second.get();
}

StatusOr<uint64_t> ExecutionUnitQueues::Submit(const QueueAddress& address,
                                               AsyncRequest request) {
  if (address.lnc < 0 || address.lnc >= options_.lnc_count) {
    return InvalidError("logical core " + std::to_string(address.lnc) +
                        " is not one of this process's " + std::to_string(options_.lnc_count) +
                        " visible cores");
  }
  Queue* queue = Find(address, /*create=*/true);
  if (queue == nullptr) {
    return Status(StatusCode::kClosed, "the runtime is closing: " + DescribeQueue(address) +
                                           " takes no more requests");
  }
  return queue->Submit(std::move(request));
}

StatusOr<bool> ExecutionUnitQueues::IsCompleted(uint64_t sequence_id) const {
  std::optional<QueueAddress> address = DecodeQueueId(uint16_t(sequence_id >> 48));
  Queue* queue = address ? Find(*address, /*create=*/false) : nullptr;
  std::optional<bool> completed =
      queue ? queue->IsCompleted(sequence_id & kSequenceNumberMask) : std::nullopt;
  if (!completed) {
    return InvalidError("sequence id " + HexId(sequence_id) + " was never issued");
  }
  return *completed;
}

StatusOr<uint64_t> ExecutionUnitQueues::LastCompleted(const QueueAddress& address) const {
  if (address.lnc < 0 || address.lnc >= options_.lnc_count) {
    return InvalidError("logical core " + std::to_string(address.lnc) + " is out of range");
  }
  Queue* queue = Find(address, /*create=*/false);
  return MakeSequenceId(address, queue ? queue->LastCompleted() : 0);
}

size_t ExecutionUnitQueues::Pending(const QueueAddress& address) const {
  Queue* queue = Find(address, /*create=*/false);
  return queue ? queue->Pending() : 0;
}

Status ExecutionUnitQueues::WatchRequest(uint64_t sequence_id, int fd) {
  std::optional<QueueAddress> address = DecodeQueueId(uint16_t(sequence_id >> 48));
  Queue* queue = address ? Find(*address, /*create=*/false) : nullptr;
  if (queue == nullptr) {
    return InvalidError("sequence id " + HexId(sequence_id) + " was never issued");
  }
  return queue->WatchRequest(sequence_id & kSequenceNumberMask, fd);
}

Status ExecutionUnitQueues::WatchQueue(const QueueAddress& address, int fd) {
  Queue* queue = Find(address, /*create=*/true);
  if (queue == nullptr) {
    if (address.lnc < 0 || address.lnc >= options_.lnc_count) {
      return InvalidError("logical core " + std::to_string(address.lnc) + " is out of range");
    }
    return Status(StatusCode::kClosed, "the runtime is closing");
  }
  return queue->WatchQueue(fd);
}

void ExecutionUnitQueues::Drain(int lnc) {
  for (int xu = 0; xu < kXuTypeCount; ++xu) {
    for (int q = 0; q < QueuesPerXu(XuType(xu)); ++q) {
      Queue* queue = Find({lnc, XuType(xu), q}, /*create=*/false);
      if (queue != nullptr) queue->WaitEmpty();
    }
  }
}

void ExecutionUnitQueues::Shutdown() {
  std::vector<Queue*> queues;
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
    for (auto& [id, queue] : queues_) queues.push_back(queue.get());
  }
  for (Queue* queue : queues) queue->Stop();  // each finishes what it holds first
}

}  // namespace trnsim::runtime::async
