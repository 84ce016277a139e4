// A profile file (docs/profiling.md) as neuron-profile reads it: the documented JSON format,
// parsed and checked into plain structs. Everything a view needs is validated here (types,
// ranges, references between events), so the views index without further checks.
//
// Errors: NRT_INVALID naming the file and the offending field, for anything that is not a
// well-formed profile of a supported version. Never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status_or.h"

namespace trnsim::neuron_profile {

inline constexpr int kEngineCount = 5;  // pe, act, dve, pool, sp: the file's "engines" order

struct Source {
  enum class Kind { kNone, kInstruction, kDma };
  Kind kind = Kind::kNone;
  uint64_t index = 0;  // valid in its list when kind != kNone
};

struct Wait {
  bool event = false;
  uint32_t index = 0;
  Source satisfied_by;
};

// Instruction::pc of engine work that is no instruction of the stream (ScalarE's activation
// table load, opcode "act_table_load"): simulator/core/trace.h kSegmentPc.
inline constexpr uint64_t kSegmentPc = 0xFFFFFFFFu;

struct Instruction {
  int core = 0;
  int engine = 0;  // index into Profile::engines
  uint64_t pc = 0;
  std::string opcode, operands;
  uint64_t start_ps = 0, duration_ps = 0, wait_ps = 0;
  std::vector<Wait> waits;
  int source = -1;  // index into Profile::sources, or -1 (source_map.h fills it)
};

// What one DMA engine of the core did for a transfer: its payload share (0 for an engine that
// only wrote the completion semaphore) and when it served it.
struct DmaEnginePart {
  int engine = 0;
  uint64_t bytes = 0;
  uint64_t start_ps = 0, end_ps = 0;
};

struct Dma {
  int core = 0;
  int queue = 0;
  uint64_t bytes = 0;
  uint64_t submit_ps = 0, start_ps = 0, end_ps = 0;
  std::string source, destination;  // "hbm", "sbuf", ...
  uint64_t instruction = 0;
  std::vector<DmaEnginePart> engines;  // in engine order; empty in files without them
};

struct SyncUpdate {
  int core = 0;
  bool event = false;
  uint32_t index = 0;
  uint64_t value = 0;
  uint64_t time_ps = 0;
  Source source;
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
  EngineCounters engines[kEngineCount];
  std::vector<QueueCounters> queues;
};

struct Execution {
  uint64_t index = 0;
  std::string model_name;  // the execution's "model_name" (empty when the file has none)
  std::string status;      // "ok" or an NRT status name
  std::string error;
  bool has_stats = false;
  uint64_t duration_ps = 0;
  std::vector<CoreCounters> cores;  // the chip model's counters (has_stats)
  std::vector<Instruction> instructions;
  std::vector<Dma> dmas;
  std::vector<SyncUpdate> sync_updates;
};

// The kernel source line that made an instruction (an NKI kernel's, source_map.h).
struct SourceLocation {
  std::string file;  // as the kernel's debug info records it (the kernel's path)
  uint64_t line = 0;
  std::string api;  // the NKI call, e.g. "nisa.nc_matmul"
};

struct Profile {
  int version = 0;
  std::string model_name, chip, instance;
  int vnc = 0;
  std::vector<std::string> engines;
  std::vector<Execution> executions;
  std::vector<SourceLocation> sources;  // empty unless source_map.h attached a kernel's
};

StatusOr<Profile> ParseProfile(const std::string& where, const std::string& text);
StatusOr<Profile> ReadProfile(const std::string& path);

// "PE" for "pe": the engine's upper-case name, as the chip model's messages spell it.
std::string EngineLabel(const Profile& profile, int engine);

}  // namespace trnsim::neuron_profile
