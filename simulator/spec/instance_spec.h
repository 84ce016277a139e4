// InstanceSpec: an EC2 instance type as data — how many chips of which generation, how they
// are connected, where each sits on the host (what neuron-ls prints beside it), and the codes
// libnrt reports for it (nrt_instance_info_t). The choices behind each instance's values are in
// docs/decisions.md.
//
// Thread safety: the functions are pure; the returned data is immutable.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator {

enum class TopologyKind {
  kSingleChip,  // one chip, no NeuronLink peers
  kTorus2d,     // trn2: 4x4 2D torus with wrap-around inside the instance
  kSwitched,    // trn3: all-to-all through NeuronSwitch
};

// Where one Neuron device sits on the host.
struct DevicePlacement {
  std::string pci_bdf;       // short form "cc:00.0" (bus:device.function, domain 0000)
  std::string cpu_affinity;  // CPU list, e.g. "48-95,144-191"
  int numa_node = -1;        // -1: the host has one NUMA node (as neuron-ls prints it)
};

struct InstanceSpec {
  std::string type_name;       // "trn2.48xlarge"
  std::string description;     // one line for listings
  const ChipSpec* chip = nullptr;
  int chip_count = 0;
  TopologyKind topology = TopologyKind::kSingleChip;
  int torus_rows = 0;          // kTorus2d only
  int torus_cols = 0;
  uint32_t nrt_family = 0;     // NRT_INSTANCE_* code
  uint32_t nrt_size = 0;       // NRT_INSTANCE_SIZE_* code
  int default_lnc = 2;         // NEURON_LOGICAL_NC_CONFIG when unset
  int vcpus = 0;
  uint64_t host_memory_bytes = 0;
  std::vector<DevicePlacement> devices;  // one per chip, in device order
  // Between instances (docs/cluster.md): what a multi-instance job's collectives cross.
  // EFA: the instance's network bandwidth, one direction, all its EFA devices together, and the
  // one-way latency of an RDMA write from one instance's HBM to another's.
  uint64_t efa_bytes_per_s = 0;
  uint64_t efa_latency_ps = 0;
  // UltraServer nodes (trn2u): up to ultraserver_nodes instances whose chips at the same torus
  // coordinates form a ring over Z links (a 3D torus), each link moving this much per direction
  // as the CC DMA rings use it. 0: not an UltraServer node.
  int ultraserver_nodes = 0;
  uint64_t ultraserver_link_bytes_per_s_per_direction = 0;

  int PhysicalCores() const { return chip_count * chip->physical_cores; }
  uint64_t DeviceMemoryBytes() const { return chip->HbmBytes() * chip_count; }
};

// All instance types, in listing order.
std::span<const InstanceSpec> InstanceSpecs();
// The instance named `type_name`, or NRT_INVALID listing the known names.
StatusOr<const InstanceSpec*> FindInstanceSpec(std::string_view type_name);

// The devices `device` is linked to, in neuron-ls's order:
//  - kTorus2d: [north, west, south, east] on the torus (device = row * cols + col, with
//    wrap-around), as AWS's neuron-ls prints them (tools-driver-facts.md §1.3);
//  - kSwitched: every other device of the instance, ascending (all are one switch hop away);
//  - kSingleChip: none.
// `device` must be in [0, spec.chip_count).
std::vector<int> ConnectedDevices(const InstanceSpec& spec, int device);

}  // namespace trnsim::simulator
