#include "tools/neuron_top/sampler.h"

#include <chrono>

#include "tools/observe/observe.h"

namespace trnsim::neuron_top {
namespace {

CpuShare ShareOf(const nlohmann::ordered_json& usage) {
  CpuShare share;
  if (usage.is_object()) {
    share.user_percent = usage.value("user", 0.0);
    share.system_percent = usage.value("system", 0.0);
  }
  return share;
}

}  // namespace

StatusOr<Sample> Sampler::Take() {
  TRNSIM_ASSIGN_OR_RETURN(observe::InstanceView view, observe::ObserveInstance(env_));
  Sample sample;
  sample.taken_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch())
                                              .count());
  const nlohmann::ordered_json system = host_.VcpuUsage();
  if (system.contains("average_usage")) sample.system_cpu = ShareOf(system["average_usage"]);
  for (const observe::ProcessView& process : view.processes) {
    if (!process.IsRuntimeUser()) continue;
    const nlohmann::ordered_json usage = host_.ProcessVcpuUsage(process.pid);
    sample.process_cpu[process.pid] = ShareOf(usage["vcpu_usage"]);
  }
  sample.view = std::move(view);
  return sample;
}

}  // namespace trnsim::neuron_top
