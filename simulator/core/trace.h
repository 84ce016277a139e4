// ExecutionTrace: what one execution did, event by event — the raw material of a device profile
// (docs/profiling.md). core::Execute fills it when ExecuteOptions::trace is set; with it unset
// the chip model records nothing and pays one pointer test per instruction and transfer.
//
// Three event kinds, each in the order it happened (instructions by issue, transfers by
// submission, sync updates by the instant they applied):
//   TraceInstruction  one issued instruction: core, engine, pc, mnemonic and operand text, issue
//                     time, occupancy, the time it stalled before issuing, and for every
//                     semaphore/event it waited on the event whose update it last saw. An
//                     instruction the hardware issues as several passes (fp32 matmuls and weight
//                     loads, simulator/core/pe_pipeline.h) has one entry per pass, same pc, the
//                     later ones without waits, in pass order right after the first;
//   TraceDma          one transfer on a DMA queue: bytes, submission, first byte, landing, the
//                     memory kinds of its two sides and the instruction that started it;
//   TraceDmaPart      what one DMA engine did for a transfer: its payload bytes (0 for an
//                     engine that only wrote the completion semaphore), first served, done;
//   TraceSyncUpdate   one semaphore or event change: value after, and who made it.
// A `collective` is a TraceInstruction on its engine (occupancy: the DMA issue); it uses no DMA
// queue of the core, so it has no TraceDma — its completion shows as the TraceSyncUpdates of its
// @complete updates, sourced to it.
// Times are simulated picoseconds from the start of the execution; the busy time of an engine is
// the union of its instructions' [start, start + duration) intervals, exactly the chip model's
// EngineStats::busy_ps (TraceEngineBusyPs).
//
// Bounded: a trace records at most ExecutionTrace::limits (TraceLimits: a number of entries of
// the four kinds together, and their estimated host memory), so an execution that runs long —
// an endless loop stopped only by its event budget or host timeout — cannot make its recorder
// grow without end (in neurond too, which records on its clients' behalf). The first event that
// would pass a limit and every event after it are not recorded but counted: `truncated` is set,
// `dropped_events` says how many. Truncation is a prefix cut, so every index in the recorded
// part (sources, a transfer's instruction, a part's transfer) refers to a recorded entry.
// Updates of an entry already recorded (its duration, a transfer's landing time) still apply.
//
// Thread safety: none; filled by the execution's thread, read after Execute returns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "simulator/core/dma_fabric.h"
#include "simulator/isa/access_pattern.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/sched/sim_time.h"

namespace trnsim::simulator::core {

// Who changed a semaphore or event: an instruction's @read/@complete update (or sem_update /
// event_set), or a dma_trigger descriptor as it landed.
struct TraceSource {
  enum class Kind : uint8_t { kNone = 0, kInstruction = 1, kDma = 2 };
  Kind kind = Kind::kNone;
  uint32_t index = 0;  // into ExecutionTrace::instructions or ::dmas
};

// One semaphore or event an instruction waited on (its waits, sem_wait, event_wait).
struct TraceWait {
  bool event = false;  // E[index] rather than S[index]
  uint16_t index = 0;
  TraceSource satisfied_by;  // the last update of it before the instruction issued
};

// TraceInstruction::pc of engine work that is no instruction of the stream (a table load).
inline constexpr uint32_t kSegmentPc = 0xFFFFFFFFu;

struct TraceInstruction {
  int core = 0;  // chip-local physical core
  isa::Engine engine = isa::Engine::kSp;
  uint32_t pc = 0;             // index in the engine's stream, or kSegmentPc
  std::string opcode;          // mnemonic, "multiply_moving"
  std::string operands;        // the rest of the instruction's text form (isa::FormatInstruction)
  TimePs start_ps = 0;         // issue
  DurationPs duration_ps = 0;  // occupancy: the engine (or PE unit) is busy for this long
  DurationPs wait_ps = 0;      // stalled on waits or a barrier right before issuing
  std::vector<TraceWait> waits;
};

struct TraceDma {
  int core = 0;
  int queue = 0;
  uint64_t bytes = 0;
  TimePs submit_ps = 0;  // the issuing instruction handed it to the queue
  TimePs start_ps = 0;   // it started streaming (ready and at the head of its queue)
  TimePs end_ps = 0;     // it landed
  isa::Memory source = isa::Memory::kNone;       // kind of its first source
  isa::Memory destination = isa::Memory::kNone;  // kind of its destination
  uint32_t instruction = 0;                      // the dma_copy / dma_trigger that started it
};

struct TraceDmaPart {
  uint32_t dma = 0;  // index into ExecutionTrace::dmas
  int engine = 0;    // the core's DMA engine, 0 .. dma_engines_per_core-1
  uint64_t bytes = 0;
  TimePs start_ps = 0;
  TimePs end_ps = 0;
};

struct TraceSyncUpdate {
  int core = 0;
  bool event = false;
  uint16_t index = 0;
  uint32_t value = 0;  // after the update
  TimePs time_ps = 0;
  TraceSource source;
};

// Defaults of TraceLimits. The largest sample NEFF (the 137-GFLOP matmul_bf16_4096) records
// about 27,000 entries and the others under 1,000 (~250 bytes each in the profile file); a
// 50,000-instruction program ~50,000. 2^22 entries is 80 times such a program. 256 MiB bounds
// the memory one execution's trace holds while it is recorded: an instruction entry is ~130
// bytes with short operand text and ~300 with a DMA's, so it holds 0.9-2 million of them.
inline constexpr uint64_t kDefaultTraceMaxEvents = uint64_t{1} << 22;   // 4,194,304 entries
inline constexpr uint64_t kDefaultTraceMaxBytes = uint64_t{256} << 20;  // 256 MiB

// The most one trace records. Both limits apply: recording stops at whichever is reached first.
struct TraceLimits {
  // Entries of instructions, dmas, dma_parts and sync_updates together; 0 records nothing.
  uint64_t max_events = kDefaultTraceMaxEvents;
  // Their estimated host memory (TraceEntryBytes: the entries and the strings and waits they
  // own; the vectors' spare capacity can add up to as much again).
  uint64_t max_bytes = kDefaultTraceMaxBytes;
};

struct ExecutionTrace {
  std::vector<TraceInstruction> instructions;
  std::vector<TraceDma> dmas;
  std::vector<TraceDmaPart> dma_parts;  // per landed transfer, its engines in engine order
  std::vector<TraceSyncUpdate> sync_updates;

