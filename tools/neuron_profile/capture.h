// `neuron-profile capture`: runs a NEFF in this process through libnrt (nrt_init, nrt_load,
// nrt_execute num_exec times, with nrt_profile_start / nrt_profile_stop around the
// profile_nth_exec-th) and leaves that execution's device profile in the session file.
//
// Inputs come from `NAME FILE` pairs: a *.npy file gives its array data, any other file its raw
// bytes; either way exactly the tensor's size. Inputs not given are zeros, as AWS's tool does.
// When NEURON_LOGICAL_NC_CONFIG is unset the runtime is started with the NEFF's own
// logical-core size.
//
// Executions: by default the first failing execution ends the capture with its status (the
// profile is still written when it was the profiled one). With ignore_exec_errors each failure
// is reported as one line on stderr and the remaining executions run. check_output_determinism
// compares every successful execution's outputs with the first successful one's, byte for byte,
// and fails (NRT_FAILURE) naming the first difference. save_output / save_output_npy write the
// profiled execution's outputs beside the session file as output_<name>.bin (raw bytes) /
// output_<name>.npy (the tensor's dtype and shape; bfloat16 and fp8 as unsigned integers of
// their width, numpy having no such dtypes), with '/' in names replaced by '_'.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace trnsim::neuron_profile {

struct CaptureArgs {
  std::string neff;
  std::string session = "profile.ntff";
  std::vector<std::pair<std::string, std::string>> inputs;  // tensor name, file
  int num_exec = 1;                                          // >= 1
  int profile_nth_exec = 1;                                  // 1..num_exec
  bool ignore_exec_errors = false;
  bool check_output_determinism = false;  // needs num_exec >= 2
  bool save_output = false;
  bool save_output_npy = false;
  // -t systrace: instead of a device profile, the session file gets the system trace of the
  // whole run (nrt_sys_trace_start after nrt_init, every event type on every core, fetched
  // after the last execution — or after the failure that ended the capture), the JSON
  // nrt_sys_trace_fetch_events returns. profile_nth_exec is then ignored, and save_output(_npy)
  // write the last execution's outputs.
  bool system_trace = false;
};

// NRT_INVALID for inconsistent arguments (checked before anything runs); otherwise the NRT
// status of the failing step, with a message naming it.
Status Capture(const CaptureArgs& args);

}  // namespace trnsim::neuron_profile
