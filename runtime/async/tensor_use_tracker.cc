#include "runtime/async/tensor_use_tracker.h"

namespace trnsim::runtime::async {

void TensorUseTracker::Acquire(const std::vector<const void*>& tensors) {
  std::lock_guard lock(mutex_);
  for (const void* tensor : tensors) ++uses_[tensor];
}

void TensorUseTracker::Release(const std::vector<const void*>& tensors) {
  {
    std::lock_guard lock(mutex_);
    for (const void* tensor : tensors) {
      auto it = uses_.find(tensor);
      if (it != uses_.end() && --it->second <= 0) uses_.erase(it);
    }
  }
  released_.notify_all();
}

void TensorUseTracker::WaitUntilUnused(const void* tensor) {
  std::unique_lock lock(mutex_);
  released_.wait(lock, [&] { return uses_.find(tensor) == uses_.end(); });
}

}  // namespace trnsim::runtime::async
