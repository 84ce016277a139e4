// DMA transfer cost: the time from a transfer's trigger to its last byte landing, from the DMA
// parameters of the CostSpec. The engine-side cost of the instruction that issues the transfer
// (dma_copy / dma_trigger) is EstimateCost's; this is the transfer on the DMA engines.
//
// Model (docs/calibration.md §DMA):
//   per-engine payload  B_e = ceil(bytes / engines),  chunks_e = ceil(chunks / engines),
//                       descriptors_e = ceil(descriptors / engines)
//   engine time = (B_e + chunks_e * chunk_overhead_bytes) / engine_bandwidth
//                 + descriptors_e * descriptor_overhead
//   rate cap    = bytes / hbm_share  when the transfer touches HBM (the core's share of the
//                 chip's HBM bandwidth; HBM-to-HBM moves the bytes twice)
//   total       = start_latency + max(engine time, rate cap)
// where chunks = ceil(bytes / chunk_bytes) and chunk_bytes is the contiguous run per access
// (a per-partition row for SBUF; §3.4's "per-partition contiguous payload").
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>

#include "simulator/sched/sim_time.h"
#include "simulator/spec/cost_spec.h"

namespace trnsim::simulator::cost {

struct DmaTransfer {
  uint64_t bytes = 0;        // payload
  uint64_t chunk_bytes = 0;  // contiguous bytes per chunk; 0 means one chunk of `bytes`
  uint64_t descriptors = 1;  // descriptors (>= 1); spread round-robin over the engines
  int engines = 0;           // DMA engines used; 0 or more than the core has: all of them
  int hbm_sides = 0;         // 0 on-chip only, 1 HBM<->SBUF, 2 HBM->HBM
};

// Trigger-to-completion time of `t`; 0 bytes still cost the start latency and descriptors.
DurationPs DmaCost(const DmaTransfer& t, const CostSpec& spec);

// Efficiency of one engine moving chunks of `chunk_bytes`: chunk / (chunk + overhead) in (0, 1].
double DmaChunkEfficiency(uint64_t chunk_bytes, const CostSpec& spec);

}  // namespace trnsim::simulator::cost
