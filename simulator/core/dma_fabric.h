// DmaFabric: the DMA engines of the cores of one chip and the HBM stacks they share
// (docs/chip-model.md §3).
//
// Every core has `dma_engines_per_core` DMA engines, each a server of its own with
// `dma_queues_per_engine` queues (rings). A transfer is submitted to one queue id and split over
// all of its core's engines (dma_split.h): each engine gets a part — its share of the payload
// (possibly none) followed by one write of the transfer's completion semaphore, which every
// engine performs so the core can always wait for a count of `engines` writes. The transfer
// lands when the last of its parts is done.
//
// Part k (engine k) is dispatched at submit + dispatch_delay + k × dispatch_interval and can
// start after a latency chosen so that a transfer without payload lands exactly
// dma_start_latency after its dispatch delay (C-4: trigger to the last engine's semaphore);
// it then waits for the parts before it on the same queue of the same engine (in-order per
// queue) and is served. Its standalone service time, in integer picoseconds, is
//   Σ over its elements (element_overhead) + payload / rate + element_overhead + sem / wire
// with rate the engine's HBM-read rate when the payload is read from HBM, else its wire rate.
// An engine serves the heads of its queues round-robin, packet by packet, which in the limit
// of small packets is processor sharing: every head of the engine gets an equal share of the
// engine's time. The shares are the max-min fair allocation (progressive filling) under two
// kinds of capacity:
//   engine  Σ_i s_i ≤ 1                      over the parts at the heads of one engine's queues;
//   stack   Σ_i h_i·(bytes_i/work_i)·s_i ≤ hbm_bytes_per_s_per_chip / hbm_stacks  over the parts
//           of every core on that HBM stack (h_i = HBM sides; HBM to HBM moves its bytes twice).
// Shares are recomputed whenever a part becomes ready or finishes, so concurrent cores on one
// stack contend. Times are rounded up to whole picoseconds; arithmetic is IEEE double with
// -ffp-contract=off over containers iterated in a fixed order, so the same inputs give the same
// times on every host.
//
// Thread safety: none; driven by its scheduler's thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "simulator/core/dma_split.h"
#include "simulator/sched/scheduler.h"
#include "simulator/sched/stats.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {

// What one engine did for a landed transfer (trace.h's TraceDmaPart).
struct DmaPartRecord {
  int engine = 0;
  uint64_t bytes = 0;   // payload, without the semaphore write
  TimePs start_ps = 0;  // first served
  TimePs end_ps = 0;    // its semaphore written
};

struct DmaLanding {
  TimePs start_ps = 0;               // the first of its parts started
  std::vector<DmaPartRecord> parts;  // one per engine, in engine order
};

struct DmaRequest {
  int core = 0;                         // index into the cores given at construction
  int queue = 0;                        // 0 .. queues-1
  DmaSplit split;                       // per-engine shares; engines beyond its size: none
  DurationPs dispatch_delay_ps = 0;     // before engine 0 is dispatched (software DGE)
  DurationPs dispatch_interval_ps = 0;  // between engine k and k+1
  // Runs at the landing instant.
  std::function<void(const DmaLanding&)> on_land;
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
  uint64_t in_flight() const { return transfers_.size(); }
  const DmaQueueCounters& counters(int core, int queue) const {
    return queue_counters_[size_t(core) * queues_per_core_ + size_t(queue)];
  }
  int queues_per_core() const { return queues_per_core_; }
  int engines_per_core() const { return engines_; }
  // The busy time of DMA engine `engine` of `core` (union of the intervals it served parts).
  DurationPs engine_busy_ps(int core, int engine) const {
    return engine_busy_[size_t(core) * engines_ + size_t(engine)].busy_ps();
  }
  // The time the last transfer of `core` landed (0 if none).
  TimePs last_landing(int core) const { return last_landing_[core]; }

 private:
  struct Part {
    uint64_t transfer = 0;  // key into transfers_
    int core = 0;
    int engine = 0;
    uint64_t bytes = 0;
    TimePs ready_ps = 0;              // dispatched and start latency elapsed
    double remaining = 0.0;           // picoseconds of standalone service left
    double stack_weight = 0;          // h · bytes / work: HBM bytes per picosecond of service
    double share = 0.0;               // fraction of its engine while served
    TimePs start_ps = kTimeNeverPs;   // first served
    TimePs finish_ps = kTimeNeverPs;  // at the current share; never until ready
  };
  struct Transfer {
    DmaRequest request;
    int parts_left = 0;
    TimePs head_since_ps = 0;  // queue counters: when it became its queue's oldest
    DmaLanding landing;
  };
  struct QueueRef {
    int core, engine, queue;
  };

  size_t EngineIndex(int core, int engine) const {
    return size_t(core) * engines_ + size_t(engine);
  }
  size_t RingIndex(int core, int engine, int queue) const {
    return EngineIndex(core, engine) * size_t(queues_per_core_) + size_t(queue);
  }
  DurationPs ServicePs(const DmaEngineShare& share, bool hbm_read) const;
  void Advance();     // moves every served part's progress up to Now()
  void Reschedule();  // recomputes shares and posts the next event
  void OnEvent();
  void SolveShares(std::vector<Part*>& served);

  Scheduler& scheduler_;
  const ChipSpec& chip_;
  std::vector<int> core_stacks_;
  EventPriority priority_;
  int queues_per_core_;
  int engines_;
  int stacks_ = 1;
  double stack_bytes_per_ps_;            // per HBM stack
  std::vector<std::deque<Part>> rings_;  // per core, engine, queue: front is served when ready
  std::set<size_t> active_rings_;        // rings with parts, in index order
  std::vector<DmaQueueCounters> queue_counters_;       // per core, queue
  std::vector<std::deque<uint64_t>> queue_transfers_;  // per core, queue: transfers in flight
  std::vector<BusyStats> engine_busy_;                 // per core, engine
  std::vector<TimePs> engine_busy_since_;   // start of the current busy stretch, or never
  std::map<uint64_t, Transfer> transfers_;  // in flight, by submission order
  uint64_t next_transfer_ = 0;
  std::vector<TimePs> last_landing_;
  TimePs advanced_to_ps_ = 0;
  EventId next_event_;
};

}  // namespace trnsim::simulator::core
