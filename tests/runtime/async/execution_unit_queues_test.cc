// ExecutionUnitQueues: sequence ids, in-order completion per queue, concurrency across queues,
// back-pressure, the terminal state after a fatal status, eventfds, Drain and Shutdown.
#include "runtime/async/execution_unit_queues.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace trnsim::runtime::async {
namespace {

using Queues = ExecutionUnitQueues;

// A latch the test opens; requests that wait on it hold their queue.
class Gate {
 public:
  void Wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return open_; });
  }
  void Open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

Queues::Options TwoCores(size_t depth = 64) {
  Queues::Options options;
  options.lnc_count = 2;
  options.depth = depth;
  return options;
}

AsyncRequest Returning(Status status, std::vector<int>* order = nullptr, int tag = 0,
                       std::mutex* order_mutex = nullptr) {
  AsyncRequest request;
  request.run = [=] {
    if (order != nullptr) {
      std::lock_guard lock(*order_mutex);
      order->push_back(tag);
    }
    return status;
  };
  return request;
}

// Reads an eventfd's counter, waiting up to 5 s for it to become non-zero; 0 on timeout.
uint64_t ReadEvent(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 5000) != 1) return 0;
  uint64_t value = 0;
  return read(fd, &value, sizeof(value)) == sizeof(value) ? value : 0;
}

TEST(QueueIdTest, EncodesCoreUnitAndQueueInTheTopSixteenBits) {
  const QueueAddress address{5, XuType::kCollectives, 2};
  const uint64_t id = MakeSequenceId(address, 7);
  EXPECT_EQ(id >> 48, (5u << 8) | (2u << 4) | 2u);
  EXPECT_EQ(id & kSequenceNumberMask, 7u);
  ASSERT_TRUE(DecodeQueueId(uint16_t(id >> 48)).has_value());
  EXPECT_EQ(*DecodeQueueId(uint16_t(id >> 48)), address);
  EXPECT_FALSE(DecodeQueueId(uint16_t(3 << 4)).has_value());      // XU type 3
  EXPECT_FALSE(DecodeQueueId(uint16_t(1 << 4 | 1)).has_value());  // compute has one queue
}

TEST(QueueIdTest, AddressesAreValidated) {
  EXPECT_TRUE(MakeQueueAddress(1, 0, 1, 2).ok());
  EXPECT_EQ(MakeQueueAddress(2, 0, 0, 2).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(MakeQueueAddress(-1, 0, 0, 2).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(MakeQueueAddress(0, 3, 0, 2).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(MakeQueueAddress(0, 1, 1, 2).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(MakeQueueAddress(0, 2, 3, 2).status().code(), StatusCode::kInvalid);
}

TEST(ExecutionUnitQueuesTest, NumbersRiseByOnePerQueueAndCompleteInOrder) {
  Queues queues(TwoCores());
  std::vector<int> order;
  std::mutex order_mutex;
  const QueueAddress a{0, XuType::kTensorOp, 0}, b{1, XuType::kTensorOp, 0};
  std::vector<uint64_t> ids;
  for (int i = 0; i < 10; ++i) {
    StatusOr<uint64_t> id = queues.Submit(a, Returning(Status::Ok(), &order, i, &order_mutex));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    ids.push_back(*id);
  }
  StatusOr<uint64_t> other = queues.Submit(b, Returning(Status::Ok()));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other & kSequenceNumberMask, 1u);  // its own numbering
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], MakeSequenceId(a, i + 1));
  }
  queues.Drain(0);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(*queues.LastCompleted(a), MakeSequenceId(a, 10));
  for (uint64_t id : ids) EXPECT_TRUE(*queues.IsCompleted(id));
}

