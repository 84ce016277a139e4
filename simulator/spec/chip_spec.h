// ChipSpec: one Trainium chip generation as data. Component code reads these numbers and never
// branches on a chip's name (DESIGN.md decision 5). Trainium3 is Trainium2 plus overrides.
// Every number carries its source in chip_specs.cc; "assumption" marks the ones no source gives.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "simulator/spec/cost_spec.h"

namespace trnsim::simulator {

inline constexpr uint64_t kGiB = 1ull << 30;
inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr int kMaxHbmStacksPerChip = 4;

struct ChipSpec {
  std::string name;             // marketing name, e.g. "Trainium2"
  std::string device_arch;      // sysfs info/architecture/arch_type of the device, "NDv3"
  std::string core_arch;        // sysfs arch_type of a NeuronCore, "NCv3"
  std::string device_revision;  // reported in nrt_instance_info_t.device_revision
  std::string neuroncore_version;  // neuron-ls/neuron-monitor name at LNC=1 ("v3")
  std::string neuron_device_version;  // neuron-monitor's neuron_device_version ("v4")

  int physical_cores = 0;       // NeuronCores per chip
  int hbm_stacks = 0;           // HBM stacks per chip; each serves physical_cores/hbm_stacks cores
  uint64_t hbm_bytes_per_stack = 0;
  // Device physical address of each HBM stack's first byte (per-chip address space).
  std::array<uint64_t, kMaxHbmStacksPerChip> hbm_base_pa{};

  int dma_engines_per_core = 0;
  int dma_queues_per_engine = 0;
  int neuronlink_ports = 0;

  // NeuronLink and the collective-communication (CC) data path (docs/collectives.md).
  uint64_t neuronlink_bytes_per_s_per_chip = 0;  // all ports, both directions together
  // One port, one direction: neuronlink_bytes_per_s_per_chip / (2 * neuronlink_ports).
  uint64_t neuronlink_bytes_per_s_per_direction = 0;
  uint64_t neuronlink_hop_latency_ps = 0;       // one chip-to-chip hop of a collective step
  // Ranks on one chip exchange through HBM with the CC cores' DMA rings: the chip's aggregate
  // copy bandwidth for that (every byte read once and written once) and one step's latency.
  uint64_t cc_onchip_bytes_per_s = 0;
  uint64_t cc_onchip_step_latency_ps = 0;
  // The runtime's collective algorithms (issue 18, docs/collectives.md "Algorithms"; fitted to
  // C-9 and C-10 of shared/reference/trainium-measurements.md, docs/calibration.md §7):
  uint64_t cc_fixed_ps = 0;  // every collective of G >= 2: launch, cross-rank handshake, completion
  // The chunk (the buffer / G: all_reduce and reduce_scatter input, all_gather output) picks
  // the algorithm: mesh below cc_rdh_min_chunk_bytes, recursive halving-doubling (RDH) below
  // cc_ring_min_chunk_bytes, a ring algorithm (KangaRing, or Ring where KangaRing cannot run)
  // from there on.
  uint64_t cc_rdh_min_chunk_bytes = 0;
  uint64_t cc_ring_min_chunk_bytes = 0;
  // The bandwidth one direction of one NeuronLink port gives collective traffic (the CC cores'
  // DMA rings), below the link's own figure neuronlink_bytes_per_s_per_direction.
  uint64_t cc_link_bytes_per_s_per_direction = 0;
  // Mesh: the rate at which one rank's share of the buffer goes through the routed writes and
  // their reductions (over-subscribed links, many destinations).
  uint64_t cc_mesh_bytes_per_s = 0;
  uint64_t cc_rdh_setup_ps = 0;   // once per RDH collective, on top of cc_fixed_ps
  uint64_t cc_ring_setup_ps = 0;  // once per KangaRing or Ring collective, on top of cc_fixed_ps

  // One NeuronCore's on-chip memories and sequencer resources (the ISA limits; isa/limits.h).
  int partitions = 0;                    // SBUF and PSUM partitions
  uint64_t sbuf_bytes_per_partition = 0;
  uint64_t psum_bytes_per_partition = 0;
  int psum_banks = 0;                    // PSUM banks per partition (accumulation groups)
  int engine_registers = 0;              // 32-bit registers per engine sequencer
  int semaphores_per_core = 0;
  int events_per_core = 0;
  int pe_max_contraction = 0;            // matmul K (partitions of stationary and moving)
  int pe_max_stationary_free = 0;        // matmul M
  int pe_max_moving_free_fp32 = 0;       // matmul N with an fp32 PSUM destination
  int pe_max_moving_free_bf16 = 0;       // matmul N with a bf16 PSUM destination; 0: illegal
  int dve_transpose_max = 0;             // DVE transpose: partitions and free size
  int bn_stats_max_free = 0;             // bn_stats free elements per partition
  int max8_max_free = 0;                 // max8 / nc_find_index8 free elements per partition
  int local_gather_max_indices = 0;      // local_gather indices per 16-partition group

  CostSpec cost;                         // cost-model parameters (cost_spec.h, cost_specs.cc)

  int CoresPerHbmStack() const { return physical_cores / hbm_stacks; }
  uint64_t HbmBytes() const { return hbm_bytes_per_stack * static_cast<uint64_t>(hbm_stacks); }
  // The HBM stack that is the default memory of chip-local physical core `core`.
  int HbmStackOfCore(int core) const { return core / CoresPerHbmStack(); }
};

// The chip generations trnsim knows.
const ChipSpec& Trainium2Spec();
const ChipSpec& Trainium3Spec();

}  // namespace trnsim::simulator
