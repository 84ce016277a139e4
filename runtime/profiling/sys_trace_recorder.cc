#include "runtime/profiling/sys_trace_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace trnsim::runtime::profiling {
namespace {

uint64_t ThreadId() {
  thread_local const uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  return tid;
}

}  // namespace

uint64_t SysTraceRecorder::NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

Status SysTraceRecorder::Start(const SysTraceConfig& config, uint32_t nc_count) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capturing_.load()) {
    return InvalidError("the system trace is already capturing: call nrt_sys_trace_stop first");
  }
  config_ = config;
  rings_.assign(nc_count, Ring());
  for (uint32_t nc = 0; nc < nc_count; ++nc) rings_[nc].enabled = config.CaptureEnabledForNc(nc);
  capturing_.store(true, std::memory_order_release);
  return Status::Ok();
}

Status SysTraceRecorder::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!capturing_.load()) {
    return InvalidError("the system trace is not capturing: nrt_sys_trace_start was not called");
  }
  capturing_.store(false, std::memory_order_release);
  rings_.clear();
  rings_.shrink_to_fit();
  return Status::Ok();
}

bool SysTraceRecorder::WantsLocked(SysTraceType type, uint32_t nc_idx) const {
  return capturing_.load() && nc_idx < rings_.size() && rings_[nc_idx].enabled &&
         config_.CaptureEnabledForEventType(static_cast<size_t>(type)) &&
         config_.max_events_per_nc() > 0;
}

bool SysTraceRecorder::Wants(SysTraceType type, uint32_t nc_idx) const {
  if (!capturing()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return WantsLocked(type, nc_idx);
}

bool SysTraceRecorder::PushLocked(SysTraceType type, SysTracePhase phase, uint32_t nc_idx,
                                  uint64_t tracking_id, uint64_t timestamp_ns, SysTraceData data) {
  if (!WantsLocked(type, nc_idx)) return false;
  Ring& ring = rings_[nc_idx];
  while (ring.events.size() >= config_.max_events_per_nc()) ring.events.pop_front();
  SysTraceEvent& event = ring.events.emplace_back();
  event.type = type;
  event.phase = phase;
  event.id = ++next_id_;
  event.nc_idx = nc_idx;
  event.nc_local_id = ++ring.recorded;
  event.tracking_id = tracking_id;
  event.thread_id = ThreadId();
  event.timestamp_ns = timestamp_ns;
  event.data = std::move(data);
  return true;
}

uint64_t SysTraceRecorder::RecordStart(SysTraceType type, uint32_t nc_idx, uint64_t timestamp_ns,
                                       SysTraceData data) {
  if (!capturing()) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t tracking_id = next_tracking_id_ + 1;
  if (!PushLocked(type, SysTracePhase::kStart, nc_idx, tracking_id, timestamp_ns,
                  std::move(data))) {
    return 0;
  }
  next_tracking_id_ = tracking_id;
  return tracking_id;
}

void SysTraceRecorder::RecordStop(SysTraceType type, uint32_t nc_idx, uint64_t tracking_id,
                                  uint64_t timestamp_ns, SysTraceData data) {
  if (tracking_id == 0 || !capturing()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  (void)PushLocked(type, SysTracePhase::kStop, nc_idx, tracking_id, timestamp_ns, std::move(data));
}

void SysTraceRecorder::RecordSpan(SysTraceType type, uint32_t nc_idx, uint64_t start_ns,
                                  uint64_t stop_ns, SysTraceData start_data,
                                  SysTraceData stop_data) {
  if (!capturing()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t tracking_id = next_tracking_id_ + 1;
  if (!PushLocked(type, SysTracePhase::kStart, nc_idx, tracking_id, start_ns,
                  std::move(start_data))) {
    return;
  }
  next_tracking_id_ = tracking_id;
  (void)PushLocked(type, SysTracePhase::kStop, nc_idx, tracking_id, stop_ns, std::move(stop_data));
}

std::vector<SysTraceEvent> SysTraceRecorder::Drain(const SysTraceFetchOptions& options) {
  std::vector<SysTraceEvent> drained;
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t nc = 0; nc < rings_.size(); ++nc) {
    if (options.nc_idx && *options.nc_idx != nc) continue;
    std::deque<SysTraceEvent>& events = rings_[nc].events;
    size_t take = events.size();
    if (options.max_events_per_nc > 0 && options.max_events_per_nc < take) {
      take = static_cast<size_t>(options.max_events_per_nc);
    }
    std::move(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(take),
              std::back_inserter(drained));
    events.erase(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(take));
  }
  return drained;
}

}  // namespace trnsim::runtime::profiling
