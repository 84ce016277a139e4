// Lifecycle: the state machine, its lock and the OperationGate (lifecycle.h).
#include "runtime/lifecycle.h"

#include <new>

namespace trnsim::runtime {

Status Lifecycle::CheckLocked() const {
  switch (state_) {
    case State::kInit:
      return Status::Ok();
    case State::kStart:
      return Status(StatusCode::kUninitialized, "the runtime is not initialised: call nrt_init");
    case State::kClosed:
      return Status(StatusCode::kClosed, "the runtime was closed by nrt_close");
    case State::kChild:
      return FailureError("a process forked from an initialised runtime cannot use it");
  }
  return FailureError("unknown runtime state");
}

StatusOr<Lifecycle::Shared> Lifecycle::Share() const {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckLocked());
  return Shared(std::move(lock), session_.get());
}

StatusOr<Lifecycle::Entered> Lifecycle::Enter() {
  std::shared_lock lock(mutex_);
  TRNSIM_RETURN_IF_ERROR(CheckLocked());
  return Entered(gate_.Enter(), session_.get());
}

Status Lifecycle::Check() const {
  std::shared_lock lock(mutex_);
  return CheckLocked();
}

std::optional<RuntimeConfig> Lifecycle::ConfigIfInitialised() const {
  std::shared_lock lock(mutex_);
  if (state_ != State::kInit) return std::nullopt;
  return session_->config;
}

Status Lifecycle::Init(const std::function<StatusOr<std::unique_ptr<Session>>()>& open,
                       const std::function<void(Session&)>& started) {
  std::unique_lock lock(mutex_);
  if (state_ == State::kInit) return Status::Ok();
  if (state_ == State::kChild) {
    return FailureError(
        "this process was forked from one that initialised the runtime; a "
        "forked child cannot use it");
  }
  TRNSIM_ASSIGN_OR_RETURN(session_, open());
  started(*session_);
  state_ = State::kInit;
  return Status::Ok();
}

bool Lifecycle::Close(const std::function<void(Session&)>& closing) {
  std::unique_lock lock(mutex_);
  if (state_ != State::kInit) return false;
  // No call can enter now; executions and host collectives still running finish first.
  gate_.WaitUntilEmpty();
  closing(*session_);
  session_.reset();
  state_ = State::kClosed;
  return true;
}

void Lifecycle::BecomeForkedChild() {
  // The lock taken in the prepare handler belongs to the parent's thread id, which a pthread
  // rwlock will not let the child release: start the child with a fresh one.
  new (&mutex_) std::shared_mutex();
  if (state_ != State::kInit) return;
  state_ = State::kChild;
  // Leaked, never used again: destroying it would free what the parent holds, and its
  // objects' mutexes may be held by the parent's threads.
  (void)session_.release();
}

}  // namespace trnsim::runtime
