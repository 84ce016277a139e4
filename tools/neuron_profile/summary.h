// The summary view (`view --output-format summary-text|summary-json`): per execution, the total
// time, per core and engine the busy time (union of its instruction slices — equal to the chip
// model's busy counter), busy %, wait time and instruction count; per DMA queue the transfers,
// bytes, streaming time and bandwidth; per DMA engine the busy time, bytes and the transfers it
// carried data for or only signalled; HBM traffic; and the dominant stalls — which engine
// waited on which semaphores/events, for how long in total (docs/profiling.md §5); and when the
// instructions carry kernel source lines (source_map.h), what each line cost (line_summary.h).
// A trace the recorder's limits cut (simulator/core/trace.h, TraceLimits) is said so, with the
// number of events it dropped: its busy times and counts then cover only the recorded part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/neuron_profile/line_summary.h"
#include "tools/neuron_profile/profile.h"

namespace trnsim::neuron_profile {

struct EngineSummary {
  uint64_t busy_ps = 0, wait_ps = 0, instructions = 0;
  // multiply_moving entries: AWS's "Matmul Instruction Count" (an fp32 matmul is two).
  uint64_t matmul_instructions = 0;
  double busy_fraction = 0.0;  // busy_ps / total_ps
};

struct QueueSummary {
  int core = 0, queue = 0;
  uint64_t transfers = 0, bytes = 0;
  uint64_t streaming_ps = 0;  // union of the transfers' [start, end)
  double bytes_per_s = 0.0;   // bytes / streaming time
};

// One DMA engine of a core over the execution: the union of the intervals it served transfers,
// the payload it moved, and how many transfers it carried data for or only wrote the completion
// semaphore of.
struct DmaEngineSummary {
  int core = 0, engine = 0;
  uint64_t busy_ps = 0, bytes = 0;
  uint64_t data_transfers = 0, semaphore_only = 0;
};

struct StallSummary {
  int core = 0, engine = 0;
  std::string on;  // "S[3]", "S[3], E[1]", or "barrier" (a wait with no semaphore/event)
  uint64_t wait_ps = 0, instructions = 0;
};

struct CoreSummary {
  int core = 0;
  EngineSummary engines[isa::kEngineCount];
  uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0;  // by transfer sides touching HBM
  // AWS's "DMA Active Time": the time at least one transfer of the core was streaming — the
  // union of its transfers' [start, end) (docs/profiling.md §5).
  uint64_t dma_active_ps = 0;
  double dma_active_fraction = 0.0;  // dma_active_ps / total_ps
};

struct ExecutionSummary {
  uint64_t index = 0;
  std::string status;
  uint64_t total_ps = 0;  // the chip model's duration, or the last event's end without stats
  // The trace was cut at the recorder's limits; dropped_events were not recorded past them.
  bool truncated = false;
  uint64_t dropped_events = 0;
  std::vector<CoreSummary> cores;
  std::vector<QueueSummary> queues;           // queues that moved something
  std::vector<DmaEngineSummary> dma_engines;  // engines that served a transfer
  std::vector<StallSummary> stalls;           // longest first, at most kMaxStalls
  std::vector<SourceLineSummary> lines;       // per kernel source line (profiles with sources)
};

inline constexpr size_t kMaxStalls = 10;

ExecutionSummary Summarize(const ProfileDocument& profile, const ExecutionRecord& execution);

std::string SummaryText(const ProfileDocument& profile);
std::string SummaryJson(const ProfileDocument& profile);

}  // namespace trnsim::neuron_profile
