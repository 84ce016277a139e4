// The per-source-line part of the summary view (docs/profiling.md §5, "Source lines"): for a
// profile whose instructions carry kernel source lines (source_map.h), what each line of the
// kernel cost — per engine, the busy time of its instructions (the union of their
// [start, start + duration) on each core, summed over cores) and their count; the time they
// waited before issue; and the DMA transfers they issued (count, bytes, and streaming time: the
// union of the transfers' [start, end)). Lines are in source order (file, line); the
// instructions no kernel line made (the builder's notify_end and inserted sem_waits) form one
// last row with from_kernel false.
//
// Busy times of different lines on one engine can overlap (PE's weight loads overlap matmuls),
// so they may add up to more than the engine's busy time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/neuron_profile/profile.h"

namespace trnsim::neuron_profile {

struct SourceLineSummary {
  bool from_kernel = true;
  std::string file;  // empty when !from_kernel
  uint64_t line = 0;
  // Sorted: the NKI calls of the line ("nisa.nc_matmul"), or for the builder's row the opcodes.
  std::vector<std::string> calls;
  uint64_t busy_ps[isa::kEngineCount] = {};
  uint64_t instructions[isa::kEngineCount] = {};
  uint64_t wait_ps = 0;
  uint64_t dma_transfers = 0, dma_bytes = 0, dma_streaming_ps = 0;
};

// Empty when no instruction of the execution has a source.
std::vector<SourceLineSummary> SummarizeSourceLines(const ProfileDocument& profile,
                                                    const ExecutionRecord& x);

// The summary-text block ("  source lines ...") for `lines` (nothing when empty).
std::string SourceLinesText(const ProfileDocument& profile,
                            const std::vector<SourceLineSummary>& lines);

}  // namespace trnsim::neuron_profile
