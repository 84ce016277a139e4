#include "simulator/spec/instance_spec.h"

#include <string>
#include <vector>

// Sources: [TRN2-INST]/[TRN3-INST] AWS instance pages (trainium-hw-isa-facts.md §1.3),
// nrt.h instance family/size codes (nrt-api-facts.md §4.1), [3P-T23] third-party trn2.3xlarge
// listing. Family codes: TRN2=5, TRN2U=9, TRN3=14. Size codes: 48XL=7, 3XL=8.
// Device placements: tools-driver-facts.md §1.3, AWS's neuron-ls example for trn2n.48xlarge (the
// only 16-device listing AWS documents): PCI BDFs, CPU affinity and NUMA node per device. trnsim
// uses it for every 16-device instance (trn2.48xlarge, trn2u.48xlarge, trn3.48xlarge) — an
// assumption recorded in docs/decisions.md. trn2.3xlarge: AWS documents no listing; its values
// are trnsim's (docs/decisions.md).

namespace trnsim::simulator {
namespace {

constexpr uint32_t kFamilyTrn2 = 5;
constexpr uint32_t kFamilyTrn2u = 9;
constexpr uint32_t kFamilyTrn3 = 14;
constexpr uint32_t kSize48xl = 7;
constexpr uint32_t kSize3xl = 8;

// EFA (docs/cluster.md "EFA"): trn2.48xlarge/trn2u.48xlarge carry EFAv3 at 3,200 Gbps (16 x 200
// Gbps) [TRN2-INST], taken as one direction: 400 GB/s. One-way latency of a minimal RDMA write
// between two trn2.48xlarge: 15 us (trainium-measurements.md C-11). trn2.3xlarge: assumption,
// one chip's share of the 48xlarge (one 200 Gbps EFA device per chip): 25 GB/s. trn3.48xlarge:
// the Trn3 Gen1 UltraServer's 12,800 Gbps over its 4 servers [TRN3-INST]: 400 GB/s; latency
// assumed as trn2's.
constexpr uint64_t kEfaPer200Gbps = 25'000'000'000;
constexpr uint64_t kEfaLatencyPs = 15'000'000;  // C-11
// Trn2 UltraServer Z links: 256 GB/s per chip inter-instance against 1,024 GB/s per chip
// intra-instance [TRN2-INST]; a chip has 2 Z links (its ring of 4 nodes) against 4 torus
// links, so one Z link carries half a torus link's bandwidth. The CC rate is scaled from the
// fitted torus rate (ChipSpec::cc_link_bytes_per_s_per_direction, 63.5 GB/s) by that half:
// 31.75 GB/s — derived, not measured (calibration.md §7 fits only intra-instance links).
constexpr int kUltraServerNodes = 4;  // [TRN2-INST] 4 x trn2u.48xlarge

constexpr const char* kNuma0Cpus = "0-47,96-143";
constexpr const char* kNuma1Cpus = "48-95,144-191";

// The documented 16-device listing.
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

// A one-device host has one NUMA node: neuron-ls prints -1 and the whole CPU range (AWS's
// one-device example shows "0-7" and -1 on an 8-vCPU host).
std::vector<DevicePlacement> OneDevice(int vcpus) {
  return {{"00:1e.0", "0-" + std::to_string(vcpus - 1), -1}};
}

std::vector<InstanceSpec> MakeSpecs() {
  std::vector<InstanceSpec> specs;

  InstanceSpec trn2_3xl;
  trn2_3xl.type_name = "trn2.3xlarge";
  trn2_3xl.description = "1 Trainium2 chip (8 NeuronCore-v3, 96 GiB HBM)";
  trn2_3xl.chip = &Trainium2Spec();
  trn2_3xl.chip_count = 1;                        // [3P-T23]
  trn2_3xl.topology = TopologyKind::kSingleChip;
  trn2_3xl.nrt_family = kFamilyTrn2;
  trn2_3xl.nrt_size = kSize3xl;
  trn2_3xl.vcpus = 12;                            // assumption: AWS lists 12 vCPU, not in facts
  trn2_3xl.host_memory_bytes = 128 * kGiB;        // assumption: as above
  trn2_3xl.devices = OneDevice(trn2_3xl.vcpus);
  trn2_3xl.efa_bytes_per_s = kEfaPer200Gbps;  // assumption (above)
  trn2_3xl.efa_latency_ps = kEfaLatencyPs;
  specs.push_back(trn2_3xl);

  InstanceSpec trn2_48xl;
  trn2_48xl.type_name = "trn2.48xlarge";
  trn2_48xl.description = "16 Trainium2 chips in a 4x4 NeuronLink torus (128 NeuronCore-v3)";
  trn2_48xl.chip = &Trainium2Spec();
  trn2_48xl.chip_count = 16;                      // [TRN2-INST]
  trn2_48xl.topology = TopologyKind::kTorus2d;    // [TRN2-INST] 4x4 2D torus
  trn2_48xl.torus_rows = 4;
  trn2_48xl.torus_cols = 4;
  trn2_48xl.nrt_family = kFamilyTrn2;
  trn2_48xl.nrt_size = kSize48xl;
  trn2_48xl.vcpus = 192;                          // [TRN2-INST]
  trn2_48xl.host_memory_bytes = 2048 * kGiB;      // [TRN2-INST]
  trn2_48xl.devices = SixteenDevices();
  trn2_48xl.efa_bytes_per_s = 16 * kEfaPer200Gbps;  // [TRN2-INST] 3,200 Gbps
  trn2_48xl.efa_latency_ps = kEfaLatencyPs;
  specs.push_back(trn2_48xl);

  InstanceSpec trn2u = trn2_48xl;
  trn2u.type_name = "trn2u.48xlarge";
  trn2u.description = "UltraServer node: 16 Trainium2 chips, 4x4 torus (128 NeuronCore-v3)";
  trn2u.nrt_family = kFamilyTrn2u;
  trn2u.ultraserver_nodes = kUltraServerNodes;
  trn2u.ultraserver_link_bytes_per_s_per_direction =
      trn2u.chip->cc_link_bytes_per_s_per_direction / 2;  // derived (above)
  specs.push_back(trn2u);

  InstanceSpec trn3;
  trn3.type_name = "trn3.48xlarge";  // trnsim's name: AWS publishes no instance name
  trn3.description = "Trn3 Gen1 UltraServer server: 16 Trainium3 chips, switched fabric";
  trn3.chip = &Trainium3Spec();
  trn3.chip_count = 16;                           // [TRN3-INST] Gen1: 16 chips per server
  trn3.topology = TopologyKind::kSwitched;        // [TRN3-INST] NeuronSwitch-v1 all-to-all
  trn3.nrt_family = kFamilyTrn3;
  trn3.nrt_size = kSize48xl;
  trn3.vcpus = 192;                               // [TRN3-INST] 768 vCPU / 4 servers
  trn3.host_memory_bytes = 2048 * kGiB;           // [TRN3-INST] 8,192 GiB / 4 servers
  trn3.devices = SixteenDevices();
  trn3.efa_bytes_per_s = 16 * kEfaPer200Gbps;  // [TRN3-INST] 12,800 Gbps / 4 servers
  trn3.efa_latency_ps = kEfaLatencyPs;         // assumption: as trn2's (C-11)
  specs.push_back(trn3);

  return specs;
}

}  // namespace

std::span<const InstanceSpec> InstanceSpecs() {
  static const std::vector<InstanceSpec> specs = MakeSpecs();
  return specs;
}

StatusOr<const InstanceSpec*> FindInstanceSpec(std::string_view type_name) {
  std::string known;
  for (const InstanceSpec& spec : InstanceSpecs()) {
    if (spec.type_name == type_name) return &spec;
    known += (known.empty() ? "" : ", ") + spec.type_name;
  }
  return InvalidError("unknown instance type '" + std::string(type_name) + "' (known: " + known +
                      ")");
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
