#include "tools/device_plugin/device_list.h"

namespace trnsim::device_plugin {

v1beta1::ListAndWatchResponse DeviceList(const Inventory& inventory, Resource resource,
                                         const HealthSnapshot& health) {
  v1beta1::ListAndWatchResponse list;
  for (const PluginDevice& device : inventory.Devices(resource)) {
    v1beta1::Device* entry = list.add_devices();
    entry->set_id(device.id);
    const bool healthy = health.reachable && size_t(device.device) < health.healthy.size() &&
                         health.healthy[size_t(device.device)];
    entry->set_health(healthy ? kHealthy : kUnhealthy);
    if (device.numa_node >= 0) entry->mutable_topology()->add_nodes()->set_id(device.numa_node);
  }
  return list;
}

}  // namespace trnsim::device_plugin
