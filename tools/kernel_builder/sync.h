// Semaphore plumbing: turns "consumer waits for producer" dependencies into semaphore updates
// on producers and waits on consumers, when a kernel is built.
//
// Model (docs/toolchain.md, "Synchronisation"): each *channel* gets one counting semaphore,
// starting at 0 —
//   - compute channel of an engine: its datapath instructions, which complete in program order;
//   - DMA channel (engine, queue): the dma_copy transfers that engine issues on that queue,
//     which complete in issue order (a DMA queue is FIFO on every DMA engine);
//   - collective channel of an engine: its `collective`s, which complete in issue order too.
// Every producer some consumer depends on gets `then S[c] += 1 @complete`; its ordinal n among
// the channel's producers (in program order) is what S[c] reaches when it has completed, so a
// consumer waits `S[c] >= n` (one wait per channel: the largest n it needs). A consumer with
// more than isa::kMaxWaits waits gets the rest as sem_wait instructions just before it.
// A datapath consumer's dependencies on the compute channel of its own engine are implied by
// program order and add nothing; a dma_copy or collective consumer (run by the DMA engines or
// the CC cores, not the engine that issues it) always waits.
//
// Static counting needs every instruction to run once: a dependency whose producer or consumer
// stream contains a branch is refused (plumb register loops by hand). dma_trigger producers are
// refused too: descriptor DMAs report completion through their descriptor's `semaphore`.
#pragma once

#include <array>
#include <set>
#include <span>
#include <vector>

#include "common/status.h"
#include "simulator/isa/encoding.h"
#include "tools/kernel_builder/stream.h"

namespace trnsim::kb {

struct Dependency {
  InstRef consumer;
  InstRef producer;
};

using EngineStreams = std::array<std::vector<isa::Instruction>, isa::kEngineCount>;

// Where each instruction of a stream went when sem_waits were inserted: per engine,
// positions[e][i] is the final index of the instruction that was at index i.
using EnginePositions = std::array<std::vector<int>, isa::kEngineCount>;

// Rewrites the streams of core `core`. `reserved` semaphores (and every semaphore an instruction
// already names) are not used for channels. `branchy[e]` tells whether engine e has branches.
// With `positions`, fills it (one entry per instruction of `streams` on entry).
Status ResolveDependencies(int core, std::span<const Dependency> deps,
                           const std::set<int>& reserved,
                           const std::array<bool, isa::kEngineCount>& branchy,
                           const isa::IsaLimits& limits, EngineStreams* streams,
                           EnginePositions* positions = nullptr);

}  // namespace trnsim::kb
