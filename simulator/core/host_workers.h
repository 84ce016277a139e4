// HostWorkers: a small pool of host threads that one large computation (a PE matmul instruction)
// can split its independent pieces over. It changes how fast a result is computed, never what it
// is: the caller splits the work into pieces whose results do not depend on which thread runs
// them or in what order (pe_gemm.cc: whole output column blocks, each element still summed over
// k in order).
//
// Contract:
//   - ParallelFor(count, task) calls task(i) exactly once for every i in [0, count) and returns
//     when all have returned. The caller's thread takes part; up to threads() - 1 workers help.
//   - One ParallelFor runs on the pool at a time. A call made while another is in flight (another
//     simulation thread, or a task calling ParallelFor) runs every piece on its own thread
//     instead of waiting: nesting and concurrent callers are safe and never deadlock.
//   - A worker that wakes late finds no piece left and goes back to sleep; the caller never waits
//     for a piece nobody has claimed, so a loaded host costs at most the single-thread time plus
//     the pieces already claimed.
//   - task must not throw (the library does not use exceptions).
//
// Thread safety: every member function may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace trnsim::simulator::core {

class HostWorkers {
 public:
  // A pool of `threads` threads in all, counting the caller's (threads - 1 workers; 1 or less:
  // none, every ParallelFor runs inline).
  explicit HostWorkers(int threads);
  ~HostWorkers();
  HostWorkers(const HostWorkers&) = delete;
  HostWorkers& operator=(const HostWorkers&) = delete;

  // The process-wide pool, made at first use: TRNSIM_PE_THREADS threads (common/env.h; 0, the
  // default, means one per host core; 1 turns the split off). A malformed value logs one
  // warning and means 1.
  static HostWorkers& Shared();

  int threads() const { return int(workers_.size()) + 1; }

  void ParallelFor(uint32_t count, const std::function<void(uint32_t)>& task);

 private:
  // One ParallelFor's shared state, on the caller's stack while it runs.
  struct Job {
    const std::function<void(uint32_t)>* task;
    uint32_t count;
    std::atomic<uint32_t> next{0};  // the next unclaimed piece
    int joined = 0;                 // workers inside RunPieces (guarded by mu_)
  };

  static void RunPieces(Job& job);
  void WorkerLoop();

  std::mutex submit_mu_;  // held by the one ParallelFor using the workers
  std::mutex mu_;
  std::condition_variable wake_;  // a job was posted, or the pool is stopping
  std::condition_variable left_;  // a worker left the job
  Job* job_ = nullptr;            // the posted job, until its pieces are all claimed
  uint64_t generation_ = 0;       // counts posted jobs: a worker joins each at most once
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace trnsim::simulator::core
