// CoreModel: one physical NeuronCore executing one CoreRun on the chip model's timeline — its
// five engine sequencers, their synchronisation through the core's semaphores and events, and
// the transfers they hand to the chip's DmaFabric (docs/chip-model.md).
//
// Sequencer rules (docs/isa.md §2): an engine issues its instructions in order, one at a time.
// PE exception: the sequencer hands multiply_moving / nc_transpose to the systolic array and
// load_stationary to the weight-load unit and is free again after control_cycles; a matmul
// issues when the array is free and the weights have landed, a load when the unit is free — so
// the next weights load in the background while the array streams; pe_pipeline.h times both
// units (passes, fill, drain, the dI/dt limiter; docs/chip-model.md §2).
// It issues instruction i at the first instant when (a) the engine is free — the previous
// instruction's occupancy (cost/cost_model.h, in the engine's clock) has elapsed — and (b) all
// of i's waits hold (a barrier: every earlier instruction of the engine has completed,
// transfers included). At issue: the wait time is accounted, the @read updates apply, the
// effect is applied (functional.h; dma_copy/dma_trigger bytes move then), and the engine is
// busy for the occupancy. @complete updates apply at issue + occupancy + access latency, or
// when the transfer lands for dma_copy, or when the last descriptor lands for dma_trigger (each
// descriptor's own semaphore/event updates apply as it lands), or when the result has landed in
// dst for `collective` (core_collective.cc: at issue the src bytes go to the CollectivePort,
// which blocks the host thread until the group has met; the engine itself moves on like a
// dma_copy; the collectives of one engine land in issue order), or when the bytes have landed in
// the peer core's SBUF for `sendrecv`, or when the core's own semaphore has reached its barrier
// count for `core_barrier` (core_pair.cc; the engine issues nothing else until then).
// `debug_print` reads its src at issue (its effect) and completes like any synchronous
// instruction; what it read goes to the execution's DebugOutput with the issue time. Every
// semaphore or event change re-examines the blocked engines of the core at the same instant —
// the peer core's changes to this core's semaphores included.
//
// Determinism: the engines are components with ids base+engine; all their events carry those
// ids as priorities, so simultaneous events run in a fixed order.
// Host parallelism (EnableEffectWorker): the data effects of TensorE's on-chip instructions may
// be applied on a host thread of the core's own, in issue order (effect_worker.h,
// effect_router.h); the scheduler thread drains it before it touches the core's data itself.
// Results, times, statistics and traces are the serial run's, bit for bit.
//
// Thread safety: none; driven by its scheduler's thread (its effect worker is internal).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "simulator/core/debug_output.h"
#include "simulator/core/dma_fabric.h"
#include "simulator/core/dma_split.h"
#include "simulator/core/effect_router.h"
#include "simulator/core/effect_worker.h"
#include "simulator/core/execution.h"
#include "simulator/core/pe_pipeline.h"
#include "simulator/core/raw_hazard.h"
#include "simulator/core/trace.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/act_table.h"
#include "simulator/sched/scheduler.h"
#include "simulator/sched/stats.h"

namespace trnsim::simulator::core {

class CoreModel {
 public:
  // Per engine, the program it runs (run's, packed); nullptr: the engine is idle.
  using Programs = std::array<const isa::PackedProgram*, isa::kEngineCount>;
  // `fabric_core` is this core's index in the DmaFabric. `programs` must outlive the execution.
  CoreModel(Scheduler& scheduler, const ChipSpec& chip, DmaFabric& fabric, int fabric_core,
            const CoreRun& run, const Programs& programs, EventPriority base_priority);

