#include "runtime/async/output_completions.h"

#include <chrono>
#include <string>

#include "common/log.h"

namespace trnsim::runtime::async {
namespace {

// AWS's runtime warns once when an unbounded wait has lasted this long.
constexpr std::chrono::seconds kUnboundedWaitWarning{30};

}  // namespace

void OutputCompletions::Complete(const std::vector<const void*>& tensors) {
  {
    std::lock_guard lock(mutex_);
    for (const void* tensor : tensors) ++counts_[tensor];
  }
  changed_.notify_all();
}

Status OutputCompletions::Wait(const void* tensor, int64_t timeout_us, uint64_t expected,
                               const std::function<void()>& on_registered) {
  std::unique_lock lock(mutex_);
  bool gone = false;
  auto registered = waiters_.emplace(tensor, &gone);
  if (on_registered) on_registered();
  auto reached = [&] {
    if (gone) return true;
    auto it = counts_.find(tensor);
    return (it == counts_.end() ? 0 : it->second) >= expected;
  };
  if (timeout_us >= 0) {
    changed_.wait_for(lock, std::chrono::microseconds(timeout_us), reached);
  } else if (!changed_.wait_for(lock, kUnboundedWaitWarning, reached)) {
    LogLine(LogLevel::kWarn, LogComponent::kNrt, "nrt_tensor_check_output_completion",
            "still waiting after " + std::to_string(kUnboundedWaitWarning.count()) +
                " s for completion " + std::to_string(expected) + " of an output tensor");
    changed_.wait(lock, reached);
  }
  if (!gone) waiters_.erase(registered);
  if (gone) {
    return InvalidHandleError("the output tensor was freed while waiting for its completion");
  }
  auto it = counts_.find(tensor);
  const uint64_t count = it == counts_.end() ? 0 : it->second;
  if (count < expected) {
    return TimeoutError("output tensor completed " + std::to_string(count) + " time(s), not " +
                        std::to_string(expected) + ", within " + std::to_string(timeout_us) +
                        " us");
  }
  return Status::Ok();
}

void OutputCompletions::Reset(const void* tensor) {
  std::lock_guard lock(mutex_);
  counts_.erase(tensor);
}

uint64_t OutputCompletions::Count(const void* tensor) const {
  std::lock_guard lock(mutex_);
  auto it = counts_.find(tensor);
  return it == counts_.end() ? 0 : it->second;
}

void OutputCompletions::Forget(const void* tensor) {
  {
    std::lock_guard lock(mutex_);
    counts_.erase(tensor);
    auto [first, last] = waiters_.equal_range(tensor);
    for (auto it = first; it != last; ++it) *it->second = true;
    waiters_.erase(first, last);
  }
  changed_.notify_all();
}

void OutputCompletions::Clear() {
  {
    std::lock_guard lock(mutex_);
    counts_.clear();
    for (auto& [tensor, gone] : waiters_) *gone = true;
    waiters_.clear();
  }
  changed_.notify_all();
}

}  // namespace trnsim::runtime::async
