// RuntimeTrace: the capture behind nrt_trace_start(trace_mem) / nrt_trace_stop(filename)
// (nrt_experimental.h: tracing on all visible cores, optionally with memory allocation info;
// stop serialises the trace and ends it). The events themselves are the system trace's — the
// runtime starts its SysTraceRecorder on every visible core with every event type for the
// trace — and this object adds the memory part: with trace_mem, every tensor allocation and
// free the runtime makes while tracing (docs/profiling.md §7).
//
// The file nrt_trace_stop writes (FormatRuntimeTrace) is the system-trace document of
// nrt_sys_trace_fetch_events with two more members, so every reader of that JSON (and
// `neuron-profile view`) reads it:
//   {"events":[...], "data_version":2, "trace_mem":true,
//    "memory_events":[{"op":"allocate","timestamp_ns":...,"tensor_id":1,"name":"a",
//                      "placement":"device","nc_idx":0,"size_bytes":4096}, ...]}
// Recorded: every nrt_tensor_allocate while tracing, and the free of each of those tensors
// (slices and empty tensors own no memory and are not recorded). tensor_id numbers them from
// 1 and pairs a free with its allocation. nc_idx is the process-relative logical core of a
// device tensor and -1 for host and virtual ones. Without trace_mem "memory_events" is empty.
//
// Thread safety: every method, from any thread; running() is one atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "runtime/profiling/sys_trace_event.h"

namespace trnsim::runtime::profiling {

struct MemoryEvent {
  bool allocate = true;       // else a free
  uint64_t timestamp_ns = 0;  // host realtime
  uint64_t tensor_id = 0;
  std::string name;
  std::string placement;  // "device", "host", "virtual"
  int64_t nc_idx = -1;
  uint64_t size_bytes = 0;
};

class RuntimeTrace {
 public:
  bool running() const { return running_.load(std::memory_order_acquire); }
  bool traces_memory() const { return trace_mem_.load(std::memory_order_acquire); }

  void Begin(bool trace_mem);
  // Ends the trace and returns its memory events.
  std::vector<MemoryEvent> End();

  // The tensor at `key` (an opaque address) was allocated / is being freed; ignored unless the
  // trace runs with trace_mem (a free, unless its allocation was recorded).
  void RecordAllocation(const void* key, std::string name, std::string placement, int64_t nc_idx,
                        uint64_t size_bytes);
  void RecordFree(const void* key, std::string name, std::string placement, int64_t nc_idx,
                  uint64_t size_bytes);

 private:
  std::atomic<bool> running_{false};
  std::atomic<bool> trace_mem_{false};
  std::mutex mutex_;  // guards everything below
  std::vector<MemoryEvent> events_;
  std::unordered_map<const void*, uint64_t> ids_;  // live tensors allocated while tracing
  uint64_t next_id_ = 1;
};

// The document nrt_trace_stop writes.
std::string FormatRuntimeTrace(std::span<const SysTraceEvent> events, bool trace_mem,
                               std::span<const MemoryEvent> memory);

}  // namespace trnsim::runtime::profiling
