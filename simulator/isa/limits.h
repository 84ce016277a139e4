// IsaLimits: the per-core numbers instruction validation checks against, derived from the chip
// spec (ChipSpec fields carry the sources). Plain value; build one per chip at load.
#pragma once

#include <cstdint>

#include "simulator/spec/chip_spec.h"

namespace trnsim::isa {

struct IsaLimits {
  int partitions = 128;  // SBUF/PSUM partitions
  uint32_t sbuf_bytes_per_partition = 0;
  uint32_t psum_bytes_per_partition = 0;
  uint32_t psum_banks = 0;
  uint32_t psum_bank_bytes = 0;            // psum_bytes_per_partition / psum_banks
  int registers = 64;                      // 32-bit registers per engine sequencer
  int semaphores = 256;                    // per core
  int events = 256;                        // per core
  int dma_queues = 16;                     // DMA queue ids 0..dma_queues-1
  int pe_max_contraction = 128;            // K: partitions of stationary/moving
  int pe_max_stationary_free = 128;        // M
  uint32_t pe_max_moving_free_fp32 = 512;  // N with an fp32 destination
  uint32_t pe_max_moving_free_bf16 = 0;    // N with a bf16 destination; 0: bf16 dst illegal
  int dve_transpose_max = 32;              // DVE transpose: P and F
  uint32_t bn_stats_max_free = 512;
  uint32_t max8_min_free = 8;
  uint32_t max8_max_free = 16384;
  uint32_t local_gather_max_indices = 4096;     // per 16-partition group
  uint32_t max_stream_instructions = 1u << 22;  // decode refuses longer streams

  bool operator==(const IsaLimits&) const = default;
};

IsaLimits LimitsFor(const simulator::ChipSpec& spec);

}  // namespace trnsim::isa
