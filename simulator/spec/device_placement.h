// DevicePlacement: where an instance's Neuron devices sit on the host — the facts neuron-ls
// prints beside each device (PCI address, the CPUs its proxy threads are pinned to, its NUMA
// node) — and which devices each one is linked to. Hardware data, like the rest of the spec
// tables; the choices behind each instance's values are in docs/decisions.md.
//
// Thread safety: the functions are pure; the returned data is immutable.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator {

struct DevicePlacement {
  std::string pci_bdf;       // short form "cc:00.0" (bus:device.function, domain 0000)
  std::string cpu_affinity;  // CPU list, e.g. "48-95,144-191"
  int numa_node = -1;        // -1: the host has one NUMA node (as neuron-ls prints it)
};

// One entry per device of `spec`, in device order (size == spec.chip_count).
std::span<const DevicePlacement> DevicePlacements(const InstanceSpec& spec);

// The devices `device` is linked to, in neuron-ls's order:
//  - kTorus2d: [north, west, south, east] on the torus (device = row * cols + col, with
//    wrap-around), as AWS's neuron-ls prints them (tools-driver-facts.md §1.3);
//  - kSwitched: every other device of the instance, ascending (all are one switch hop away);
//  - kSingleChip: none.
// `device` must be in [0, spec.chip_count).
std::vector<int> ConnectedDevices(const InstanceSpec& spec, int device);

}  // namespace trnsim::simulator
