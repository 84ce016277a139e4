// Lifecycle (runtime/lifecycle.h): the state machine's statuses, Init's no-op and failure
// paths, and nrt_close waiting for an entered call while a shared one cannot outlive it.
#include "runtime/lifecycle.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <memory>
#include <optional>

namespace trnsim::runtime {
namespace {

StatusOr<std::unique_ptr<Session>> EmptySession() { return std::make_unique<Session>(); }

TEST(LifecycleTest, StatusesFollowTheStateMachine) {
  Lifecycle lifecycle;
  EXPECT_EQ(lifecycle.Check().code(), StatusCode::kUninitialized);
  EXPECT_EQ(lifecycle.Share().status().code(), StatusCode::kUninitialized);
  EXPECT_EQ(lifecycle.Enter().status().code(), StatusCode::kUninitialized);
  EXPECT_FALSE(lifecycle.ConfigIfInitialised().has_value());

  int started = 0;
  ASSERT_TRUE(lifecycle.Init(EmptySession, [&](Session&) { ++started; }).ok());
  EXPECT_TRUE(lifecycle.Check().ok());
  EXPECT_TRUE(lifecycle.Share().ok());
  EXPECT_TRUE(lifecycle.ConfigIfInitialised().has_value());
  // A second Init is a no-op: nothing is opened or started again.
  int opened_again = 0;
  ASSERT_TRUE(lifecycle
                  .Init(
                      [&]() -> StatusOr<std::unique_ptr<Session>> {
                        ++opened_again;
                        return std::make_unique<Session>();
                      },
                      [&](Session&) { ++started; })
                  .ok());
  EXPECT_EQ(opened_again, 0);
  EXPECT_EQ(started, 1);

  int closing = 0;
  EXPECT_TRUE(lifecycle.Close([&](Session&) { ++closing; }));
  EXPECT_EQ(closing, 1);
  EXPECT_FALSE(lifecycle.Close([&](Session&) { ++closing; }));  // already closed: nothing
  EXPECT_EQ(closing, 1);
  EXPECT_EQ(lifecycle.Check().code(), StatusCode::kClosed);
  EXPECT_EQ(lifecycle.Enter().status().code(), StatusCode::kClosed);
  // CLOSED --Init--> INIT.
  EXPECT_TRUE(lifecycle.Init(EmptySession, [](Session&) {}).ok());
  EXPECT_TRUE(lifecycle.Check().ok());
  EXPECT_TRUE(lifecycle.Close([](Session&) {}));
}

TEST(LifecycleTest, AFailedOpenLeavesTheStateAsItWas) {
  Lifecycle lifecycle;
  bool started = false;
  Status failed = lifecycle.Init(
      []() -> StatusOr<std::unique_ptr<Session>> { return InvalidError("bad variable"); },
      [&](Session&) { started = true; });
  EXPECT_EQ(failed.code(), StatusCode::kInvalid);
  EXPECT_FALSE(started);
  EXPECT_EQ(lifecycle.Check().code(), StatusCode::kUninitialized);
}

TEST(LifecycleTest, CloseWaitsForAnEnteredCallButNotForItsLock) {
  Lifecycle lifecycle;
  ASSERT_TRUE(lifecycle.Init(EmptySession, [](Session&) {}).ok());
  std::optional<Lifecycle::Entered> entered;
  {
    StatusOr<Lifecycle::Entered> pass = lifecycle.Enter();
    ASSERT_TRUE(pass.ok());
    entered.emplace(std::move(*pass));
  }
  // An entered call holds no lock: brief calls still go through.
  EXPECT_TRUE(lifecycle.Share().ok());

  std::atomic<bool> closed{false};
  std::future<bool> closer = std::async(std::launch::async, [&] {
    bool result = lifecycle.Close([](Session&) {});
    closed = true;
    return result;
  });
  // Close cannot finish while the call is inside: its Session is still there to use.
  EXPECT_EQ(closer.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_FALSE(closed.load());
  EXPECT_EQ((*entered)->device, nullptr);  // the Session is alive and readable
  entered.reset();                         // the call leaves
  EXPECT_TRUE(closer.get());
  EXPECT_EQ(lifecycle.Check().code(), StatusCode::kClosed);
}

TEST(LifecycleTest, AForkedChildOfAnInitialisedRuntimeRefusesEveryCall) {
  Lifecycle lifecycle;
  ASSERT_TRUE(lifecycle.Init(EmptySession, [](Session&) {}).ok());
  // A real fork, with the handlers' order: the child leaks the parent's Session by design, so
  // it leaves with _exit (no leak check runs) and reports through its exit code.
  lifecycle.LockForFork();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    lifecycle.BecomeForkedChild();
    int failures = 0;
    failures += lifecycle.Check().code() != StatusCode::kFailure;
    failures += lifecycle.Share().status().code() != StatusCode::kFailure;
    failures += lifecycle.Init(EmptySession, [](Session&) {}).code() != StatusCode::kFailure;
    failures += lifecycle.Close([](Session&) {}) ? 1 : 0;
    _exit(failures);
  }
  lifecycle.UnlockAfterFork();
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFEXITED(wait_status));
  EXPECT_EQ(WEXITSTATUS(wait_status), 0) << "checks that failed in the child";
  // The parent is untouched: still initialised, and its close frees the Session.
  EXPECT_TRUE(lifecycle.Check().ok());
  EXPECT_TRUE(lifecycle.Close([](Session&) {}));
}

}  // namespace
}  // namespace trnsim::runtime
