#include "simulator/spec/chip_spec.h"

// Sources (see shared/reference/trainium-hw-isa-facts.md and tools-driver-facts.md):
//   [TRN2-CHIP]/[TRN3-CHIP]  AWS "Trainium2"/"Trainium3" architecture pages
//   [DRV-V3]                 aws-neuron-driver v3/address_map.h, neuron_dhal_v3.c (2.24.7.0)
//   [SYSFS]                  aws-neuron-driver sysfs attributes (tools-driver-facts §6.11)
//   [NLS]                    neuron-ls / neuron-monitor docs (tools-driver-facts §1, §3)

namespace trnsim::simulator {
namespace {

ChipSpec MakeTrainium2() {
  ChipSpec s;
  s.name = "Trainium2";
  s.device_arch = "NDv3";            // [SYSFS] info/architecture/arch_type
  s.core_arch = "NCv3";              // [SYSFS] neuron_core*/info/architecture/arch_type
  s.device_revision = "1";           // assumption: no public source gives the string
  s.neuroncore_version = "v3";       // [NLS] "v3" at LNC=1, "v3d" at LNC=2
  s.neuron_device_version = "v4";    // tools-driver-facts.md §3.3 (neuron-monitor, trn2)
  s.physical_cores = 8;              // [TRN2-CHIP] 8 x NeuronCore-v3; [DRV-V3] V3_NC_PER_DEVICE
  s.hbm_stacks = 4;                  // [TRN2-CHIP]; [DRV-V3] MAX_HBM_PER_DEVICE
  s.hbm_bytes_per_stack = 24 * kGiB; // [DRV-V3] V3_HBM_ACTIVE_SIZE = 0x600000000; 96 GiB/chip
  // [DRV-V3] HBM0 0x0, HBM1 0x4000000000, HBM2 0x800000000000, HBM3 0x804000000000.
  s.hbm_base_pa = {0x0ull, 0x4000000000ull, 0x800000000000ull, 0x804000000000ull};
  s.dma_engines_per_core = 16;       // [DRV-V3] engines 16n..16n+15 belong to NC n
  s.dma_queues_per_engine = 16;      // [DRV-V3] V3_DMA_QUEUE_PER_ENG
  s.neuronlink_ports = 4;            // [TRN2-CHIP] NeuronLink-v3, 4 links per chip
  // Per NeuronCore (hw-isa-facts §2, §4):
  s.partitions = 128;                // [NKI-ARCH-V2] [TILE] pmax 128
  s.sbuf_bytes_per_partition = 224 * 1024;  // [NKI-ARCH-TRN2] 28 MiB = 128 x 224 KiB
  s.psum_bytes_per_partition = 16 * 1024;   // [NKI-ARCH-TRN2] 2 MiB = 128 x 16 KiB
  s.psum_banks = 8;                  // [NKI-ARCH-V2] 8 banks x 512 fp32 (2 KiB) per partition
  s.engine_registers = 64;           // [ISA] register_alloc: 64 x 32-bit per engine, NC-v2..v4
  s.semaphores_per_core = 256;       // [DRV-V3] 256 semaphores per NC
  s.events_per_core = 256;           // [DRV-V3] 256 events per NC
  s.pe_max_contraction = 128;        // [ISA] nc_matmul K <= 128
  s.pe_max_stationary_free = 128;    // [ISA] stationary free <= 128; [TILE] gemm_stationary_fmax
  s.pe_max_moving_free_fp32 = 512;   // [ISA] moving free <= 512 on NC-v3 (one fp32 PSUM bank)
  s.pe_max_moving_free_bf16 = 0;     // [ISA] NC-v3 matmul dst is fp32 only
  s.dve_transpose_max = 32;          // [ISA] nc_transpose on DVE <= [32, 32]
  s.bn_stats_max_free = 512;         // [ISA] [TILE] bn_stats_fmax 512
  s.max8_max_free = 16384;           // [ISA] max8 / nc_find_index8: 8..16,384 elements
  s.local_gather_max_indices = 4096; // [ISA] local_gather <= 4096 indices per core
  s.cost = Trainium2CostSpec();      // sources per number in cost_specs.cc
  // Collectives (docs/collectives.md, docs/decisions.md "Collectives"):
  s.neuronlink_bytes_per_s_per_chip = 1'280'000'000'000;  // [TRN2-CHIP] 1.28 TB/s per chip
  // Derived: 1.28 TB/s over 4 ports x 2 directions = 160 GB/s per port per direction
  // (decision: the chip figure counts both directions of every port).
  s.neuronlink_bytes_per_s_per_direction = 160'000'000'000;
  s.neuronlink_hop_latency_ps = 1'500'000;  // [INTRA] ~1-2 us per intra-node hop; 1.5 chosen
  // Derived: HBM 2.9 TB/s [TRN2-CHIP] / 2 (each byte read and written once) = 1.45 TB/s.
  s.cc_onchip_bytes_per_s = s.cost.hbm_bytes_per_s_per_chip / 2;
  // Derived: one DMA semaphore-to-start per step, [DMA-BW] ~1300 ns (cost.dma_start_latency_ps).
  s.cc_onchip_step_latency_ps = s.cost.dma_start_latency_ps;
  // Collective algorithms (issue 18; docs/calibration.md §7, docs/collectives.md). [C-9] is
  // nccom-test's 16-rank fp32 all-reduce (tools/neuron-sys-tools/nccom-test.rst), [C-10] the
  // intra-node algorithm page (neuron-runtime/explore/intranode-collective-comm.rst), both in
  // shared/reference/trainium-measurements.md. The fits assume the C-9 group is 16 ranks on
  // chips 0-3 (one torus row) at LNC 2; calibration.md §7 derives every number.
  // [C-10] mesh below 1 MiB, RDH to 56 MiB, KangaRing above — for the page's 64-rank group
  // (16 chips x 4 ranks), so per rank 1 MiB / 64 and 56 MiB / 64 (decisions.md: the thresholds
  // are per-rank chunks; then C-9's 16-rank choices — 128 KiB mesh, 2 MiB rdh, 32 MiB
  // kangaring — follow too).
  s.cc_rdh_min_chunk_bytes = 16 * 1024;
  s.cc_ring_min_chunk_bytes = 896 * 1024;
  // [C-9] KangaRing's slope between 32 MiB and 512 MiB: 0.875 S / bw = 6,935.36 us for
  // 480 MiB (the ring's 7 steps per half over 2 channels, see calibration.md §7) -> 63.5 GB/s,
  // 40% of the link's 160 GB/s.
  s.cc_link_bytes_per_s_per_direction = 63'500'000'000;
  // [C-9] the 4 B mesh all-reduce, 299.91 us, less its 2 x (2 hops x 1.5 us + 1.3 us) steps.
  s.cc_fixed_ps = 291'300'000;
  // [C-9] mesh 128 KiB (574.15 us) against 4 B: 274.24 us for 2 x 15/16 x 128 KiB = 245,760 B.
  // Far below any link figure: the mechanism (over-subscribed routed writes, their reductions)
  // is not published, so this is a fitted rate.
  s.cc_mesh_bytes_per_s = 896'000'000;
  // [C-9] 32 MiB kangaring less fixed cost, 14 steps x 1.5 us and 0.875 x 32 MiB / 63.5 GB/s.
  // What it consists of is not published (assumption: setting up the ring channels' buffers
  // and semaphores); Ring is assumed to pay the same.
  s.cc_ring_setup_ps = 1'979'500'000;
  // [C-9] 2 MiB rdh (686.32 us) less fixed cost and its 6 steps (calibration.md §7).
  s.cc_rdh_setup_ps = 315'200'000;
  return s;
}

ChipSpec MakeTrainium3() {
  ChipSpec s = MakeTrainium2();      // Trainium3 = Trainium2 + the overrides below
  s.name = "Trainium3";
  s.device_arch = "NDv4";            // assumption: the v3 naming scheme carried forward
  s.core_arch = "NCv4";              // [TRN3-CHIP] NeuronCore-v4
  s.neuroncore_version = "v4";       // assumption: as above
  s.neuron_device_version = "v5";    // assumption: one past Trainium2's; not published
  s.hbm_bytes_per_stack = 36 * kGiB; // [TRN3-CHIP] 144 GiB over 4 stacks
  s.sbuf_bytes_per_partition = 256 * 1024;  // [NKI-ARCH-TRN3] 32 MiB (= 128 x 256 KiB, derived)
  s.pe_max_moving_free_fp32 = 4096;  // [ISA] NC-v4 moving free up to 4096 with fp32 dst
  s.pe_max_moving_free_bf16 = 8192;  // [ISA] [NKI-ARCH-TRN3] NC-v4 bf16 PSUM dst, up to 8192
  s.cost = Trainium3CostSpec();      // Trainium2 cost table + overrides (cost_specs.cc)
  // [TRN3-CHIP] NeuronLink-v4 2.56 TB/s per chip; CONFLICT: [TRN3-INST] 2,048 GiB/s/device and
  // PCIe Gen6 x8 port sums (256 + 320 + 128 GB/s); the chip page is chosen (decisions.md).
  s.neuronlink_bytes_per_s_per_chip = 2'560'000'000'000;
  s.neuronlink_bytes_per_s_per_direction = 320'000'000'000;  // derived: 2.56 TB/s / (4 x 2)
  // Derived as for Trainium2: HBM 4.9 TB/s [TRN3-CHIP] / 2; hop latency unchanged ([INTRA]).
  s.cc_onchip_bytes_per_s = s.cost.hbm_bytes_per_s_per_chip / 2;
  // Derived: Trainium2's fitted collective link bandwidth x NeuronLink-v4 / -v3 (2.56 / 1.28).
  // The fixed cost, setups, mesh rate and thresholds are runtime figures: assumption, unchanged.
  s.cc_link_bytes_per_s_per_direction = 127'000'000'000;
  return s;
}

}  // namespace

const ChipSpec& Trainium2Spec() {
  static const ChipSpec spec = MakeTrainium2();
  return spec;
}

const ChipSpec& Trainium3Spec() {
  static const ChipSpec spec = MakeTrainium3();
  return spec;
}

}  // namespace trnsim::simulator
