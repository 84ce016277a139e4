// HostWorkers (simulator/core/host_workers.h): every piece runs exactly once, on more than one
// thread when the pool has workers; a ParallelFor called from inside a piece, or while another
// thread's is in flight, runs inline and still covers every piece; a one-thread pool is inline.
#include "simulator/core/host_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace trnsim::simulator::core {
namespace {

TEST(HostWorkersTest, EveryPieceRunsExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    HostWorkers pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (uint32_t count : {0u, 1u, 2u, 7u, 64u}) {
      for (int round = 0; round < 20; ++round) {  // reuse: no stale job reaches a worker
        std::vector<std::atomic<int>> runs(count);
        pool.ParallelFor(count, [&](uint32_t i) { runs[i].fetch_add(1); });
        for (uint32_t i = 0; i < count; ++i)
          ASSERT_EQ(runs[i].load(), 1)
              << threads << " threads, " << count << " pieces, piece " << i;
      }
    }
  }
}

TEST(HostWorkersTest, WorkersShareTheLoad) {
  // Pieces that wait until a second thread has run a piece: the caller alone could not finish.
  HostWorkers pool(3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> started{0};
  pool.ParallelFor(8, [&](uint32_t) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      std::lock_guard<std::mutex> lock(mu);
      if (ids.size() >= 2) break;
    }
  });
  EXPECT_EQ(started.load(), 8);
  EXPECT_GE(ids.size(), 2u);
}

TEST(HostWorkersTest, NestedAndConcurrentCallsRunInlineAndComplete) {
  HostWorkers pool(2);
  std::atomic<int> inner{0};
  pool.ParallelFor(4, [&](uint32_t) {
    pool.ParallelFor(5, [&](uint32_t) { inner.fetch_add(1); });  // the pool is busy: inline
  });
  EXPECT_EQ(inner.load(), 20);
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round)
        pool.ParallelFor(6, [&](uint32_t) { total.fetch_add(1); });
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 50 * 6);
}

}  // namespace
}  // namespace trnsim::simulator::core