  // Records this core's instructions, transfers and sync updates into `trace` (trace.h) from
  // now on; nullptr (the default) records nothing.
  void set_trace(ExecutionTrace* trace);
  // Where this core's `collective` instructions go (collective/collective_port.h); nullptr (the
  // default): a `collective` is an execution error. The port must outlive the execution.
  void set_collectives(collective::CollectivePort* port) { collectives_ = port; }
  // The other physical core of this core's LNC=2 pair (core ^ 1) when it runs in the same
  // execution, on the same scheduler; nullptr (the default): `core_barrier` and `sendrecv` are
  // execution errors. The peer must outlive the execution.
  void set_peer(CoreModel* peer) { peer_ = peer; }
  // Where this core's debug_print instructions put what they read, as core `run_index` of the
  // execution (debug_output.h); nullptr (the default): they are read and discarded. The output
  // must outlive the execution.
  void set_debug_output(DebugOutput* output, uint32_t run_index) {
    debug_ = output;
    run_index_ = run_index;
  }
  int physical_core() const { return run_.core; }
  // From Start on, applies the data effects the EffectRouter defers on a host thread of this
  // core's own (effect_worker.h), started at the first one. Call before Start. Changes no
  // result, time or statistic.
  void EnableEffectWorker();
  // Returns once every deferred effect has been applied, leaving the core's state exactly as the
  // serial run leaves it at this point; without EnableEffectWorker, does nothing. The scheduler
  // thread calls it before reading or writing the core's data itself, and Execute before it
  // returns.
  void DrainEffects();
  // Effects posted to the effect worker so far.
  uint64_t deferred_effects() const { return deferred_effects_; }

  // Resets registers, accumulators, the stationary buffer, semaphores and events to their
  // program-start values (docs/isa.md §3; SBUF and PSUM keep their contents) and posts each
  // engine's first issue at Now().
  void Start();

  // True when every engine with a program has ended and everything it started has completed.
  bool done() const;
  // The first execution error, or OK. After an error the scheduler was asked to stop.
  const Status& status() const { return status_; }
  // One line per engine that has not ended: its instruction and what it waits for.
  std::string StuckReport() const;

  CoreStats Stats(TimePs start_ps) const;

 private:
  struct EngineState {
    isa::Engine kind = isa::Engine::kSp;
    const isa::PackedProgram* program = nullptr;
    size_t pc = 0;
    // The instruction at current_pc, unpacked once for however many times Try looks at it.
    isa::Instruction current;
    size_t current_pc = SIZE_MAX;
    bool ended = true;
    bool blocked = false;
    bool try_pending = false;
    TimePs free_at_ps = 0;
    TimePs blocked_since_ps = 0;
    TimePs last_activity_ps = 0;    // end of its last occupancy or completion
    TimePs last_issue_ps = 0;       // when its last instruction issued
    uint64_t outstanding = 0;       // issued, not yet completed (transfers included)
    TimePs collective_land_ps = 0;  // when its last collective's result lands (issue order)
    // A core_barrier issued and waiting for S[pair_sem] >= pair_target (core_pair.cc).
    bool pair_waiting = false;
    uint32_t pair_sem = 0;
    uint32_t pair_target = 0;
    uint32_t pair_traced = 0;
    EngineStats stats;
    BusyStats busy;
  };