TEST(ExecutionUnitQueuesTest, QueuesRunAtOnce) {
  Queues queues(TwoCores());
  Gate gate;
  AsyncRequest blocked;
  blocked.run = [&] {
    gate.Wait();
    return Status::Ok();
  };
  const QueueAddress held{0, XuType::kCompute, 0}, free_queue{0, XuType::kTensorOp, 1};
  StatusOr<uint64_t> waiting = queues.Submit(held, std::move(blocked));
  ASSERT_TRUE(waiting.ok());
  StatusOr<uint64_t> quick = queues.Submit(free_queue, Returning(Status::Ok()));
  ASSERT_TRUE(quick.ok());
  // The tensor-op request completes while the compute queue is held.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!*queues.IsCompleted(*quick) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(*queues.IsCompleted(*quick));
  EXPECT_FALSE(*queues.IsCompleted(*waiting));
  EXPECT_EQ(queues.Pending(held), 1u);
  gate.Open();
  queues.Drain(0);
  EXPECT_TRUE(*queues.IsCompleted(*waiting));
}

TEST(ExecutionUnitQueuesTest, AFullQueueRefusesUntilACompletion) {
  Queues queues(TwoCores(/*depth=*/3));
  Gate gate;
  const QueueAddress address{1, XuType::kTensorOp, 1};
  AsyncRequest first;
  first.run = [&] {
    gate.Wait();
    return Status::Ok();
  };
  ASSERT_TRUE(queues.Submit(address, std::move(first)).ok());
  ASSERT_TRUE(queues.Submit(address, Returning(Status::Ok())).ok());
  ASSERT_TRUE(queues.Submit(address, Returning(Status::Ok())).ok());
  StatusOr<uint64_t> refused = queues.Submit(address, Returning(Status::Ok()));
  EXPECT_EQ(refused.status().code(), StatusCode::kQueueFull);
  EXPECT_NE(refused.status().message().find("full"), std::string::npos);
  gate.Open();
  queues.Drain(1);
  StatusOr<uint64_t> accepted = queues.Submit(address, Returning(Status::Ok()));
  ASSERT_TRUE(accepted.ok());
  EXPECT_EQ(*accepted & kSequenceNumberMask, 4u);  // the refused one took no number
}

TEST(ExecutionUnitQueuesTest, AFatalStatusMakesTheUnitUnrecoverable) {
  Queues queues(TwoCores());
  Gate gate;
  const QueueAddress address{0, XuType::kCompute, 0};
  std::vector<Status> seen;
  std::mutex seen_mutex;
  auto recording = [&](AsyncRequest request) {
    request.complete = [&](uint64_t, const Status& status) {
      std::lock_guard lock(seen_mutex);
      seen.push_back(status);
    };
    return request;
  };
  AsyncRequest failing;
  failing.run = [&] {
    gate.Wait();
    return Status(StatusCode::kExecHwErrHbmUe, "uncorrectable HBM error");
  };
  ASSERT_TRUE(queues.Submit(address, recording(std::move(failing))).ok());
  bool ran_behind = false;
  AsyncRequest behind;
  behind.run = [&] {
    ran_behind = true;
    return Status::Ok();
  };
  ASSERT_TRUE(queues.Submit(address, recording(std::move(behind))).ok());
  gate.Open();
  queues.Drain(0);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].code(), StatusCode::kExecHwErrHbmUe);
  EXPECT_EQ(seen[1].code(), StatusCode::kExecUnitUnrecoverable);  // never ran
  EXPECT_FALSE(ran_behind);
  StatusOr<uint64_t> later = queues.Submit(address, Returning(Status::Ok()));
  EXPECT_EQ(later.status().code(), StatusCode::kExecUnitUnrecoverable);
  EXPECT_NE(later.status().message().find("request 1 failed"), std::string::npos);
  // Other queues, and non-fatal failures, are unaffected.
  const QueueAddress other{0, XuType::kTensorOp, 0};
  ASSERT_TRUE(queues.Submit(other, Returning(InvalidError("bad range"))).ok());
  queues.Drain(0);
  EXPECT_TRUE(queues.Submit(other, Returning(Status::Ok())).ok());
  queues.Drain(0);
}

TEST(ExecutionUnitQueuesTest, WithoutFatalDisablingEachFailureStandsAlone) {
  Queues::Options options = TwoCores();
  options.fatal_disables_unit = false;
  Queues queues(options);
  const QueueAddress address{0, XuType::kCompute, 0};
  ASSERT_TRUE(queues.Submit(address, Returning(Status(StatusCode::kTimeout, "slow"))).ok());
  queues.Drain(0);
  EXPECT_TRUE(queues.Submit(address, Returning(Status::Ok())).ok());
  queues.Drain(0);
}

