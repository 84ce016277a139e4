// OperationGate: counts the runtime calls that run long without holding the lifecycle lock —
// executions and host collectives, which may wait up to NEURON_RT_EXEC_TIMEOUT for other ranks — so
// that nrt_close can wait for them to leave before it destroys what they use. It is the runtime's
// own reference count (as LevelDB's DBImpl drops its mutex during long work and relies on the
// refs it took): a call enters while the lifecycle lock shows it initialised (Lifecycle::Enter),
// then releases the lock; Close takes the lock uniquely (no call can enter) and waits until the
// count is 0.
//
// Thread safety: every method.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace trnsim::runtime {

class OperationGate {
 public:
  // One entered call; leaves the gate when destroyed. Movable, so StatusOr can carry it.
  class Ticket {
   public:
    Ticket() = default;
    explicit Ticket(OperationGate* gate) : gate_(gate) {}
    Ticket(Ticket&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Ticket& operator=(Ticket&& other) noexcept {
      if (this != &other) {
        Leave();
        gate_ = other.gate_;
        other.gate_ = nullptr;
      }
      return *this;
    }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { Leave(); }

   private:
    void Leave() {
      if (gate_ != nullptr) gate_->Leave();
      gate_ = nullptr;
    }
    OperationGate* gate_ = nullptr;
  };

  // The caller holds the lifecycle lock (any mode) and has checked it is initialised.
  Ticket Enter() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++inside_;
    return Ticket(this);
  }
  // Returns once every entered call has left.
  void WaitUntilEmpty() {
    std::unique_lock<std::mutex> lock(mutex_);
    left_.wait(lock, [this] { return inside_ == 0; });
  }

 private:
  void Leave() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--inside_ == 0) left_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable left_;
  uint64_t inside_ = 0;
};

}  // namespace trnsim::runtime
