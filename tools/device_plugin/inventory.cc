#include "tools/device_plugin/inventory.h"

namespace trnsim::device_plugin {

Inventory::Inventory(const observe::InstanceView& view)
    : instance_type_(view.instance_type), lnc_(view.lnc) {
  if (!view.devices.empty()) cores_per_device_ = int(view.devices.front().logical_core_ids.size());
  for (const observe::DeviceView& device : view.devices) {
    connected_.push_back(device.connected);
    PluginDevice whole;
    whole.id = "neuron" + std::to_string(device.index);
    whole.device = device.index;
    whole.logical_cores = device.logical_core_ids;
    whole.numa_node = device.numa_node;
    devices_.push_back(whole);
    for (int core : device.logical_core_ids) {
      PluginDevice one;
      one.id = std::to_string(core);
      one.device = device.index;
      one.logical_cores = {core};
      one.numa_node = device.numa_node;
      cores_.push_back(std::move(one));
    }
  }
}

const std::vector<PluginDevice>& Inventory::Devices(Resource resource) const {
  return IsDeviceResource(resource) ? devices_ : cores_;
}

const PluginDevice* Inventory::Find(Resource resource, std::string_view id) const {
  // Both lists are small (at most 16 devices, 128 cores): a scan, at kubelet's call rate.
  for (const PluginDevice& device : Devices(resource)) {
    if (device.id == id) return &device;
  }
  return nullptr;
}

}  // namespace trnsim::device_plugin
