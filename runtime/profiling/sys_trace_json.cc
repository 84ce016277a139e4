#include "runtime/profiling/sys_trace_json.h"

#include <nlohmann/json.hpp>

#include "runtime/profiling/sys_trace_config.h"

namespace trnsim::runtime::profiling {
namespace {

// The envelope version AWS's fetch writes; trnsim's fields follow that version's names.
constexpr int kDataVersion = 2;

nlohmann::ordered_json DataOf(const SysTraceData& data) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (!data.model_name.empty()) out["model_name"] = data.model_name;
  if (data.model_id) out["model_id"] = *data.model_id;
  if (data.exec_id) out["exec_id"] = *data.exec_id;
  if (data.device_core_idx) out["device_core_idx"] = *data.device_core_idx;
  if (data.repeat) out["repeat"] = *data.repeat;
  if (data.duration_ps) out["duration_ps"] = *data.duration_ps;
  if (data.nc_timestamp_ns) out["nc_timestamp_ns"] = *data.nc_timestamp_ns;
  if (data.cpu_timestamp_ns) out["cpu_timestamp_ns"] = *data.cpu_timestamp_ns;
  if (!data.tensor_name.empty()) out["tensor_name"] = data.tensor_name;
  if (data.nan_count) out["nan_count"] = *data.nan_count;
  if (data.inf_count) out["inf_count"] = *data.inf_count;
  if (!data.status.empty()) out["status"] = data.status;
  return out;
}

}  // namespace

std::string SysTraceEventsToJson(std::span<const SysTraceEvent> events) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const SysTraceEvent& event : events) {
    nlohmann::ordered_json one = nlohmann::ordered_json::object();
    one["event_type"] = std::string(kSysTraceEventTypes[static_cast<size_t>(event.type)]);
    one["phase"] = event.phase == SysTracePhase::kStart ? "start" : "stop";
    one["id"] = event.id;
    one["nc_idx"] = event.nc_idx;
    one["nc_local_id"] = event.nc_local_id;
    one["tracking_id"] = event.tracking_id;
    one["thread_id"] = event.thread_id;
    one["worker_gid"] = event.data.worker_gid;
    one["data"] = DataOf(event.data);
    one["timestamp_ns"] = event.timestamp_ns;
    list.push_back(std::move(one));
  }
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
  document["events"] = std::move(list);
  document["data_version"] = kDataVersion;
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace trnsim::runtime::profiling
