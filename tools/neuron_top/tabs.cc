#include "tools/neuron_top/tabs.h"

namespace trnsim::neuron_top {

std::vector<Tab> TabsOf(const observe::InstanceView& view) {
  std::vector<Tab> tabs = {{kAllProcesses, "all"}};
  for (const observe::ProcessView& process : view.processes) {
    if (process.IsRuntimeUser()) tabs.push_back({process.session_id, std::to_string(process.pid)});
  }
  return tabs;
}

bool InTab(const observe::ProcessView& process, uint64_t session_id) {
  return process.IsRuntimeUser() &&
         (session_id == kAllProcesses || process.session_id == session_id);
}

}  // namespace trnsim::neuron_top
