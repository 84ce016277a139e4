// CostSpec: every parameter of the per-instruction and DMA cost model (simulator/cost/) for one
// chip generation, as data (DESIGN.md decision 5). The formulas that read these numbers live in
// simulator/cost/cost_model.cc and are written out in docs/calibration.md. Each number's source
// (a tag of shared/reference/trainium-hw-isa-facts.md) or "assumption" is in cost_specs.cc.
//
// Units are in the names: `_hz`, `_cycles` (of the named engine's clock), `_ps`, `_bytes`,
// `_bytes_per_s`. Widths are elements per cycle across all 128 lanes; the NC-v2-era formulas of
// [ISA-OLD] count one element per partition per cycle, i.e. a 128-element/cycle baseline.
//
// Thread safety: a plain value; the tables are built once and never written afterwards.
#pragma once

#include <cstdint>

namespace trnsim::simulator {

struct CostSpec {
  // ---- engine clocks --------------------------------------------------------------------
  uint64_t pe_clock_hz = 0;
  uint64_t act_clock_hz = 0;
  uint64_t dve_clock_hz = 0;
  uint64_t pool_clock_hz = 0;
  uint64_t sp_clock_hz = 0;

  // ---- fixed overheads, in the executing engine's cycles -------------------------------------
  int min_ii_cycles = 0;                  // MIN_II: floor of every ACT/DVE/POOL datapath op
  int dve_dependent_overhead_cycles = 0;  // extra for back-to-back tiny or dependent DVE ops
  int tensor_access_overhead_cycles = 0;  // SBUF/PSUM request latency of a datapath op
  int act_read_accumulator_cycles = 0;    // read_accumulator (ActReadAccumulator)
  int mm_init_latency_cycles = 0;         // MM_INIT_LATENCY: minimum MultiplyMoving II
  int gpsimd_start_cycles = 0;            // GPSIMD_START: start-up of a GpSimd program
  int min_ii_dynamic_cycles = 0;          // MIN_II_DYNAMIC: register-addressed (dynamic) copies
  int control_cycles = 0;                 // sequencer-only instruction (reg ops, branch, nop)
  int sync_cycles = 0;                    // semaphore/event instruction, excluding the wait

  // ---- datapath widths, elements per cycle over all lanes ----------------------------------
  int lanes = 0;                      // the formula baseline: one element per lane per cycle
  int dve_elems_per_cycle_16bit = 0;  // bf16 / fp16
  int dve_elems_per_cycle_fp8 = 0;
  int dve_elems_per_cycle_other = 0;
  int act_elems_per_cycle_16bit = 0;  // bf16 / fp16 (tensor_copy / tensor_scalar on ACT)
  int act_elems_per_cycle_fp8 = 0;
  int act_elems_per_cycle_other = 0;
  int pool_elems_per_cycle = 0;

  // ---- DVE perf modes (speedup factors over the baseline formula; 1 disables) ---------------
  int dve_perf_copy_contiguous_factor = 0;  // tensor_copy/tensor_scalar, all SBUF, unit stride
  int dve_perf_copy_other_factor = 0;       // same ops, PSUM on a side or non-contiguous
  int dve_perf_tensor_tensor_factor = 0;    // tensor_tensor, both inputs SBUF, all 16-bit float

  // ---- strided access ------------------------------------------------------------------------
  int large_stride_threshold_bytes = 0;  // innermost stride above this ...
  int large_stride_slowdown = 0;         // ... multiplies the streaming cycles by this (1: off)

  // ---- TensorE ---------------------------------------------------------------------------
  int pe_rows = 0;                         // systolic array rows (contraction)
  int pe_columns = 0;                      // systolic array columns (stationary free)
  int pe_fp32_slowdown = 0;                // fp32 operands run this many times slower
  int pe_fp32r_slowdown = 0;               // fp32r ("round" mode) operands: this many times slower
  int pe_fp32_transpose_speedup = 0;       // transpose mode divides the fp32 slowdown by this
  int pe_fp32_onezero_speedup = 0;         // onezero operand divides the fp32 slowdown by this
  int pe_double_row_factor = 0;            // fp8 double_row: moving/stationary rows per pass
  int pe_fast_load_stationary_factor = 0;  // LoadStationary this much faster than MM

