// OutputCompletions: counts, waits that succeed, time out and are woken by a free, resets.
#include "runtime/async/output_completions.h"

#include <gtest/gtest.h>

#include <future>

namespace trnsim::runtime::async {
namespace {

// Addresses stand in for tensor handles; they are never dereferenced.
const int kTensorA = 0;
const int kTensorB = 0;
const void* const a = &kTensorA;
const void* const b = &kTensorB;

TEST(OutputCompletionsTest, CountsEachCompletionOfEachTensor) {
  OutputCompletions completions;
  EXPECT_EQ(completions.Count(a), 0u);
  completions.Complete({a, b});
  completions.Complete({a, a});  // a tensor bound to two outputs completes twice
  EXPECT_EQ(completions.Count(a), 3u);
  EXPECT_EQ(completions.Count(b), 1u);
}

TEST(OutputCompletionsTest, WaitReachedReturnsAtOnceEvenWithZeroTimeout) {
  OutputCompletions completions;
  EXPECT_TRUE(completions.Wait(a, 0, 0).ok());  // 0 expected: already reached
  completions.Complete({a});
  EXPECT_TRUE(completions.Wait(a, 0, 1).ok());
}

TEST(OutputCompletionsTest, WaitNotReachedTimesOutNamingTheCount) {
  OutputCompletions completions;
  completions.Complete({a});
  Status status = completions.Wait(a, 1000, 2);
  EXPECT_EQ(status.code(), StatusCode::kTimeout);
  EXPECT_NE(status.message().find("completed 1 time(s), not 2"), std::string::npos)
      << status.message();
}

TEST(OutputCompletionsTest, WaitReturnsWhenAnotherThreadCompletes) {
  OutputCompletions completions;
  std::promise<void> registered;
  auto waiter = std::async(std::launch::async, [&] {
    return completions.Wait(b, -1, 2, [&] { registered.set_value(); });
  });
  registered.get_future().wait();
  completions.Complete({b});
  completions.Complete({b});
  EXPECT_TRUE(waiter.get().ok());
}

TEST(OutputCompletionsTest, ForgetWakesItsWaitersOnly) {
  OutputCompletions completions;
  std::promise<void> registered;
  auto waiter = std::async(std::launch::async, [&] {
    return completions.Wait(a, -1, 1, [&] { registered.set_value(); });
  });
  registered.get_future().wait();
  completions.Complete({b});
  completions.Forget(a);
  EXPECT_EQ(waiter.get().code(), StatusCode::kInvalidHandle);
  // A tensor later allocated at the same address starts from 0 and is not "gone".
  EXPECT_EQ(completions.Count(a), 0u);
  completions.Complete({a});
  EXPECT_TRUE(completions.Wait(a, 0, 1).ok());
}

TEST(OutputCompletionsTest, ClearWakesEveryWaiter) {
  OutputCompletions completions;
  std::promise<void> registered;
  auto waiter = std::async(std::launch::async, [&] {
    return completions.Wait(b, -1, 5, [&] { registered.set_value(); });
  });
  registered.get_future().wait();
  completions.Clear();
  EXPECT_EQ(waiter.get().code(), StatusCode::kInvalidHandle);
}

TEST(OutputCompletionsTest, ResetStartsTheCountAgain) {
  OutputCompletions completions;
  completions.Complete({a});
  completions.Complete({a});
  completions.Reset(a);
  EXPECT_EQ(completions.Count(a), 0u);
  EXPECT_EQ(completions.Wait(a, 0, 1).code(), StatusCode::kTimeout);
  completions.Complete({a});
  EXPECT_TRUE(completions.Wait(a, 0, 1).ok());
}

}  // namespace
}  // namespace trnsim::runtime::async
