// SysTraceJson: the JSON document nrt_sys_trace_fetch_events returns, from drained
// SysTraceEvent records (sys_trace_event.h). The shape follows the one AWS's libnrt emits
// (docs/decisions.md, "System-trace JSON"):
//
//   {"events":[{"event_type":"nrt_execute","phase":"start","id":7,"nc_idx":0,"nc_local_id":3,
//               "tracking_id":4,"thread_id":1234,"worker_gid":-1,"data":{...},
//               "timestamp_ns":1764500000000000000}, ...],
//    "data_version":2}
//
// `data` is always an object ({} when the event carries nothing); its keys are those of
// SysTraceData that are set, except worker_gid, which is the event's own field (the collective
// rank of the model the event belongs to, -1 for none). Compact (no whitespace), UTF-8; model names
// are escaped (bytes that are not valid UTF-8 are replaced). Pure function; thread-safe.
#pragma once

#include <span>
#include <string>

#include "runtime/profiling/sys_trace_event.h"

namespace trnsim::runtime::profiling {

std::string SysTraceEventsToJson(std::span<const SysTraceEvent> events);

}  // namespace trnsim::runtime::profiling
