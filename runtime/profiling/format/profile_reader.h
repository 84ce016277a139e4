// The profile reader: a profile document (profile_format.h, docs/profiling.md) parsed and checked
// into plain structs — the inverse of profile_writer.h. Everything a consumer needs is validated
// here (types, ranges, references between events), so consumers index without further checks.
//
// Errors: NRT_INVALID naming the file and the offending field, for anything that is not a
// well-formed profile of the supported version. Never throws.
// Thread safety: the functions are reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "runtime/profiling/format/profile_format.h"
#include "simulator/isa/engine.h"

namespace trnsim::runtime::profiling {

// What made a sync update or satisfied a wait: an instruction or a DMA transfer of the same
// execution, by index into its list.
struct EventSource {
  enum class Kind { kNone, kInstruction, kDma };
  Kind kind = Kind::kNone;
  uint64_t index = 0;  // valid in its list when kind != kNone
};

struct EventWait {
  bool event = false;  // an event, else a semaphore
  uint32_t index = 0;
  EventSource satisfied_by;
};

struct InstructionEvent {
  int core = 0;
  int engine = 0;  // index into ProfileDocument::engines
  uint64_t pc = 0;  // simulator::core::kSegmentPc for engine work that is no stream instruction
  std::string opcode, operands;
  uint64_t start_ps = 0, duration_ps = 0, wait_ps = 0;
  std::vector<EventWait> waits;
  // Not in the file: index into ProfileDocument::sources once a consumer attached kernel source
  // lines (neuron-profile's source_map.h), else -1.
  int source = -1;
};

// What one DMA engine of the core did for a transfer: its payload share (0 for an engine that
// only wrote the completion semaphore) and when it served it.
struct DmaEnginePart {
  int engine = 0;
  uint64_t bytes = 0;
  uint64_t start_ps = 0, end_ps = 0;
};

struct DmaEvent {
  int core = 0;
  int queue = 0;
  uint64_t bytes = 0;
  uint64_t submit_ps = 0, start_ps = 0, end_ps = 0;
  std::string source, destination;  // isa::MemoryName: "hbm", "sbuf", ...
  uint64_t instruction = 0;         // index into the execution's instructions
  std::vector<DmaEnginePart> engines;  // in engine order; empty in files without them
};

struct SyncUpdateEvent {
  int core = 0;
  bool event = false;
  uint32_t index = 0;
  uint64_t value = 0;
  uint64_t time_ps = 0;
  EventSource source;
};

struct EngineCounters {
  uint64_t busy_ps = 0, wait_ps = 0, instructions = 0, flops = 0;
};
struct QueueCounters {
  uint64_t transfers = 0, bytes = 0, busy_ps = 0;
};
struct CoreCounters {
  int core = 0;
  uint64_t duration_ps = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
  EngineCounters engines[isa::kEngineCount];
  std::vector<QueueCounters> queues;
};

struct ExecutionRecord {
  uint64_t index = 0;
  std::string model_name;  // the execution's "model_name" (empty when the file has none)
  std::string status;      // "ok" or an NRT status name
  std::string error;
  bool has_stats = false;
  uint64_t duration_ps = 0;
  std::vector<CoreCounters> cores;  // the chip model's counters (has_stats)
  std::vector<InstructionEvent> instructions;
  std::vector<DmaEvent> dmas;
  std::vector<SyncUpdateEvent> sync_updates;
  // The recorder's limits cut the trace (events.truncated): the events above are its first
  // part, and `dropped_events` more were not recorded. Absent from the file: false, 0.
  bool truncated = false;
  uint64_t dropped_events = 0;
};

// The kernel source line that made an instruction (an NKI kernel's). Not in the file: see
// InstructionEvent::source.
struct SourceLocation {
  std::string file;  // as the kernel's debug info records it (the kernel's path)
  uint64_t line = 0;
  std::string api;  // the NKI call, e.g. "nisa.nc_matmul"
};

struct ProfileDocument {
  int version = 0;
  std::string model_name, chip, instance;
  int vnc = 0;
  std::vector<std::string> engines;  // isa::kEngineCount names, in isa::Engine order
  std::vector<ExecutionRecord> executions;
  std::vector<SourceLocation> sources;  // empty unless a consumer attached a kernel's
};

// Parses `text`; `where` (a path) prefixes every error message.
StatusOr<ProfileDocument> ParseProfile(const std::string& where, const std::string& text);
// Reads and parses the file at `path`.
StatusOr<ProfileDocument> ReadProfile(const std::string& path);

}  // namespace trnsim::runtime::profiling
