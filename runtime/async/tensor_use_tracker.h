// TensorUseTracker: which tensors queued implicit-async executions still use, so that tensor
// reads and writes can wait for them (AWS: in implicit async mode "tensor reads and writes
// block while the tensors are in use").
//
// A tensor is named by its handle (the Tensor's address, never dereferenced here). An
// execution marks the tensors bound to it when it is queued (Acquire) and unmarks them when it
// completes (Release); a use count allows one tensor in several queued executions. Slices are
// separate handles: reading a slice of a tensor an execution uses does not wait.
//
// Thread safety: every method, from any thread.
#pragma once

#include <condition_variable>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace trnsim::runtime::async {

class TensorUseTracker {
 public:
  void Acquire(const std::vector<const void*>& tensors);
  // Every handle must have been acquired as often.
  void Release(const std::vector<const void*>& tensors);
  // Returns once no queued execution uses `tensor` (at once when none does).
  void WaitUntilUnused(const void* tensor);

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  std::unordered_map<const void*, int> uses_;  // only tensors in use
};

}  // namespace trnsim::runtime::async