TEST(ExecutionUnitQueuesTest, EventfdsAreSignalledOnCompletion) {
  Queues queues(TwoCores());
  Gate gate;
  const QueueAddress address{1, XuType::kCompute, 0};
  const int request_fd = eventfd(0, EFD_CLOEXEC);
  const int queue_fd = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(request_fd, 0);
  ASSERT_GE(queue_fd, 0);
  ASSERT_TRUE(queues.WatchQueue(address, queue_fd).ok());
  AsyncRequest held;
  held.run = [&] {
    gate.Wait();
    return Status::Ok();
  };
  StatusOr<uint64_t> first = queues.Submit(address, std::move(held));
  StatusOr<uint64_t> second = queues.Submit(address, Returning(Status::Ok()));
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE(queues.WatchRequest(*second, request_fd).ok());
  pollfd none{request_fd, POLLIN, 0};
  EXPECT_EQ(poll(&none, 1, 0), 0);  // nothing yet
  gate.Open();
  EXPECT_EQ(ReadEvent(request_fd), 1u);
  queues.Drain(1);
  EXPECT_EQ(ReadEvent(queue_fd), 2u);  // one per completion on the queue
  // Already complete: signalled at once.
  ASSERT_TRUE(queues.WatchRequest(*first, request_fd).ok());
  EXPECT_EQ(ReadEvent(request_fd), 1u);
  // Deregistered: no signal.
  ASSERT_TRUE(queues.WatchQueue(address, -1).ok());
  ASSERT_TRUE(queues.Submit(address, Returning(Status::Ok())).ok());
  queues.Drain(1);
  pollfd p{queue_fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  close(request_fd);
  close(queue_fd);
}

TEST(ExecutionUnitQueuesTest, BadIdsAndFdsAreInvalid) {
  Queues queues(TwoCores());
  const QueueAddress address{0, XuType::kTensorOp, 0};
  EXPECT_EQ(queues.IsCompleted(MakeSequenceId(address, 1)).status().code(), StatusCode::kInvalid);
  ASSERT_TRUE(queues.Submit(address, Returning(Status::Ok())).ok());
  queues.Drain(0);
  EXPECT_TRUE(*queues.IsCompleted(MakeSequenceId(address, 1)));
  EXPECT_EQ(queues.IsCompleted(MakeSequenceId(address, 2)).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(queues.IsCompleted(MakeSequenceId(address, 0)).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(queues.IsCompleted(uint64_t(0x00F0) << 48 | 1).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(queues.WatchRequest(MakeSequenceId(address, 1), 1 << 20).code(),
            StatusCode::kInvalid);  // not an open fd
  EXPECT_EQ(queues.Submit({2, XuType::kTensorOp, 0}, Returning(Status::Ok())).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(*queues.LastCompleted({1, XuType::kCompute, 0}),
            MakeSequenceId({1, XuType::kCompute, 0}, 0));
}

TEST(ExecutionUnitQueuesTest, ShutdownRunsWhatIsQueuedThenRefuses) {
  Queues queues(TwoCores());
  std::atomic<int> ran{0};
  const QueueAddress address{0, XuType::kTensorOp, 0};
  for (int i = 0; i < 20; ++i) {
    AsyncRequest request;
    request.run = [&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++ran;
      return Status::Ok();
    };
    ASSERT_TRUE(queues.Submit(address, std::move(request)).ok());
  }
  queues.Shutdown();
  EXPECT_EQ(ran.load(), 20);
  EXPECT_EQ(queues.Submit(address, Returning(Status::Ok())).status().code(), StatusCode::kClosed);
  EXPECT_EQ(queues.Submit({1, XuType::kCompute, 0}, Returning(Status::Ok())).status().code(),
            StatusCode::kClosed);
}

}  // namespace
}  // namespace trnsim::runtime::async
