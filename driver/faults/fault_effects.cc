#include "driver/faults/fault_effects.h"

#include <algorithm>
#include <thread>

#include "driver/device.h"

namespace trnsim::driver::faults {
namespace {

uint64_t Next(uint64_t& state) {  // splitmix64
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<CorruptedWord> ChooseCorruptedWords(uint64_t seed,
                                                std::span<const CoreExecution> cores) {
  std::vector<CorruptedWord> words;
  uint64_t state = seed;
  for (const CoreExecution& core : cores) {
    for (const VarBinding& var : core.vars) {
      const uint64_t word_count = var.size / 4;
      if (!var.output || word_count == 0) continue;
      const uint64_t picks = std::min<uint64_t>(kCorruptedWordsPerOutput, word_count);
      for (uint64_t i = 0; i < picks; ++i) {
        words.push_back({var.memory, var.offset + (Next(state) % word_count) * 4});
      }
    }
  }
  return words;
}

Status CorruptOutputs(Device& device, uint64_t seed, std::span<const CoreExecution> cores) {
  const uint32_t value = kCorruptWord;
  for (const CorruptedWord& word : ChooseCorruptedWords(seed, cores)) {
    TRNSIM_RETURN_IF_ERROR(device.Write(word.memory, word.offset, &value, sizeof value));
  }
  return Status::Ok();
}

void WaitOutHang(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + timeout;
  constexpr std::chrono::milliseconds kPoll{5};
  while (Clock::now() < end) {
    if (cancel != nullptr && cancel->load()) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(kPoll, end - Clock::now()));
  }
}

}  // namespace trnsim::driver::faults
