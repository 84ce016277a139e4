#include "tools/kernel_builder/sync.h"

#include <cstdio>
#include <map>
#include <string>

namespace trnsim::kb {
namespace {

using isa::Instruction;
using isa::Opcode;

constexpr int kComputeQueue = 255;  // channel key: engine * 256 + (queue or compute)
// An engine's collectives complete in issue order (docs/isa.md §7.8): one channel of their own.
constexpr int kCollectiveQueue = 254;

int ChannelKey(isa::Engine e, int queue) { return static_cast<int>(e) * 256 + queue; }

std::string Name(int core, const InstRef& r, const EngineStreams& s) {
  char buf[96];
  std::string mnemonic =
      r.index >= 0 && r.index < static_cast<int>(s[static_cast<int>(r.engine)].size())
          ? std::string(isa::Mnemonic(s[static_cast<int>(r.engine)][r.index].opcode))
          : "?";
  std::snprintf(buf, sizeof(buf), "sg%02d %s[%d] (%s)", core,
                std::string(isa::EngineName(r.engine)).c_str(), r.index, mnemonic.c_str());
  return buf;
}

void CollectUsed(const EngineStreams& streams, std::set<int>* used) {
  for (const auto& stream : streams) {
    for (const Instruction& inst : stream) {
      for (const isa::SyncWait& w : inst.Waits()) {
        if (w.kind == isa::WaitKind::kSemaphore) used->insert(w.index);
      }
      for (const isa::SyncUpdate& u : inst.Updates()) {
        if (u.op != isa::UpdateOp::kEventSet && u.op != isa::UpdateOp::kEventClear) {
          used->insert(u.index);
        }
      }
      // A core_barrier's semaphore is also written by the peer core. (A sendrecv names a
      // semaphore of the peer; build.cc passes those to the peer's `reserved`.)
      if (inst.opcode == Opcode::kSemWait || inst.opcode == Opcode::kSemUpdate ||
          inst.opcode == Opcode::kCoreBarrier) {
        used->insert(static_cast<int>(inst.index));
      }
    }
  }
}

}  // namespace

Status ResolveDependencies(int core, std::span<const Dependency> deps,
                           const std::set<int>& reserved,
                           const std::array<bool, isa::kEngineCount>& branchy,
                           const isa::IsaLimits& limits, EngineStreams* streams,
                           EnginePositions* positions) {
  EngineStreams& s = *streams;
  if (positions != nullptr) {
    for (int e = 0; e < isa::kEngineCount; ++e) {
      (*positions)[e].resize(s[e].size());
      for (size_t i = 0; i < s[e].size(); ++i) (*positions)[e][i] = static_cast<int>(i);
    }
  }
  // channel key -> producer indices (sorted); consumer (engine, index) -> channel -> ordinal.
  std::map<int, std::set<int>> producers;
  struct Need {
    InstRef consumer;
    int channel;
    int producer;
  };
  std::vector<Need> needs;
  for (const Dependency& d : deps) {
    auto in_range = [&](const InstRef& r) {
      return r.valid() && r.core == core &&
             r.index < static_cast<int>(s[static_cast<int>(r.engine)].size());
    };
    if (!in_range(d.consumer) || !in_range(d.producer)) {
      return InvalidError("dependency of sg" + std::to_string(core) +
                          ": an instruction that was not emitted on this core (invalid InstRef)");
    }
    const Instruction& p = s[static_cast<int>(d.producer.engine)][d.producer.index];
    std::string what = Name(core, d.consumer, s) + " after " + Name(core, d.producer, s);
    if (branchy[static_cast<int>(d.producer.engine)] ||
        branchy[static_cast<int>(d.consumer.engine)]) {
      return InvalidError(what +
                          ": a stream with branches needs hand-made semaphores "
                          "(dependencies count each instruction once)");
    }
    if (p.opcode == Opcode::kDmaTrigger) {
      return InvalidError(what +
                          ": a dma_trigger reports completion through its descriptor's "
                          "semaphore; wait on that instead");
    }
    // A sendrecv is a DMA on queue `count` (it lands in order with that queue's dma_copies).
    bool sendrecv = p.opcode == Opcode::kSendRecv;
    bool dma = p.opcode == Opcode::kDmaCopy || sendrecv;
    bool collective = p.opcode == Opcode::kCollective;
    bool same_engine = d.producer.engine == d.consumer.engine;
    if (same_engine && d.consumer.index <= d.producer.index) {
      return InvalidError(what + ": the consumer comes first in the same stream (deadlock)");
    }
    // Program order covers a datapath consumer of its own engine's datapath; a DMA consumer (or
    // a collective) is run by the DMA engines (the CC cores), so it waits even for its own
    // engine.
    const Opcode consumer_op = s[static_cast<int>(d.consumer.engine)][d.consumer.index].opcode;
    bool consumer_dma = consumer_op == Opcode::kDmaCopy || consumer_op == Opcode::kCollective ||
                        consumer_op == Opcode::kSendRecv;
    if (same_engine && !dma && !collective && !consumer_dma) continue;
    int channel = ChannelKey(d.producer.engine, sendrecv     ? static_cast<int>(p.count)
                                                : dma        ? static_cast<int>(p.index)
                                                : collective ? kCollectiveQueue
                                                             : kComputeQueue);
    producers[channel].insert(d.producer.index);
    needs.push_back({d.consumer, channel, d.producer.index});
  }
  if (producers.empty()) return Status::Ok();

  std::set<int> used = reserved;
  CollectUsed(s, &used);
  std::map<int, int> semaphore_of;  // channel -> semaphore
  int next = 0;
  for (const auto& [channel, indices] : producers) {
    while (next < limits.semaphores && used.count(next) != 0) ++next;
    if (next >= limits.semaphores) {
      return ResourceError("sg" + std::to_string(core) + ": out of semaphores (" +
                           std::to_string(limits.semaphores) + " per core) for dependencies");
    }
    semaphore_of[channel] = next++;
    auto engine = static_cast<isa::Engine>(channel / 256);
    for (int index : indices) {
      Instruction& inst = s[static_cast<int>(engine)][index];
      if (inst.num_updates >= isa::kMaxUpdates) {
        return InvalidError(Name(core, InstRef{core, engine, index}, s) + ": already has " +
                            std::to_string(isa::kMaxUpdates) + " semaphore updates");
      }
      isa::AddUpdate(inst, {isa::UpdateOp::kSemAdd, isa::UpdateWhen::kComplete,
                            static_cast<uint16_t>(semaphore_of[channel]), 1});
    }
  }
  // Per consumer: semaphore -> largest ordinal needed.
  std::map<std::pair<int, int>, std::map<int, uint32_t>> waits;
  for (const Need& n : needs) {
    const std::set<int>& indices = producers[n.channel];
    auto ordinal =
        static_cast<uint32_t>(std::distance(indices.begin(), indices.find(n.producer)) + 1);
    uint32_t& v =
        waits[{static_cast<int>(n.consumer.engine), n.consumer.index}][semaphore_of[n.channel]];
    v = std::max(v, ordinal);
  }
  // Attach, spilling into sem_wait instructions placed just before the consumer.
  std::array<std::map<int, std::vector<Instruction>>, isa::kEngineCount> before;
  for (const auto& [where, sems] : waits) {
    Instruction& inst = s[where.first][where.second];
    for (const auto& [sem, value] : sems) {
      isa::SyncWait w{isa::WaitKind::kSemaphore, isa::CmpOp::kGe, static_cast<uint16_t>(sem),
                      value};
      if (inst.num_waits < isa::kMaxWaits) {
        isa::AddWait(inst, w);
      } else {
        Instruction sw;
        sw.opcode = Opcode::kSemWait;
        sw.index = static_cast<uint32_t>(sem);
        sw.cmp = isa::CmpOp::kGe;
        sw.imm[0] = value;
        before[where.first][where.second].push_back(sw);
      }
    }
  }
  for (int e = 0; e < isa::kEngineCount; ++e) {
    if (before[e].empty()) continue;
    std::vector<Instruction> out;
    out.reserve(s[e].size() + before[e].size());
    for (size_t i = 0; i < s[e].size(); ++i) {
      auto it = before[e].find(static_cast<int>(i));
      if (it != before[e].end()) out.insert(out.end(), it->second.begin(), it->second.end());
      if (positions != nullptr) (*positions)[e][i] = static_cast<int>(out.size());
      out.push_back(s[e][i]);
    }
    s[e] = std::move(out);
  }
  return Status::Ok();
}

}  // namespace trnsim::kb
