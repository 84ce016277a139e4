// DeviceClock: the device-time counters of the physical NeuronCores of one emulated instance —
// the clock hardware events carry as nc_timestamp_ns (docs/profiling.md §6, "Device time").
//
// Each physical core has a counter of simulated picoseconds, 0 when the device is created (at
// nrt_init in-process; when neurond starts for the daemon, so every client of one daemon reads
// the same clock). It advances only by the executions the core runs, never by host time
// (DESIGN.md decision 4), which keeps it deterministic for a given order of executions:
//  - an execution on a set of cores starts at the latest of their counters (the cores of one
//    execution start together, docs/chip-model.md, so a core whose partner is further ahead
//    waits for it — idle device time);
//  - when it succeeds, every one of its cores' counters becomes start + the execution's
//    simulated duration (its longest core: an execution holds all its cores until it ends),
//    rounded up to whole nanoseconds (the counter ticks in ns, so every value is a multiple of
//    1,000 ps and device timestamps in ns are exact);
//  - a failed execution has no simulated duration and leaves the counters where they were.
// Counters survive ReleaseCores: the clock is the device's, not a client's.
//
// Thread safety: every method, from any thread (one mutex). The device calls Start and Finish
// for cores it has claimed, so two executions never interleave on one core.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

namespace trnsim::driver::sim {

class DeviceClock {
 public:
  explicit DeviceClock(int physical_cores) : counters_ps_(size_t(physical_cores), 0) {}

  // The start, in device ps, of an execution on `cores` (instance-wide physical indices): the
  // latest of their counters.
  uint64_t Start(std::span<const int> cores) const;
  // Ends a successful execution on `cores` that started at `start_ps` and lasted
  // `duration_ps`.
  void Finish(std::span<const int> cores, uint64_t start_ps, uint64_t duration_ps);
  // The counter of one core (tests and reports).
  uint64_t Now(int core) const;

  // `ps` rounded up to the counter's tick (1 ns).
  static constexpr uint64_t RoundUpToTick(uint64_t ps) { return (ps + 999) / 1000 * 1000; }

 private:
  mutable std::mutex mutex_;
  std::vector<uint64_t> counters_ps_;  // instance-wide physical core -> device time
};

}  // namespace trnsim::driver::sim
