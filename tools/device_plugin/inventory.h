// Inventory: what the plugin advertises for one emulated instance, per resource — fixed once the
// plugin knows the daemon's instance type and the LNC. Built from observe::DescribeInstance, the
// same view `neuron-ls -j` prints, so the two agree by construction:
//  - device resources (neuron, neurondevice): one kubelet device per Neuron device, ID
//    "neuron<N>" (the name of the device node /dev/neuron<N> AWS's plugin hands out), carrying
//    all of the device's logical cores;
//  - neuroncore: one kubelet device per logical NeuronCore at the LNC, ID the instance-wide
//    logical core number in decimal ("0".."63" on trn2.48xlarge at LNC=2) — the value
//    NEURON_RT_VISIBLE_CORES takes and neuron-ls lists as neuroncore_ids.
// NUMA node: the instance spec's placement of the device (neuron-ls's numa_node); -1 when the
// host has one node, and then the device carries no topology (kubelet: no NUMA affinity).
//
// Thread safety: immutable after construction; share freely.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/device_plugin/resource.h"
#include "tools/observe/instance_view.h"

namespace trnsim::device_plugin {

// One kubelet device of one resource.
struct PluginDevice {
  std::string id;
  int device = 0;                  // the Neuron device (chip) it is or belongs to
  std::vector<int> logical_cores;  // instance-wide, ascending: all of a device's, or one core
  int numa_node = -1;
};

class Inventory {
 public:
  // `view` is DescribeInstance's (the instance's devices at its LNC).
  explicit Inventory(const observe::InstanceView& view);

  const std::string& instance_type() const { return instance_type_; }
  int lnc() const { return lnc_; }
  int device_count() const { return int(connected_.size()); }
  int cores_per_device() const { return cores_per_device_; }
  // The devices linked to `device` (simulator::ConnectedDevices; neuron-ls's connected_to).
  const std::vector<int>& Connected(int device) const { return connected_[size_t(device)]; }

  // The resource's kubelet devices, in ascending device / core order.
  const std::vector<PluginDevice>& Devices(Resource resource) const;
  // The device with this ID, or nullptr.
  const PluginDevice* Find(Resource resource, std::string_view id) const;

 private:
  std::string instance_type_;
  int lnc_ = 2;
  int cores_per_device_ = 0;
  std::vector<std::vector<int>> connected_;
  std::vector<PluginDevice> devices_;  // the device resources' list
  std::vector<PluginDevice> cores_;    // neuroncore's list
};

}  // namespace trnsim::device_plugin
