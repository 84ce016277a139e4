#include "simulator/isa/limits.h"

namespace trnsim::isa {

IsaLimits LimitsFor(const simulator::ChipSpec& spec) {
  IsaLimits l;
  l.partitions = spec.partitions;
  l.sbuf_bytes_per_partition = static_cast<uint32_t>(spec.sbuf_bytes_per_partition);
  l.psum_bytes_per_partition = static_cast<uint32_t>(spec.psum_bytes_per_partition);
  l.psum_banks = static_cast<uint32_t>(spec.psum_banks);
  l.psum_bank_bytes = spec.psum_banks > 0 ? l.psum_bytes_per_partition / l.psum_banks : 0;
  l.registers = spec.engine_registers;
  l.semaphores = spec.semaphores_per_core;
  l.events = spec.events_per_core;
  l.dma_queues = spec.dma_queues_per_engine;
  l.pe_max_contraction = spec.pe_max_contraction;
  l.pe_max_stationary_free = spec.pe_max_stationary_free;
  l.pe_max_moving_free_fp32 = static_cast<uint32_t>(spec.pe_max_moving_free_fp32);
  l.pe_max_moving_free_bf16 = static_cast<uint32_t>(spec.pe_max_moving_free_bf16);
  l.dve_transpose_max = spec.dve_transpose_max;
  l.bn_stats_max_free = static_cast<uint32_t>(spec.bn_stats_max_free);
  l.max8_max_free = static_cast<uint32_t>(spec.max8_max_free);
  l.local_gather_max_indices = static_cast<uint32_t>(spec.local_gather_max_indices);
  return l;
}

}  // namespace trnsim::isa
