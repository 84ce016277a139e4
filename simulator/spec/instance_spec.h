// InstanceSpec: an EC2 instance type as data — how many chips of which generation, how they
// are connected, and the codes libnrt reports for it (nrt_instance_info_t).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/status_or.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator {

enum class TopologyKind {
  kSingleChip,  // one chip, no NeuronLink peers
  kTorus2d,     // trn2: 4x4 2D torus with wrap-around inside the instance
  kSwitched,    // trn3: all-to-all through NeuronSwitch
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

  int PhysicalCores() const { return chip_count * chip->physical_cores; }
  uint64_t DeviceMemoryBytes() const { return chip->HbmBytes() * chip_count; }
};

// All instance types, in listing order.
std::span<const InstanceSpec> InstanceSpecs();
// The instance named `type_name`, or NRT_INVALID listing the known names.
StatusOr<const InstanceSpec*> FindInstanceSpec(std::string_view type_name);

}  // namespace trnsim::simulator
