#include "runtime/profiling/runtime_trace.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "runtime/profiling/sys_trace_json.h"
#include "runtime/profiling/sys_trace_recorder.h"

namespace trnsim::runtime::profiling {

void RuntimeTrace::Begin(bool trace_mem) {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.clear();
  ids_.clear();
  next_id_ = 1;
  trace_mem_.store(trace_mem, std::memory_order_release);
  running_.store(true, std::memory_order_release);
}

std::vector<MemoryEvent> RuntimeTrace::End() {
  std::lock_guard<std::mutex> lock(mutex_);
  running_.store(false, std::memory_order_release);
  trace_mem_.store(false, std::memory_order_release);
  ids_.clear();
  return std::exchange(events_, {});
}

void RuntimeTrace::RecordAllocation(const void* key, std::string name, std::string placement,
                                    int64_t nc_idx, uint64_t size_bytes) {
  if (!traces_memory()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!trace_mem_.load()) return;
  const uint64_t id = next_id_++;
  ids_[key] = id;
  events_.push_back({true, SysTraceRecorder::NowNs(), id, std::move(name), std::move(placement),
                     nc_idx, size_bytes});
}

void RuntimeTrace::RecordFree(const void* key, std::string name, std::string placement,
                              int64_t nc_idx, uint64_t size_bytes) {
  if (!traces_memory()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!trace_mem_.load()) return;
  auto it = ids_.find(key);
  if (it == ids_.end()) return;  // allocated before the trace, or not an allocation
  const uint64_t id = it->second;
  ids_.erase(it);  // the address may be reused by a later tensor
  events_.push_back({false, SysTraceRecorder::NowNs(), id, std::move(name), std::move(placement),
                     nc_idx, size_bytes});
}

std::string FormatRuntimeTrace(std::span<const SysTraceEvent> events, bool trace_mem,
                               std::span<const MemoryEvent> memory) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(SysTraceEventsToJson(events));
  doc["trace_mem"] = trace_mem;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const MemoryEvent& m : memory) {
    list.push_back({{"op", m.allocate ? "allocate" : "free"},
                    {"timestamp_ns", m.timestamp_ns},
                    {"tensor_id", m.tensor_id},
                    {"name", m.name},
                    {"placement", m.placement},
                    {"nc_idx", m.nc_idx},
                    {"size_bytes", m.size_bytes}});
  }
  doc["memory_events"] = std::move(list);
  // Tensor names come from the application: replace invalid UTF-8 rather than throw.
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace trnsim::runtime::profiling
