// The profile writer: serialises profiled executions as the profile document (profile_format.h,
// docs/profiling.md). Used by nrt_profile_stop and NEURON_RT_INSPECT_ENABLE capture; what it
// writes, profile_reader.h reads back.
//
// Thread safety: the functions are reentrant. Errors are Status values; nothing throws.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"
#include "driver/execution_result.h"
#include "runtime/profiling/format/profile_format.h"
#include "simulator/core/trace.h"

namespace trnsim::runtime::profiling {

// What the file says about where the executions ran.
struct ProfileHeader {
  std::string model_name;  // the NEFF's network name
  int vnc = 0;             // logical core
  std::string chip;        // ChipSpec::name, "Trainium2"
  std::string instance;    // "trn2.48xlarge"
  int session_id = 0;      // the inspect session's id (written as "session_id"); 0: none
};

// One execution of the model while it was being profiled.
struct ProfiledExecution {
  uint64_t index = 0;  // the model's execution number since load (0-based)
  // The run's exec_id in the system trace (its nc_exec_running events carry the same), 0 when
  // unknown; the model it ran (the header names the file's models; a profile session's file
  // may hold several).
  uint64_t exec_id = 0;
  std::string model_name;
  Status status;  // the execution's outcome; its trace stops where a failure stopped it
  driver::ExecutionResult result;  // statistics (empty when status is an error)
  simulator::core::ExecutionTrace trace;
};

// Serialises `executions` (in order) as the profile document.
std::string FormatProfile(const ProfileHeader& header,
                          std::span<const ProfiledExecution> executions);

// Writes FormatProfile(...) to `path`, replacing it. NRT_INVALID when the file cannot be
// written (the message names the path and the OS error).
Status WriteProfile(const std::string& path, const ProfileHeader& header,
                    std::span<const ProfiledExecution> executions);

}  // namespace trnsim::runtime::profiling
