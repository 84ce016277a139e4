#include <cstdlib>
#include <map>

#include "simulator/spec/device_placement.h"

// Sources: tools-driver-facts.md §1.3, AWS's neuron-ls example for trn2n.48xlarge (the only
// 16-device listing AWS documents): PCI BDFs, CPU affinity and NUMA node per device. trnsim uses
// it for every 16-device instance (trn2.48xlarge, trn2u.48xlarge, trn3.48xlarge) — an
// assumption recorded in docs/decisions.md. trn2.3xlarge: AWS documents no listing; its values
// are trnsim's (docs/decisions.md).

namespace trnsim::simulator {
namespace {

constexpr const char* kNuma0Cpus = "0-47,96-143";
constexpr const char* kNuma1Cpus = "48-95,144-191";

std::vector<DevicePlacement> SixteenDevices() {
  const char* bdfs[16] = {"cc:00.0", "b5:00.0", "b6:00.0", "cb:00.0", "6f:00.0", "58:00.0",
                          "59:00.0", "6e:00.0", "9b:00.0", "84:00.0", "85:00.0", "9a:00.0",
                          "f8:00.0", "e1:00.0", "e2:00.0", "f7:00.0"};
  std::vector<DevicePlacement> devices;
  for (int d = 0; d < 16; ++d) {
    // Devices 4..11 hang off NUMA node 0, 0..3 and 12..15 off node 1 (the documented listing).
    const bool node0 = d >= 4 && d < 12;
    devices.push_back({bdfs[d], node0 ? kNuma0Cpus : kNuma1Cpus, node0 ? 0 : 1});
  }
  return devices;
}

std::vector<DevicePlacement> OneDevice(const InstanceSpec& spec) {
  // One NUMA node: neuron-ls prints -1 and the whole CPU range (AWS's one-device example shows
  // "0-7" and -1 on an 8-vCPU host).
  return {{"00:1e.0", "0-" + std::to_string(spec.vcpus - 1), -1}};
}

}  // namespace

std::span<const DevicePlacement> DevicePlacements(const InstanceSpec& spec) {
  static const std::map<const InstanceSpec*, std::vector<DevicePlacement>> placements = [] {
    std::map<const InstanceSpec*, std::vector<DevicePlacement>> all;
    for (const InstanceSpec& s : InstanceSpecs()) {
      if (s.chip_count == 16) {
        all[&s] = SixteenDevices();
      } else if (s.chip_count == 1) {
        all[&s] = OneDevice(s);
      } else {
        std::abort();  // a new instance size needs its placement data here
      }
    }
    return all;
  }();
  auto found = placements.find(&spec);
  if (found == placements.end()) std::abort();  // not one of InstanceSpecs()
  return found->second;
}

std::vector<int> ConnectedDevices(const InstanceSpec& spec, int device) {
  switch (spec.topology) {
    case TopologyKind::kSingleChip:
      return {};
    case TopologyKind::kSwitched: {
      std::vector<int> others;
      for (int d = 0; d < spec.chip_count; ++d) {
        if (d != device) others.push_back(d);
      }
      return others;
    }
    case TopologyKind::kTorus2d: {
      const int rows = spec.torus_rows, cols = spec.torus_cols;
      const int row = device / cols, col = device % cols;
      return {((row + rows - 1) % rows) * cols + col, row * cols + (col + cols - 1) % cols,
              ((row + 1) % rows) * cols + col, row * cols + (col + 1) % cols};
    }
  }
  return {};
}

}  // namespace trnsim::simulator
