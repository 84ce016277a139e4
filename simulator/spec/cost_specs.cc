#include "simulator/spec/cost_spec.h"

// Sources: tags of shared/reference/trainium-hw-isa-facts.md (§7 there lists the documents):
//   [NKI-ARCH-V2] [NKI-ARCH-TRN2] [NKI-ARCH-TRN3]  NKI architecture guides (Trn1, Trn2, Trn3)
//   [ISA-OLD]  "Estimated instruction cost" docstrings of nki.isa (NC-v2 era, removed late 2025)
//   [ISA]      current nki.isa docstrings;  [PERF] NKI perf guide;  [DMA-INTRO] [DMA-BW] DMA guides
//   [DGE] DGE deep dive;  [CCOVL] compute/comm overlap;  [TRN2-CHIP] [TRN3-CHIP] chip pages
//   [DRV-TIMING] tools-driver-facts.md §"timing note": "one full descriptor ~2 usec (64K at
//                32G/sec) on V3"
// docs/calibration.md carries the same table with the conflicts spelled out.

namespace trnsim::simulator {

CostSpec Trainium2CostSpec() {
  CostSpec c;
  // Clocks: facts §2.1.
  c.pe_clock_hz = 2'400'000'000;    // [NKI-ARCH-TRN2] TensorE @ 2.4 GHz
  c.act_clock_hz = 1'200'000'000;   // [NKI-ARCH-TRN2] ScalarE @ 1.2 GHz
  c.dve_clock_hz = 960'000'000;     // [NKI-ARCH-TRN2] VectorE @ 0.96 GHz
  c.pool_clock_hz = 1'200'000'000;  // [NKI-ARCH-TRN2] GpSimdE @ 1.2 GHz
  c.sp_clock_hz = 1'200'000'000;    // assumption: SyncE clock NOT FOUND; same as ACT/POOL
  // Fixed overheads: facts §3.1 (all measured on NC-v2; no NC-v3/v4 values are published).
  c.min_ii_cycles = 64;                   // [ISA-OLD] MIN_II ~64 engine cycles
  c.dve_dependent_overhead_cycles = 100;  // [NKI-ARCH-V2] ~100 cycles static overhead
  c.tensor_access_overhead_cycles = 60;   // [NKI-ARCH-V2] ~60 cycles SBUF/PSUM access
  c.act_read_accumulator_cycles = 64;     // [NKI-ARCH-V2] ActReadAccumulator ~64 cycles
  c.mm_init_latency_cycles = 64;          // [NKI-ARCH-V2] [PERF] MM_INIT_LATENCY 64
  c.gpsimd_start_cycles = 150;            // [ISA-OLD] GPSIMD_START ~150
  c.min_ii_dynamic_cycles = 600;          // [ISA-OLD] MIN_II_DYNAMIC ~600
  c.control_cycles = 4;  // assumption: sequencer-only ops ("a few cycles", docs/isa.md §8)
  c.sync_cycles = 4;     // assumption: as control; the wait itself is modelled by the chip
  // Widths (elements/cycle over 128 lanes): facts §2.1.
  c.lanes = 128;                      // [NKI-ARCH-V2] 128 lanes; [ISA-OLD] formulas count N
  c.dve_elems_per_cycle_16bit = 512;  // [NKI-ARCH-TRN2] VectorE 512 BF16/FP16
  c.dve_elems_per_cycle_fp8 = 256;    // [NKI-ARCH-TRN2] 256 "other dtypes" (fp8 not listed)
  c.dve_elems_per_cycle_other = 256;  // [NKI-ARCH-TRN2] 256 other dtypes
  c.act_elems_per_cycle_16bit = 128;  // [NKI-ARCH-TRN2] ScalarE 128 in/out
  c.act_elems_per_cycle_fp8 = 128;    // [NKI-ARCH-TRN2]
  c.act_elems_per_cycle_other = 128;  // [NKI-ARCH-TRN2]
  c.pool_elems_per_cycle = 128;       // [NKI-ARCH-V2] 8 x 16 fp32 lanes (Trn2 cell blank)
  // DVE perf modes: facts §2.5.
  c.dve_perf_copy_contiguous_factor = 4;  // [NKI-ARCH-TRN2] 4x copy/tensor_scalar SBUF bf16
  c.dve_perf_copy_other_factor = 2;       // [NKI-ARCH-TRN2] 2x non-contiguous or PSUM
  c.dve_perf_tensor_tensor_factor = 2;    // [NKI-ARCH-TRN2] 2x tensor_tensor SBUF all bf16
  // Strides: facts §3.3 "other rules" (NC-v2). Applied on v3/v4 too: assumption, no newer data.
  c.large_stride_threshold_bytes = 16;  // [NKI-ARCH-V2] innermost stride > 16 B ...
  c.large_stride_slowdown = 2;          // [NKI-ARCH-V2] ... halves bandwidth
  // TensorE: facts §2.4, §3.2.
  c.pe_rows = 128;                       // [NKI-ARCH-V2] 128 x 128 PEs
  c.pe_columns = 128;                    // [NKI-ARCH-V2]
  c.pe_fp32_slowdown = 4;                // [ISA-OLD] [NKI-ARCH-V2] fp32 ~4x bf16
  c.pe_fp32r_slowdown = 1;               // assumption: isa/dtype.h "fp32 at reduced cost";
                                         // no published factor, modelled at bf16 rate
  c.pe_fp32_transpose_speedup = 2;       // [NKI-ARCH-TRN2] transpose mode: 2x faster fp32
  c.pe_fp32_onezero_speedup = 2;         // [ISA] onezero fp32 operand: up to 2x faster
  c.pe_double_row_factor = 2;            // [NKI-ARCH-TRN2] double FP8: K=256 at bf16 K=128 time
  c.pe_fast_load_stationary_factor = 4;  // [NKI-ARCH-V2] [PERF] fast LS up to 4x faster
  // TensorE dynamics (issue 18 mechanism 3, docs/calibration.md §1 "TensorE dynamics").
  // C-6 = trainium-measurements.md C-6, nki/guides/tutorials/kernel-optimization.rst and its
  // profile images nki/img/how-to/v{2,3}-{pe,zoom}.png; C-8 = tools/neuron-explorer/glossary.rst,
  // overview-summary-page.rst ("Understanding throttling"), troubleshooting.rst.
  c.pe_fp32_passes = 2;     // C-6: 65,536 matmul instructions for 32,768 fp32 nc_matmul calls
  c.pe_fill_cycles = 92;    // C-6: fitted to v2's TensorE active time, 34.82 ms (v2's 32,768
                            // matmuls each find the array idle; 0 gives 33.57 ms)
  c.pe_drain_cycles = 420;  // C-6: v3-zoom.png, a back-to-back fp32 pass shows ~602 ns for a
                            // 427 ns (1024-cycle) stream: ~175 ns = 420 cycles of drain
  c.pe_didt_start_limit_permille = 500;  // C-8: "starts at roughly 50% utilization"
  c.pe_didt_ramp_ps = 3'000'000;         // C-8: "ramps to full over about the first ~3 us"
  c.pe_didt_ramp_steps = 8;              // assumption: the limit (a ratio K/N) rises in steps
  c.pe_didt_window_ps = 3'000'000;       // C-8: "below 50% over any ~3 microsecond window"
  c.pe_didt_engage_permille = 500;       // C-8: "... below 50% ..."
  // DMA engines as engines (docs/calibration.md §3; measurements C-1..C-4 of
  // shared/reference/trainium-measurements.md). The data engine of C-1 (one dma_copy of
  // A[4,4096] bf16 HBM->SBUF: 4 rows of 8 KiB on engine 0, then its 4-byte semaphore) is busy
  // 1,416 ns: 4 x (8192 B / R + o) + (4 B / W + o) = 1,416 ns with o below gives R.
  c.dma_engines_per_core = 16;                // [DMA-INTRO] 16 DMA engines per NC
  c.dma_engine_bytes_per_s = 27'200'000'000;  // [DMA-INTRO] 27.2 GB/s theoretical per engine;
                                              // C-2's store (SBUF->HBM, 32 KiB) ~1.2 us fits
  c.dma_engine_hbm_read_bytes_per_s = 23'340'000'000;  // C-1 fit (above): 23.34 GB/s; the
                                                       // [DMA-BW] table's "23 B/ns per engine"
  c.dma_element_overhead_ps = 2'353;  // assumption: one 64-byte burst slot per element
                                      // at the wire rate (64 B / 27.2 GB/s)
  c.dma_semaphore_bytes = 4;          // [DMA-INTRO] "a small 4B semaphore update"
  c.dma_engine_dispatch_ps = 16'000;  // C-1 profile image: the 15 semaphore-only
                                      // engines start ~16 ns apart (~240 ns in all)
  // C-4: ~1,300 ns per transfer "descriptor setup, synchronization, semaphore-to-start": the
  // trigger to the landing of a transfer with no payload (its last engine's semaphore). Engine
  // 0 starts start - 15 x dispatch - one semaphore element (2,501 ps) = 1,057,499 ps after the
  // trigger (dma_fabric.cc).
  c.dma_start_latency_ps = 1'300'000;  // [DMA-BW] ~1300 ns
  c.dma_static_issue_ps = 50'000;      // C-1 profile image: the Sync trigger ~50 ns (read)
  c.dma_hwdge_issue_ps = 600'000;      // C-3 [NKI-ARCH-TRN2] [DGE] ~600 ns per hwdge DMA
  // C-6 v2 fit: GpSimd writes one engine's descriptors per interval, after GPSIMD_START. v2
  // issues two software-DGE loads per fp32 matmul from GpSimd and is bound by them: 39.89 ms /
  // 32,768 matmuls = 1,217 ns = 2 x (125 ns + 16 x d) gives d = 30.2 ns.
  c.dma_swdge_descriptor_ps = 30'000;
  // Fixed costs (issue 18, mechanism 2). [C-2] [C-5]: trainium-measurements.md.
  c.act_fixed_cycles = 356;              // [C-2] exp [4,4096] bf16 spans 3.71 us = (4096 + 356)
                                         // cycles at 1.2 GHz (nki/img/overviews/nki-dma-intro-3)
  c.act_table_load_ps = 1'330'000;       // [C-2] the 1.33 us table-load segment, same image
  c.execution_overhead_ps = 50'000'000;  // [C-7] intercept of the scoreboard's time-vs-FLOP
                                         // line over its 10 lhsT x rhs sizes (50.3 us)
  // HBM: facts §1.1. CONFLICT: 2.9 TB/s [TRN2-CHIP] vs 3 TB/s [NKI-ARCH-TRN2]; chip page chosen.
  c.hbm_bytes_per_s_per_chip = 2'900'000'000'000;
  c.cores_sharing_hbm_bandwidth = 8;  // [TRN2-CHIP] 8 NeuronCores share 4 stacks
  return c;
}

CostSpec Trainium3CostSpec() {
  CostSpec c = Trainium2CostSpec();   // Trainium3 = Trainium2 + the overrides below
  c.dve_clock_hz = 1'200'000'000;     // [NKI-ARCH-TRN3] VectorE @ 1.2 GHz
  c.dve_elems_per_cycle_fp8 = 512;    // [NKI-ARCH-TRN3] 512 BF16/FP16/FP8
  c.act_elems_per_cycle_16bit = 256;  // [NKI-ARCH-TRN3] ScalarE 256 BF16/FP16/FP8
  c.act_elems_per_cycle_fp8 = 256;    // [NKI-ARCH-TRN3]
  // DMA engines (docs/calibration.md §3): the wire rate is published; the HBM-read rate is
  // trn2's fitted rate scaled by the [DMA-BW] table (33 B/ns trn3 / 23 B/ns trn2).
  c.dma_engine_bytes_per_s = 38'400'000'000;           // [DMA-INTRO] 38.4 GB/s per engine
  c.dma_engine_hbm_read_bytes_per_s = 33'490'000'000;  // 23.34 GB/s x 33 / 23
  c.dma_element_overhead_ps = 1'667;                   // 64 B at 38.4 GB/s (as trn2)
  // CONFLICT: 4.9 TB/s [TRN3-CHIP] vs 4.7 TB/s [NKI-ARCH-TRN3]; chip page chosen.
  c.hbm_bytes_per_s_per_chip = 4'900'000'000'000;
  return c;
}

}  // namespace trnsim::simulator
