// HealthMonitor: polls the daemon's Status every `poll` on a thread of its own, feeds each
// answer (or failure) to a HealthTracker and publishes the result as numbered snapshots; each
// resource's ListAndWatch streams (plugin_service.h) wait for a newer one. A health change is
// logged as one line (INFO).
//
// `reader` is one Status read (observe::ReadDaemonStatus in the program; a fake in unit tests);
// it must return within about a poll period plus its own deadline. Start() takes the first
// reading before it returns, so the first snapshot is never a guess.
//
// Thread safety: every method may be called from any thread; Stop() (and the destructor) joins
// the poller and wakes every waiter.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status_or.h"
#include "tools/device_plugin/health_tracker.h"
#include "tools/observe/daemon_source.h"

namespace trnsim::device_plugin {

struct HealthSnapshot {
  uint64_t generation = 0;    // increases by one with each change; 0: before Start
  bool reachable = false;     // the last poll reached the daemon
  std::vector<bool> healthy;  // per Neuron device, in device order
  bool stopped = false;       // the monitor is stopping: streams should end
};

class HealthMonitor {
 public:
  using Reader = std::function<StatusOr<observe::DaemonStatus>()>;

  HealthMonitor(HealthTracker tracker, Reader reader, std::chrono::milliseconds poll);
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // Reads once, publishes generation 1, then starts polling. Call once.
  void Start();
  void Stop();

  HealthSnapshot Current() const;
  // The current snapshot as soon as its generation is above `seen`, or it is stopping, or
  // `timeout` has passed (whichever comes first).
  HealthSnapshot WaitNewer(uint64_t seen, std::chrono::milliseconds timeout) const;

 private:
  void Poll();  // one read, published when health changed (or on the first read)
  void Run();

  Reader reader_;
  const std::chrono::milliseconds poll_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  HealthTracker tracker_;    // guarded by mutex_
  HealthSnapshot snapshot_;  // guarded by mutex_
  bool stop_ = false;        // guarded by mutex_
  std::thread thread_;
};

}  // namespace trnsim::device_plugin
