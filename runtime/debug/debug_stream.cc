#include "runtime/debug/debug_stream.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace trnsim::runtime::debug {

DebugStream::DebugStream(int vnc, size_t capacity) : vnc_(vnc), capacity_(capacity) {}

DebugStream::~DebugStream() {
  std::lock_guard<std::mutex> lock(mutex_);
  CloseLocked();
}

StatusOr<int> DebugStream::Connect() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) {
    return InvalidError("logical core " + std::to_string(vnc_) +
                        "'s debug stream already has a client (one per stream)");
  }
  const int fd = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) {
    return ResourceError("cannot create the debug stream's eventfd: " +
                         std::string(std::strerror(errno)));
  }
  fd_ = fd;
  dropped_total_ = 0;
  return fd;
}

void DebugStream::Disconnect() {
  std::lock_guard<std::mutex> lock(mutex_);
  CloseLocked();
}

void DebugStream::CloseLocked() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  queue_.clear();
}

int DebugStream::fd() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fd_;
}

DebugStream::PushResult DebugStream::Push(std::vector<DebugEvent> events) {
  std::lock_guard<std::mutex> lock(mutex_);
  PushResult result;
  result.connected = fd_ >= 0;
  if (!result.connected) return result;
  for (DebugEvent& event : events) {
    if (queue_.size() >= capacity_) {
      ++result.dropped_full;
      continue;
    }
    queue_.push_back(std::move(event));
    ++result.queued;
  }
  dropped_total_ += result.dropped_full;
  result.dropped_total = dropped_total_;
  if (result.queued > 0) {
    // One write adds them all to the counter. It cannot fail: the counter stays far below its
    // limit (at most capacity_), and the descriptor is ours.
    const uint64_t add = result.queued;
    ssize_t written;
    do {
      written = ::write(fd_, &add, sizeof(add));
    } while (written < 0 && errno == EINTR);
  }
  return result;
}

std::optional<DebugEvent> DebugStream::Pop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0 || queue_.empty()) return std::nullopt;
  DebugEvent event = std::move(queue_.front());
  queue_.pop_front();
  uint64_t one = 0;
  ssize_t got;
  do {
    got = ::read(fd_, &one, sizeof(one));  // EFD_SEMAPHORE: takes exactly 1
  } while (got < 0 && errno == EINTR);
  // EAGAIN here means the client read the descriptor itself (AWS: undefined); the queue stays
  // the truth, only the readiness is off.
  return event;
}

}  // namespace trnsim::runtime::debug
