// OutputCompletions: the completion counters behind nrt_tensor_check_output_completion and
// nrt_tensor_reset_output_completion (nrt.h).
//
// Every output tensor has a counter, 0 until something completes into it. An execution request
// (one nrt_execute / nrt_execute_repeat call, one implicit-async job, one nrta_execute_schedule
// request) adds 1 to the counter of each tensor bound to one of the model's outputs when it has
// finished — successfully or not: the counter says the request no longer writes the tensor, and
// the request's own status says how it went (docs/decisions.md, "Output completion"). A client
// that queued k executions into one output waits for k.
//
// A tensor is named by its handle (the Tensor's address, never dereferenced here). Forget drops
// a freed tensor's counter and wakes its waiters, which then report the tensor gone; Clear does
// that for every tensor (nrt_close).
//
// Thread safety: every method, from any thread. One mutex and one condition variable for all
// tensors, as AWS's runtime has.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace trnsim::runtime::async {

class OutputCompletions {
 public:
  // Adds 1 to each tensor's counter (a tensor listed twice gets 2) and wakes the waiters.
  void Complete(const std::vector<const void*>& tensors);

  // Returns once `tensor`'s counter is at least `expected`: at once if it already is.
  // `timeout_us` bounds the wait: 0 checks once, a negative value waits for ever (with one
  // WARN line once 30 s have passed, as AWS's runtime logs). Errors: NRT_TIMEOUT when the time
  // runs out (naming the count reached); NRT_INVALID_HANDLE when the tensor is forgotten
  // (freed, or nrt_close) while waiting.
  // `registered`, when given, runs once the wait is registered (under this object's lock, so
  // it must not call back into it): a caller that checked the handle under a lock of its own
  // releases that lock there, so a free can never slip between its check and the wait.
  Status Wait(const void* tensor, int64_t timeout_us, uint64_t expected,
              const std::function<void()>& registered = nullptr);

  // The counter goes back to 0.
  void Reset(const void* tensor);

  // Present for tests and tools: the counter's value (0 for an unknown tensor).
  uint64_t Count(const void* tensor) const;

  void Forget(const void* tensor);
  void Clear();

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::unordered_map<const void*, uint64_t> counts_;  // only tensors completed into
  // Each waiting call's "my tensor was forgotten" flag, by tensor: Forget sets them, so a
  // tensor freed and another allocated at its address are never confused.
  std::unordered_multimap<const void*, bool*> waiters_;
};

}  // namespace trnsim::runtime::async