  // ---- TensorE dynamics (issue 18 mechanism 3; simulator/core/pe_pipeline.h, pe_throttle.h) --
  int pe_fp32_passes = 0;   // an fp32 matmul / weight load issues as this many instructions
  int pe_fill_cycles = 0;   // a pass starting on an idle array waits this long before streaming
  int pe_drain_cycles = 0;  // a pass's results reach PSUM this long after its stream ends
  // The dI/dt current limiter: after a quiet period the array streams at the start limit,
  // rising to full over the ramp in equal steps; it engages again when the array's utilisation
  // over a trailing window falls below the engage threshold. Start >= 1000 or ramp 0: off.
  int pe_didt_start_limit_permille = 0;
  uint64_t pe_didt_ramp_ps = 0;
  int pe_didt_ramp_steps = 0;
  uint64_t pe_didt_window_ps = 0;
  int pe_didt_engage_permille = 0;

  // ---- DMA engines (mechanism: DMA engines as engines, docs/calibration.md §3) ----------
  int dma_engines_per_core = 0;
  uint64_t dma_engine_bytes_per_s = 0;           // one engine's wire rate (SBUF reads, writes)
  uint64_t dma_engine_hbm_read_bytes_per_s = 0;  // one engine's rate on a payload read from HBM
  uint64_t dma_element_overhead_ps = 0;          // per descriptor element (contiguous run)
  uint64_t dma_semaphore_bytes = 0;              // the completion write every engine makes
  uint64_t dma_start_latency_ps = 0;     // trigger to the landing of a payload-less transfer
  uint64_t dma_engine_dispatch_ps = 0;   // engine k starts k x this after engine 0
  uint64_t dma_static_issue_ps = 0;      // issuing engine's cost: pre-built descriptors
  uint64_t dma_hwdge_issue_ps = 0;       // issuing engine's cost: one hwdge DMA instruction
  uint64_t dma_swdge_descriptor_ps = 0;  // GpSimd's cost per engine's descriptors (swdge)

  // ---- fixed costs (issue 18, mechanism 2; docs/calibration.md §1 "Fixed costs") -----------
  // ScalarE pipeline fill and drain of every ACT datapath instruction, in ACT cycles: its
  // results land this long after its initiation interval (replaces tensor_access_overhead on
  // ACT) and its profile span covers it; the next ACT instruction still issues after the II.
  int act_fixed_cycles = 0;
  uint64_t act_table_load_ps = 0;  // ScalarE loads one activation table set (before the
                                   // first activation of a set that is not loaded)
  // Per-execution cost outside the device time: the runtime's submission of an execution
  // (queue and descriptor-ring setup, doorbell) and its completion notification, as a caller
  // timing nrt_execute sees them. Not part of the simulated duration (C-5 is device time).
  uint64_t execution_overhead_ps = 0;

  // ---- HBM -------------------------------------------------------------------------------
  uint64_t hbm_bytes_per_s_per_chip = 0;
  int cores_sharing_hbm_bandwidth = 0;  // physical cores the chip's HBM bandwidth is split over

  uint64_t HbmBytesPerSPerCore() const {
    return hbm_bytes_per_s_per_chip / static_cast<uint64_t>(cores_sharing_hbm_bandwidth);
  }
  // Dense 16-bit PE peak in FLOP/s: rows x columns MACs x 2 FLOP x clock.
  double PePeakBf16Flops() const {
    return 2.0 * pe_rows * pe_columns * static_cast<double>(pe_clock_hz);
  }
};

// The cost tables of the chip generations trnsim knows (also reachable as ChipSpec::cost).
CostSpec Trainium2CostSpec();
CostSpec Trainium3CostSpec();

}  // namespace trnsim::simulator
