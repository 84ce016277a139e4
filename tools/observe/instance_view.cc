#include "tools/observe/instance_view.h"

#include <algorithm>
#include <set>

#include "simulator/spec/instance_id.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::observe {

std::vector<int> InstanceView::DevicesOf(const ProcessView& process) const {
  std::set<int> used;
  if (physical_cores_per_device > 0) {
    for (int core : process.physical_cores) used.insert(core / physical_cores_per_device);
  }
  for (const ProcessMemory& memory : process.memory) used.insert(memory.device);
  return {used.begin(), used.end()};
}

bool InstanceView::HasLinks() const {
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceView& d) { return !d.connected.empty(); });
}

InstanceView DescribeInstance(const simulator::InstanceSpec& spec, int lnc) {
  InstanceView view;
  view.instance_type = spec.type_name;
  view.instance_id = simulator::EmulatedInstanceId(spec.type_name);
  view.lnc = lnc;
  view.physical_cores_per_device = spec.chip->physical_cores;
  const int logical_per_device = spec.chip->physical_cores / lnc;
  for (int d = 0; d < spec.chip_count; ++d) {
    DeviceView device;
    device.index = d;
    for (int c = 0; c < logical_per_device; ++c) {
      device.logical_core_ids.push_back(d * logical_per_device + c);
    }
    device.memory_bytes = spec.chip->HbmBytes();
    device.connected = simulator::ConnectedDevices(spec, d);
    const simulator::DevicePlacement& placement = spec.devices[size_t(d)];
    device.pci_bdf = placement.pci_bdf;
    device.cpu_affinity = placement.cpu_affinity;
    device.numa_node = placement.numa_node;
    view.devices.push_back(std::move(device));
  }
  return view;
}

}  // namespace trnsim::observe
