// neuron-top's tabs: `[1]:all` (every runtime process of the instance together), then one tab
// per runtime process (a daemon session with a runtime version), ascending session id, labelled
// by its pid — trnsim has no process tag (a client's NEURON_PROCESS_TAG never reaches the
// daemon). Tools such as neuron-top itself get no tab.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/observe/instance_view.h"

namespace trnsim::neuron_top {

inline constexpr uint64_t kAllProcesses = 0;  // the `all` tab's session id

struct Tab {
  uint64_t session_id = kAllProcesses;
  std::string label;  // "all" or the pid
};

std::vector<Tab> TabsOf(const observe::InstanceView& view);

// True when `process` is shown under the tab of `session_id` (kAllProcesses: every runtime
// process).
bool InTab(const observe::ProcessView& process, uint64_t session_id);

}  // namespace trnsim::neuron_top