  EventPriority PriorityOf(int engine) const { return base_priority_ + EventPriority(engine); }
  void PostTry(int engine, TimePs at_ps);
  void Try(int engine);
  // FirstUnmetWait's answer when every wait holds, and when the unmet one is the opcode's own
  // (sem_wait, event_wait, a core_barrier's count, a barrier's outstanding work).
  static constexpr int kAllWaitsHold = -1;
  static constexpr int kOpcodeWait = isa::kMaxWaits;
  // The index in inst.Waits() of the first wait that does not hold, kOpcodeWait, or
  // kAllWaitsHold. Builds no text: Try asks on every retry of a blocked engine.
  int FirstUnmetWait(const EngineState& e, const isa::Instruction& inst) const;
  // FirstUnmetWait as text for deadlock reports; empty when every wait holds.
  std::string UnmetWait(const EngineState& e, const isa::Instruction& inst) const;
  void ApplyUpdates(const isa::Instruction& inst, isa::UpdateWhen when);
  void ApplySync(isa::UpdateOp op, uint32_t index, uint32_t value);
  void WakeBlocked();
  // Instruction `pc` of the engine's program has completed: its @complete updates apply.
  // `traced` is the instruction's index in the trace (unused when not tracing).
  void Complete(int engine, size_t pc, uint32_t traced);
  // The engine's instruction at its pc, unpacked (valid until the engine's pc moves).
  const isa::Instruction& Current(EngineState& e);
  Status IssueDma(int engine, const isa::Instruction& inst, uint32_t traced);
  // A transfer of `inst` on `queue` split as `split`, with the dispatch of its descriptor
  // generation (static, hwdge or swdge; docs/chip-model.md §3.2); on_land left to the caller.
  DmaRequest NewDmaRequest(const isa::Instruction& inst, int queue, DmaSplit split) const;
  int PartitionsPerDmaEngine() const;  // SBUF partitions / DMA engines (8 on trn2)
  Status IssueTrigger(int engine, const isa::Instruction& inst, uint32_t traced);
  // core_collective.cc.
  Status IssueCollective(int engine, const isa::Instruction& inst, uint32_t traced);
  // core_pair.cc: core_barrier and sendrecv. FinishPairBarrier is called from Try while the
  // engine waits on its barrier; true when the barrier has completed (pc moved on).
  Status IssueCoreBarrier(int engine, const isa::Instruction& inst, uint32_t traced);
  Status IssueSendRecv(int engine, const isa::Instruction& inst, uint32_t traced);
  bool FinishPairBarrier(int engine);
  // debug_print (docs/isa.md §7.10): reads src now and hands it to debug_.
  Status IssueDebugPrint(int engine, const isa::Instruction& inst);
  Status NeedPeer(const isa::Instruction& inst) const;
  // The peer adds `value` to S[index] of this core now (a remote semaphore write landing).
  void RemoteSemAdd(uint32_t index, uint32_t value, TraceSource source);
  // Tracing: records the state of S/E[index] after a change made by `sync_source_`.
  void TraceSync(bool event, uint32_t index);
  // A PE unit instruction (PePipeline::Handles) issuing now: books the array / weight-load
  // unit (pe_pipeline.h), records its passes as busy time, instructions and trace entries, and
  // schedules its completion; returns the sequencer's own occupancy.
  DurationPs IssuePeUnit(int engine, const isa::Instruction& inst,
                         const cost::InstructionCost& cost, uint32_t traced);
  // core_act.cc: the activation table set `inst` needs when it is not the one loaded, else
  // kNone; and the table load itself, which occupies ACT for act_table_load_ps from `now`
  // after the activation's waits held (`waited_ps` of stall, recorded on the load's trace
  // segment); busy time, but no instruction of the stream.
  isa::ActTableSet MissingActTable(const isa::Instruction& inst) const;
  void LoadActTable(int engine, isa::ActTableSet set, TimePs now, DurationPs waited_ps);
  void Fail(Status status);
  // With an effect worker: BeginInstruction's work for `inst` (its rounding stream into
  // `stream`), and where its effect goes — after draining the worker(s) it must wait for.
  EffectRoute BeginEffect(isa::Engine kind, const isa::Instruction& inst, uint64_t& stream);
  std::string Where(const EngineState& e) const { return Where(e, e.pc); }
  // The same for instruction `pc` of the engine (an asynchronous instruction's completion, after
  // the engine has moved on: it keeps the pc, not the text, so issuing builds no string).
  std::string Where(const EngineState& e, size_t pc) const;

  Scheduler& scheduler_;
  const ChipSpec& chip_;
  DmaFabric& fabric_;
  int fabric_core_;
  CoreRun run_;
  EventPriority base_priority_;
  std::array<EngineState, isa::kEngineCount> engines_;
  Status status_;
  uint64_t hbm_read_bytes_ = 0;
  uint64_t hbm_write_bytes_ = 0;
  TimePs last_activity_ps_ = 0;
  PePipeline pe_;  // TensorE's array and weight-load unit
  collective::CollectivePort* collectives_ = nullptr;
  CoreModel* peer_ = nullptr;
  DebugOutput* debug_ = nullptr;
  uint32_t run_index_ = 0;
  // core_barrier instructions issued on this core per semaphore (the k of the k-th barrier).
  std::array<uint32_t, 256> pair_barriers_{};
  std::array<RawHazard, isa::kEngineCount> hazards_;      // same-engine read-after-write
  isa::ActTableSet act_table_ = isa::ActTableSet::kNone;  // the set ScalarE has loaded
  std::unique_ptr<TraceRecorder> trace_;                  // null unless tracing
  TraceSource sync_source_;  // tracing: who the next ApplySync calls come from
  // Host parallelism: the router from EnableEffectWorker on, the worker from the first deferral.
  std::unique_ptr<EffectRouter> router_;
  std::unique_ptr<EffectWorker> worker_;
  uint64_t deferred_effects_ = 0;
  uint64_t last_stream_ = 0;  // rounding stream of the last instruction issued (serial's value)
};

}  // namespace trnsim::simulator::core
