// DmaFabric: the DMA queues of the cores of one chip and the HBM stacks they share, as one
// bandwidth model (docs/chip-model.md §DMA).
//
// Each core has `dma_queues_per_engine` queues. A transfer submitted to a queue waits for the
// transfers before it on that queue (in-order completion per queue) and for its own start
// latency (trigger to first byte plus per-descriptor overhead, pipelined: a transfer's latency
// runs while the one before it streams). It then streams its payload until it lands.
//
// Streaming transfers share bandwidth as a fluid: every DMA engine serves its queues
// round-robin packet by packet, and each transfer is spread over all of the core's DMA engines,
// so in the limit of small packets every streaming queue of a core gets the same payload rate.
// The rates are the max-min fair allocation (progressive filling) under two kinds of capacity:
//   core   Σ_i d_i·r_i ≤ dma_engines × dma_engine_bytes_per_s  over that core's transfers,
//          d_i = (payload + chunks × chunk_overhead_bytes) / payload  (packetisation overhead);
//   stack  Σ_i h_i·r_i ≤ hbm_bytes_per_s_per_chip / hbm_stacks   over the transfers of every
//          core on that HBM stack, h_i = HBM sides touched (HBM->HBM moves the bytes twice).
// Rates are recomputed whenever a transfer starts or lands, so concurrent cores on one stack
// contend. Times are rounded up to whole picoseconds; arithmetic is IEEE double with
// -ffp-contract=off, so the same inputs give the same times on every host.
//
// Thread safety: none; driven by its scheduler's thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "simulator/sched/scheduler.h"
#include "simulator/sched/stats.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {

struct DmaRequest {
  int core = 0;              // index into the cores given at construction
  int queue = 0;             // 0 .. queues-1
  uint64_t bytes = 0;        // payload
  uint64_t chunk_bytes = 0;  // contiguous run per access; 0: one chunk
  uint64_t descriptors = 1;
  int hbm_sides = 0;              // 0, 1 or 2
  // Runs at the landing instant with the time the transfer started streaming.
  std::function<void(TimePs stream_start_ps)> on_land;
};

struct DmaQueueCounters {
  uint64_t transfers = 0;
  uint64_t bytes = 0;
  BusyStats busy;
};

class DmaFabric {
 public:
  // `core_stacks[i]` is the HBM stack of the i-th core taking part. `priority` orders the
  // fabric's events among simultaneous ones.
  DmaFabric(Scheduler& scheduler, const ChipSpec& chip, std::vector<int> core_stacks,
            EventPriority priority);

  void Submit(DmaRequest request);

  // Transfers submitted and not yet landed, over all queues.
  uint64_t in_flight() const { return in_flight_; }
  const DmaQueueCounters& counters(int core, int queue) const {
    return queues_[Index(core, queue)].counters;
  }
  int queues_per_core() const { return queues_per_core_; }
  // The time the last transfer of `core` landed (0 if none).
  TimePs last_landing(int core) const { return last_landing_[core]; }

 private:
  struct Transfer {
    DmaRequest request;
    TimePs ready_ps = 0;              // start latency elapsed
    double dma_weight = 1.0;          // d_i
    double remaining = 0.0;           // payload bytes still to move
    double rate = 0.0;                // payload bytes per second while streaming
    TimePs finish_ps = kTimeNeverPs;  // at the current rate; never until streaming
  };
  struct Queue {
    std::deque<Transfer> transfers;  // front: the one streaming (once ready)
    DmaQueueCounters counters;
    TimePs head_since_ps = 0;  // when the front became the head
  };

  size_t Index(int core, int queue) const { return size_t(core) * queues_per_core_ + queue; }
  void Advance();     // moves every streaming transfer's progress up to Now()
  void Reschedule();  // recomputes rates and posts the next event
  void OnEvent();
  void SolveRates(std::vector<Transfer*>& streaming);

  Scheduler& scheduler_;
  const ChipSpec& chip_;
  std::vector<int> core_stacks_;
  EventPriority priority_;
  int queues_per_core_;
  double core_capacity_;   // bytes/s of DMA per core
  double stack_capacity_;  // bytes/s per HBM stack
  std::vector<Queue> queues_;
  std::vector<TimePs> last_landing_;
  TimePs advanced_to_ps_ = 0;
  EventId next_event_;
  uint64_t in_flight_ = 0;
};

}  // namespace trnsim::simulator::core
