#include "driver/sim/device_clock.h"

#include <algorithm>

namespace trnsim::driver::sim {

uint64_t DeviceClock::Start(std::span<const int> cores) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t start_ps = 0;
  for (int c : cores) start_ps = std::max(start_ps, counters_ps_[size_t(c)]);
  return start_ps;
}

void DeviceClock::Finish(std::span<const int> cores, uint64_t start_ps, uint64_t duration_ps) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int c : cores) counters_ps_[size_t(c)] = start_ps + RoundUpToTick(duration_ps);
}

uint64_t DeviceClock::Now(int core) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_ps_[size_t(core)];
}

}  // namespace trnsim::driver::sim
