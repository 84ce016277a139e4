// HostWorkers (host_workers.h).
//
// Pieces are claimed from an atomic counter, so whoever is running takes the next piece: the
// caller does not wait for a worker the host has not scheduled yet. The job is withdrawn (job_ =
// nullptr) once every piece is claimed, then the caller waits only for the workers that joined it
// to leave; a worker joins a job at most once (generation_), so it cannot run a stale job's task.
#include "simulator/core/host_workers.h"

#include <algorithm>

#include "common/env.h"
#include "common/log.h"

namespace trnsim::simulator::core {

HostWorkers::HostWorkers(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

HostWorkers::~HostWorkers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

HostWorkers& HostWorkers::Shared() {
  static HostWorkers* shared = [] {
    StatusOr<int64_t> asked = Environment::FromProcess().GetInt(EnvVar::kPeThreads);
    int64_t threads = 1;
    if (!asked.ok()) {
      TRNSIM_LOG(Warn, Sim) << asked.status().message() << "; PE host parallelism off";
    } else if (*asked <= 0) {
      threads = std::max(1u, std::thread::hardware_concurrency());
    } else {
      threads = std::min<int64_t>(*asked, 256);
    }
    return new HostWorkers(int(threads));  // never destroyed: workers may outlive static dtors
  }();
  return *shared;
}

void HostWorkers::RunPieces(Job& job) {
  for (uint32_t i = job.next.fetch_add(1); i < job.count; i = job.next.fetch_add(1)) (*job.task)(i);
}

void HostWorkers::ParallelFor(uint32_t count, const std::function<void(uint32_t)>& task) {
  std::unique_lock<std::mutex> submit(submit_mu_, std::try_to_lock);
  if (workers_.empty() || count <= 1 || !submit.owns_lock()) {
    for (uint32_t i = 0; i < count; ++i) task(i);
    return;
  }
  Job job;
  job.task = &task;
  job.count = count;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  RunPieces(job);
  std::unique_lock<std::mutex> lock(mu_);
  job_ = nullptr;
  left_.wait(lock, [&job] { return job.joined == 0; });
}

void HostWorkers::WorkerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || (job_ != nullptr && generation_ != seen); });
    if (stopping_) return;
    seen = generation_;
    Job& job = *job_;
    ++job.joined;
    lock.unlock();
    RunPieces(job);
    lock.lock();
    if (--job.joined == 0) left_.notify_all();
  }
}

}  // namespace trnsim::simulator::core
