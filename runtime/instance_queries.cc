// InstanceQueries: the instance and its logical cores, before or after nrt_init
// (instance_queries.h).
#include "runtime/instance_queries.h"

#include <memory>
#include <optional>

#include "runtime/session.h"

namespace trnsim::runtime {

StatusOr<RuntimeConfig> CurrentConfig(const Lifecycle& lifecycle) {
  if (std::optional<RuntimeConfig> frozen = lifecycle.ConfigIfInitialised()) return *frozen;
  Environment env = Environment::FromProcess();
  if (!InstanceComesFromDaemon(env)) return ParseRuntimeConfig(env);
  // Before nrt_init, the daemon's instance type costs one short session.
  TRNSIM_ASSIGN_OR_RETURN(std::unique_ptr<driver::Device> probe, OpenDaemonDevice(env));
  return ParseRuntimeConfig(env, &probe->instance_spec());
}

StatusOr<uint32_t> InstanceQueries::TotalVncCount() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  return static_cast<uint32_t>(config.total_vnc);
}

StatusOr<uint32_t> InstanceQueries::VisibleVncCount() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  return static_cast<uint32_t>(config.visible_vnc_count);
}

StatusOr<uint32_t> InstanceQueries::LogicalCoreSize() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  return static_cast<uint32_t>(config.lnc);
}

StatusOr<InstanceInfo> InstanceQueries::Info() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  InstanceInfo info;
  info.family = config.instance->nrt_family;
  info.size = config.instance->nrt_size;
  info.arch_name = config.instance->chip->core_arch;
  info.device_revision = config.instance->chip->device_revision;
  return info;
}

StatusOr<uint32_t> InstanceQueries::HostDeviceId(int neuron_device) const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  if (neuron_device < 0 || neuron_device >= config.instance->chip_count) {
    return InvalidError("no Neuron device " + std::to_string(neuron_device) + " (the " +
                        config.instance->type_name + " has " +
                        std::to_string(config.instance->chip_count) + ")");
  }
  // trnsim runs no containers that remap devices: runtime and host ids coincide.
  return static_cast<uint32_t>(neuron_device);
}

StatusOr<std::vector<uint32_t>> InstanceQueries::RoutingIdMap() const {
  TRNSIM_ASSIGN_OR_RETURN(RuntimeConfig config, CurrentConfig(lifecycle_));
  std::vector<uint32_t> map(config.instance->chip_count);
  for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<uint32_t>(i);  // rid == host id
  return map;
}

}  // namespace trnsim::runtime
