// Lifecycle: the runtime's state machine and the one lock that guards it (AWS's lifecycle,
// docs/decisions.md): START --Init--> INIT --Close--> CLOSED --Init--> INIT ..., and CHILD in a
// process forked from an initialised one. While INIT it owns the Session (session.h): what
// nrt_init built and nrt_close tears down.
//
// Every runtime call reaches the Session through this class, in one of two ways:
//   Share()  a brief call (a tensor read, a load, a query): holds the lock shared while it
//            runs, so Close cannot begin meanwhile;
//   Enter()  a long call (an execution, a host collective, which may wait for other ranks up
//            to NEURON_RT_EXEC_TIMEOUT): checks the state under the lock, enters the
//            OperationGate and releases the lock; Close waits until every entered call left.
// Both return the lifecycle's statuses when not INIT: NRT_UNINITIALIZED before the first Init,
// NRT_CLOSED after Close, NRT_FAILURE in a forked child.
//
// Thread safety: every method. Lock order: this lock first, then any subsystem's own.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "common/status.h"
#include "runtime/operation_gate.h"
#include "runtime/session.h"

namespace trnsim::runtime {

class Lifecycle {
 public:
  // A brief hold on an initialised runtime (the lock, shared). Movable; releases when destroyed.
  class Shared {
   public:
    Session* operator->() const { return session_; }
    Session& operator*() const { return *session_; }

   private:
    friend class Lifecycle;
    Shared(std::shared_lock<std::shared_mutex> lock, Session* session)
        : lock_(std::move(lock)), session_(session) {}
    std::shared_lock<std::shared_mutex> lock_;
    Session* session_;
  };
  // A long call's pass: no lock, but Close waits for it, so the Session outlives it.
  class Entered {
   public:
    Session* operator->() const { return session_; }
    Session& operator*() const { return *session_; }

   private:
    friend class Lifecycle;
    Entered(OperationGate::Ticket ticket, Session* session)
        : ticket_(std::move(ticket)), session_(session) {}
    OperationGate::Ticket ticket_;
    Session* session_;
  };

  StatusOr<Shared> Share() const;
  StatusOr<Entered> Enter();
  // OK when initialised; else the lifecycle's status.
  Status Check() const;
  // The frozen configuration when initialised; nullopt otherwise (the caller parses afresh).
  std::optional<RuntimeConfig> ConfigIfInitialised() const;

  // nrt_init: a no-op when INIT (the configuration stays frozen); NRT_FAILURE in a forked
  // child; otherwise `open` builds the Session (its status is Init's) holding the lock
  // uniquely, and `started` runs on it before any other call can see it.
  Status Init(const std::function<StatusOr<std::unique_ptr<Session>>()>& open,
              const std::function<void(Session&)>& started);
  // nrt_close: nothing when not INIT. Otherwise takes the lock uniquely (no call can enter),
  // waits until every entered call has left, runs `closing` on the Session, destroys it and
  // is CLOSED. Returns whether it closed.
  bool Close(const std::function<void(Session&)>& closing);

  // fork(): the prepare handler holds the lock across fork() (so the child never inherits it
  // mid-update); the parent's handler releases it.
  void LockForFork() { mutex_.lock(); }
  void UnlockAfterFork() { mutex_.unlock(); }
  // The child's handler: a fresh lock (the parent's thread owns the inherited one); when it
  // was INIT it becomes CHILD and leaks the Session (nothing the parent holds is freed).
  void BecomeForkedChild();

 private:
  enum class State { kStart, kInit, kClosed, kChild };
  Status CheckLocked() const;

  mutable std::shared_mutex mutex_;  // guards state_ and session_
  OperationGate gate_;
  State state_ = State::kStart;
  std::unique_ptr<Session> session_;
};

}  // namespace trnsim::runtime
