// Where an inspect session's files go (docs/profiling.md §4), laid out like AWS's:
//   <output dir>/<instance id>_pid_<pid>/<UTC time the session began, YYYYMMDDTHHMMSSZ>/
// with the emulated instance id (simulator/spec/instance_id.h) in place of the EC2 one.
//
// Thread safety: reentrant. Errors are Status values; nothing throws.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "common/status.h"

namespace trnsim::runtime::profiling {

// The file AWS names ntrace.pb; trnsim writes the nrt_sys_trace_fetch_events JSON instead.
inline constexpr char kInspectSysTraceFile[] = "ntrace.json";

// The directory of process `pid` of an `instance_type` instance below `output_dir`:
// <output_dir>/<instance id>_pid_<pid> (nrt_inspect_get_instance_output_dir). An empty
// `output_dir` means "./output".
std::string InspectInstanceDir(std::string_view output_dir, std::string_view instance_type,
                               int64_t pid);

// The session directory of a session begun at `now`: InspectInstanceDir(...)/<YYYYMMDDTHHMMSSZ>.
std::string InspectSessionDir(std::string_view output_dir, std::string_view instance_type,
                              int64_t pid, std::time_t now);

// Writes `text` to `dir`/`name`, creating `dir` and its parents. NRT_INVALID naming the path
// when the directory or the file cannot be written.
Status WriteInspectFile(const std::string& dir, std::string_view name, std::string_view text);

}  // namespace trnsim::runtime::profiling
