// What an injected fault does besides returning a status (docs/faults.md), for the back end
// that applies a FaultPlan to its executions (driver/sim/sim_device.h, "Faults"):
//   CorruptOutputs  `corrupt`: overwrites output words of a successful execution
//   WaitOutHang     `hang`: the caller waits as for a core that never answers
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "driver/execution_types.h"

namespace trnsim::driver {
class Device;
}

namespace trnsim::driver::faults {

// Words overwritten per output binding (fewer when the binding holds fewer 4-byte words).
inline constexpr int kCorruptedWordsPerOutput = 4;
// The value written: all ones, a NaN in fp32 (and in bf16/fp16 halves).
inline constexpr uint32_t kCorruptWord = 0xFFFFFFFFu;

// One overwritten word: byte `offset` of device memory `memory`.
struct CorruptedWord {
  uint64_t memory = 0;
  uint64_t offset = 0;
};

// The words `seed` chooses: for every binding with `output` set and at least 4 bytes, in the
// order of `cores` and their vars, kCorruptedWordsPerOutput word-aligned positions inside it
// (a pure function of `seed` and the bindings; positions may repeat).
std::vector<CorruptedWord> ChooseCorruptedWords(uint64_t seed,
                                                std::span<const CoreExecution> cores);

// Writes kCorruptWord at every word ChooseCorruptedWords picks, through `device.Write`. The
// first failing write's status is returned (memory freed while the execution ran).
Status CorruptOutputs(Device& device, uint64_t seed, std::span<const CoreExecution> cores);

// Blocks for `timeout` (a hung execution's wait for its completion notification), returning
// early when `cancel` becomes true. A zero timeout (no limit) returns at once: a real hang
// would never return, an emulator that blocks forever helps nobody (docs/faults.md).
void WaitOutHang(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel);

}  // namespace trnsim::driver::faults
