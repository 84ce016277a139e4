#include "tools/device_plugin/health_monitor.h"

#include "common/log.h"

namespace trnsim::device_plugin {

HealthMonitor::HealthMonitor(HealthTracker tracker, Reader reader, std::chrono::milliseconds poll)
    : reader_(std::move(reader)), poll_(poll), tracker_(std::move(tracker)) {}

HealthMonitor::~HealthMonitor() { Stop(); }

void HealthMonitor::Start() {
  Poll();
  thread_ = std::thread([this] { Run(); });
}

void HealthMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    snapshot_.stopped = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

HealthSnapshot HealthMonitor::Current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshot_;
}

HealthSnapshot HealthMonitor::WaitNewer(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout,
                    [&] { return snapshot_.generation > seen || snapshot_.stopped; });
  return snapshot_;
}

void HealthMonitor::Poll() {
  // The read runs unlocked: it may take up to its deadline while streams read snapshots.
  StatusOr<observe::DaemonStatus> status = reader_();
  std::lock_guard<std::mutex> lock(mutex_);
  const bool changed = tracker_.Observe(status);
  if (!changed && snapshot_.generation > 0) {
    snapshot_.reachable = tracker_.reachable();
    return;
  }
  TRNSIM_LOG(Info, Tool) << "trnsim-device-plugin: " << tracker_.Describe();
  snapshot_.generation++;
  snapshot_.reachable = tracker_.reachable();
  snapshot_.healthy = tracker_.healthy();
  changed_.notify_all();
}

void HealthMonitor::Run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (changed_.wait_for(lock, poll_, [this] { return stop_; })) return;
    }
    Poll();
  }
}

}  // namespace trnsim::device_plugin