  // Set by the trace's owner before the execution; Clear() keeps it.
  TraceLimits limits;
  // A limit was reached: the events from the first one past it on were not recorded.
  bool truncated = false;
  uint64_t dropped_events = 0;  // how many were not recorded
  uint64_t recorded_bytes = 0;  // TraceEntryBytes of the recorded entries

  uint64_t events() const {
    return instructions.size() + dmas.size() + dma_parts.size() + sync_updates.size();
  }
  // Empties the trace for a new execution, keeping its limits.
  void Clear() {
    const TraceLimits kept = limits;
    *this = ExecutionTrace();
    limits = kept;
  }
};

// The host memory an entry holds (its struct, and the heap of its strings and waits): what
// TraceLimits::max_bytes counts.
uint64_t TraceEntryBytes(const TraceInstruction& instruction);

// The index TraceRecorder returns for an event it did not record (the trace was truncated);
// every TraceRecorder method taking an index ignores it.
inline constexpr uint32_t kNotRecorded = 0xFFFFFFFFu;

// TraceRecorder: the chip model's side of the trace. One per core of an execution (the DMA
// transfers of every core go to the same ExecutionTrace); it remembers, per semaphore and event,
// the last update, so each wait can name the update it saw. It applies the trace's limits: past
// them, the methods that add an entry return kNotRecorded and count the event as dropped.
class TraceRecorder {
 public:
  TraceRecorder(ExecutionTrace* trace, int core) : trace_(trace), core_(core) {}

  // An instruction issuing now: its waits are resolved against the updates recorded so far.
  // Returns its index; SetDuration fills the occupancy once the cost is known.
  uint32_t Issue(isa::Engine engine, uint32_t pc, const isa::Instruction& inst, TimePs now_ps,
                 DurationPs wait_ps);
  // Work the engine does that is no instruction of its stream (ScalarE's activation table load:
  // opcode "act_table_load", operands the set's name); its pc is kSegmentPc.
  uint32_t Segment(isa::Engine engine, std::string opcode, std::string operands, TimePs start_ps,
                   DurationPs duration_ps, DurationPs wait_ps);
  void SetDuration(uint32_t instruction, DurationPs duration_ps) {
    if (instruction != kNotRecorded) trace_->instructions[instruction].duration_ps = duration_ps;
  }
  // A further pass of `instruction` as the hardware issues it (an fp32 matmul is two
  // instructions there, simulator/core/pe_pipeline.h): a copy of its entry with its own start
  // and duration, no waits and no stall. Returns the new entry's index.
  uint32_t AddPass(uint32_t instruction, TimePs start_ps, DurationPs duration_ps);
  // A semaphore (event = false) or event changed to `value` at `now_ps` by `source`.
  void SyncUpdate(bool event, uint32_t index, uint32_t value, TimePs now_ps, TraceSource source);
  // A transfer handed to `queue` now by instruction `instruction`; returns its index.
  uint32_t DmaSubmitted(int queue, uint64_t bytes, isa::Memory source, isa::Memory destination,
                        uint32_t instruction, TimePs now_ps);
  // It landed at `end_ps`; `parts` are its engines' shares (dma_fabric.h).
  void DmaLanded(uint32_t dma, TimePs end_ps, const DmaLanding& landing);

 private:
  // Whether an entry of `bytes` may be added; false (and one more dropped event) once a limit
  // is reached. Truncation is sticky: nothing is added after the first refusal.
  bool Admit(uint64_t bytes);

  ExecutionTrace* trace_;
  int core_;
  std::array<TraceSource, 256> last_semaphore_{};
  std::array<TraceSource, 256> last_event_{};
};

// The union of the [start, start + duration) intervals of `core`'s `engine` instructions, in
// issue order — the same accounting as BusyStats, so it equals EngineStats::busy_ps.
DurationPs TraceEngineBusyPs(const ExecutionTrace& trace, int core, isa::Engine engine);

}  // namespace trnsim::simulator::core
