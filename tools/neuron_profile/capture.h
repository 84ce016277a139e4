// `neuron-profile capture`: runs a NEFF once, in this process, through libnrt (nrt_init,
// nrt_load, nrt_profile_start, nrt_execute, nrt_profile_stop) and leaves its device profile in
// the session file. Inputs come from `NAME FILE` pairs (raw bytes, exactly the tensor's size);
// inputs not given are zeros, as AWS's tool does. When NEURON_LOGICAL_NC_CONFIG is unset the
// runtime is started with the NEFF's own logical-core size.
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
};

// NRT statuses of the failing step, with a message naming it.
Status Capture(const CaptureArgs& args);

}  // namespace trnsim::neuron_profile
