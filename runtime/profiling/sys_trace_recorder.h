// SysTraceRecorder: the capture behind nrt_sys_trace_start / _stop / _fetch_events — one bounded
// ring of SysTraceEvent records per enabled logical core, filled by the runtime where models
// load and execute, emptied by fetches.
//
// Lifecycle: Start(config, nc_count) creates a ring for each core in [0, nc_count) the config
// enables (cores past nc_count are ignored); Stop frees them with any event not yet fetched.
// Start while capturing and Stop while not are NRT_INVALID (AWS documents no status for
// either). Records made while not capturing, on a core without a ring or of a disabled type
// are dropped at once; a full ring drops its oldest record to take a new one.
//
// Drain removes and returns, per core in ascending order, the oldest records of each ring (at
// most max_events_per_nc per core when that is non-zero; only core nc_idx when set). Records
// are in the order they were recorded on their core. Drained records are gone: two drains never
// return the same record. Not capturing: an empty result.
//
// Thread safety: every method, from any thread (one mutex; the not-capturing path of the
// record calls is one atomic load). Errors are Status values.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "common/status.h"
#include "runtime/profiling/sys_trace_config.h"
#include "runtime/profiling/sys_trace_event.h"

namespace trnsim::runtime::profiling {

class SysTraceRecorder {
 public:
  Status Start(const SysTraceConfig& config, uint32_t nc_count);
  Status Stop();
  bool capturing() const { return capturing_.load(std::memory_order_acquire); }

  // True when a record of `type` on `nc_idx` would be kept now: callers skip building the data
  // of an event nobody captures.
  bool Wants(SysTraceType type, uint32_t nc_idx) const;

  // A span recorded in two steps (its core is known at the start): RecordStart returns the
  // tracking id RecordStop takes, or 0 when the start was not kept (RecordStop ignores 0).
  uint64_t RecordStart(SysTraceType type, uint32_t nc_idx, uint64_t timestamp_ns,
                       SysTraceData data);
  void RecordStop(SysTraceType type, uint32_t nc_idx, uint64_t tracking_id, uint64_t timestamp_ns,
                  SysTraceData data);
  // A span recorded once it is over (its core or its times are known only then).
  void RecordSpan(SysTraceType type, uint32_t nc_idx, uint64_t start_ns, uint64_t stop_ns,
                  SysTraceData start_data, SysTraceData stop_data);

  std::vector<SysTraceEvent> Drain(const SysTraceFetchOptions& options);

  // The host realtime clock in ns since the epoch (the records' time base).
  static uint64_t NowNs();

 private:
  struct Ring {
    bool enabled = false;
    std::deque<SysTraceEvent> events;
    uint64_t recorded = 0;  // nc_local_id of the last record
  };

  // Appends one record; mutex_ held. Returns false when it was not kept.
  bool PushLocked(SysTraceType type, SysTracePhase phase, uint32_t nc_idx, uint64_t tracking_id,
                  uint64_t timestamp_ns, SysTraceData data);
  bool WantsLocked(SysTraceType type, uint32_t nc_idx) const;

  std::atomic<bool> capturing_{false};
  mutable std::mutex mutex_;  // guards everything below
  SysTraceConfig config_;
  std::vector<Ring> rings_;  // one per core of [0, nc_count) while capturing
  uint64_t next_id_ = 0;     // ids are unique for the process's life, across captures
  uint64_t next_tracking_id_ = 0;
};

}  // namespace trnsim::runtime::profiling
