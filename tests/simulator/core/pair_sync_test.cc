// The LNC=2 pair instructions on the chip model (docs/isa.md §7.9): two physical cores (2 and 3)
// in one Execute. core_barrier orders work across the cores (core 3 reads what core 2 wrote to
// HBM only after the barrier, no earlier than core 2's issue + the remote-write latency), repeats
// with a growing count, and blocks only its engine; sendrecv moves SBUF bytes exactly into the
// peer's SBUF and adds to the peer's semaphore when they land; without the peer both fail; and
// an LNC=2 kernel built with the kernel builder's helpers runs both subgraphs to the result.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "tests/tools/kernel_builder/pair_kernel.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();

struct Core {
  explicit Core(int core_id) : core(core_id), state(isa::LimitsFor(kChip)) {}
  void Add(const std::string& text) {
    StatusOr<isa::Program> p = isa::ParseProgram(text);
    ASSERT_TRUE(p.ok()) << p.status().message();
    programs.push_back(std::move(*p));
  }
  CoreRun Run(reference::VectorHbm* hbm) {
    CoreRun run;
    run.core = core;
    for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
    run.state = &state;
    run.hbm = hbm;
    return run;
  }
  int core;
  std::vector<isa::Program> programs;
  reference::CoreState state;
};

// Cores `a` and `b` (and their shared HBM) in one execution.
struct Pair {
  Pair(int a_core = 2, int b_core = 3) : a(a_core), b(b_core) {
    hbm.vars[1] = std::vector<uint8_t>(4096);
    for (size_t i = 0; i < hbm.vars[1].size(); ++i) hbm.vars[1][i] = uint8_t(i * 7 + 1);
    hbm.vars[2] = std::vector<uint8_t>(4096);
    hbm.vars[3] = std::vector<uint8_t>(4096);
  }
  StatusOr<ExecutionResult> Run(ExecutionTrace* trace = nullptr, bool only_a = false) {
    std::vector<CoreRun> runs = {a.Run(&hbm)};
    if (!only_a) runs.push_back(b.Run(&hbm));
    ExecuteOptions o;
    o.trace = trace;
    return Execute(kChip, runs, o);
  }
  Core a, b;
  reference::VectorHbm hbm;
};

const TraceInstruction& Find(const ExecutionTrace& t, int core, isa::Engine engine, uint32_t pc) {
  for (const TraceInstruction& i : t.instructions)
    if (i.core == core && i.engine == engine && i.pc == pc) return i;
  ADD_FAILURE() << "no instruction " << pc << " of core " << core << " " << isa::EngineName(engine);
  static const TraceInstruction kNone;
  return kNone;
}

const DurationPs kRemotePs = kChip.cost.dma_start_latency_ps;

// Core 2 copies var1 -> var2 (HBM), waits for it, then core_barrier. Core 3: core_barrier, then
// copies var2 -> var3. Without the barrier core 3 copies var2 before core 2 wrote it (zeros).
TEST(PairSyncTest, BarrierOrdersHbmWorkAcrossCores) {
  Pair p;
  p.a.Add(
      ".engine sp\n"
      "dma_copy dst=hbm[var2 + 0, [1 x 1024, 1024 x 1]] fp32 src=hbm[var1 + 0, [1 x 1024, 1024 x "
      "1]] fp32 queue=0\n"
      "barrier\n"
      "core_barrier sem=4\n"
      "notify_end\n");
  p.b.Add(
      ".engine sp\n"
      "core_barrier sem=4\n"
      "dma_copy dst=hbm[var3 + 0, [1 x 1024, 1024 x 1]] fp32 src=hbm[var2 + 0, [1 x 1024, 1024 x "
      "1]] fp32 queue=0\n"
      "barrier\n"
      "notify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = p.Run(&trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(p.hbm.vars[3], p.hbm.vars[1]);
  EXPECT_EQ(p.a.state.sem[4], 1u);
  EXPECT_EQ(p.b.state.sem[4], 1u);
  const TraceInstruction& a_barrier = Find(trace, 2, isa::Engine::kSp, 2);
  const TraceInstruction& b_copy = Find(trace, 3, isa::Engine::kSp, 1);
  // Core 2's barrier issues only after its transfer landed (far later than core 3's issue).
  EXPECT_GT(a_barrier.start_ps, kRemotePs);
  EXPECT_GE(b_copy.start_ps, a_barrier.start_ps + kRemotePs);
  // The remote +1 on core 3's S[4] is recorded at exactly issue + latency, from the barrier.
  bool seen = false;
  for (const TraceSyncUpdate& u : trace.sync_updates) {
    if (u.core != 3 || u.event || u.index != 4) continue;
    seen = true;
    EXPECT_EQ(u.time_ps, a_barrier.start_ps + kRemotePs);
    EXPECT_EQ(u.value, 1u);
    EXPECT_EQ(u.source.kind, TraceSource::Kind::kInstruction);
  }
  EXPECT_TRUE(seen);
  EXPECT_GT(r->cores[1].engines[int(isa::Engine::kSp)].wait_ps, 0u);
}

// Three barriers in a row: the k-th waits for S >= k. Core 2 does slow work between its first
// and second barrier; core 3's ACT (not in the barrier) runs on meanwhile.
TEST(PairSyncTest, RepeatedBarriersCountUpAndBlockOnlyTheirEngine) {
  Pair p;
  p.a.Add(
      ".engine pool\n"
      "core_barrier sem=0\n"
      "dma_copy dst=hbm[var2 + 0, [1 x 1024, 1024 x 1]] fp32 src=hbm[var1 + 0, [1 x 1024, 1024 x "
      "1]] fp32 queue=1\n"
      "barrier\n"
      "core_barrier sem=0\n"
      "core_barrier sem=0\n"
      "notify_end\n");
  p.b.Add(
      ".engine pool\n"
      "core_barrier sem=0\n"
      "core_barrier sem=0\n"
      "core_barrier sem=0\n"
      "notify_end\n");
  p.b.Add(".engine act\nnop\nnotify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = p.Run(&trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(p.a.state.sem[0], 3u);
  EXPECT_EQ(p.b.state.sem[0], 3u);
  const TraceInstruction& a2 = Find(trace, 2, isa::Engine::kPool, 3);
  const TraceInstruction& b2 = Find(trace, 3, isa::Engine::kPool, 1);
  const TraceInstruction& b3 = Find(trace, 3, isa::Engine::kPool, 2);
  // Core 3's second barrier issues early, but its third cannot issue before core 2's second
  // barrier's write has arrived.
  EXPECT_LT(b2.start_ps, a2.start_ps);
  EXPECT_GE(b3.start_ps, a2.start_ps + kRemotePs);
  // ACT on core 3 was never held up by POOL's barriers.
  const TraceInstruction& act_end = Find(trace, 3, isa::Engine::kAct, 1);
  EXPECT_LT(act_end.start_ps, b2.start_ps + kRemotePs);
}

// SBUF [4 partitions x 16 fp32] of core 2 -> a different place in core 3's SBUF; core 3's ACT
// waits on the peer semaphore and issues when the bytes have landed.
TEST(PairSyncTest, SendRecvMovesBytesAndSignalsThePeerWhenTheyLand) {
  Pair p;
  const size_t part = p.a.state.limits.sbuf_bytes_per_partition;
  for (size_t q = 0; q < 4; ++q)
    for (size_t k = 0; k < 64; ++k) p.a.state.sbuf[q * part + k] = uint8_t(q * 64 + k + 3);
  std::fill(p.b.state.sbuf.begin(), p.b.state.sbuf.end(), uint8_t(0xEE));
  p.a.Add(
      ".engine sp\n"
      "sendrecv dst=sbuf[p0:4, 512 + [16 x 1]] fp32 src=sbuf[p0:4, 0 + [16 x 1]] fp32 queue=2 "
      "peer_sem=7 then S[1] += 1 @complete\n"
      "notify_end\n");
  p.b.Add(".engine act\nwait S[7] >= 1 nop\nnotify_end\n");
  ExecutionTrace trace;
  StatusOr<ExecutionResult> r = p.Run(&trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (size_t q = 0; q < 4; ++q) {
    for (size_t k = 0; k < 64; ++k)
      ASSERT_EQ(p.b.state.sbuf[q * part + 512 + k], uint8_t(q * 64 + k + 3)) << q << " " << k;
    EXPECT_EQ(p.b.state.sbuf[q * part + 512 + 64], 0xEE);  // nothing beyond the tile
    EXPECT_EQ(p.b.state.sbuf[q * part + 511], 0xEE);
    EXPECT_EQ(p.a.state.sbuf[q * part + 512], 0);  // the sender's own dst is untouched
  }
  EXPECT_EQ(p.b.state.sbuf[4 * part + 512], 0xEE);  // partition 4 untouched
  EXPECT_EQ(p.b.state.sem[7], 1u);
  EXPECT_EQ(p.a.state.sem[7], 0u);
  EXPECT_EQ(p.a.state.sem[1], 1u);  // the issuer's @complete
  ASSERT_EQ(trace.dmas.size(), 1u);
  const TraceDma& dma = trace.dmas[0];
  EXPECT_EQ(dma.bytes, 256u);
  EXPECT_EQ(dma.queue, 2);
  EXPECT_EQ(dma.source, isa::Memory::kSbuf);
  EXPECT_EQ(dma.destination, isa::Memory::kSbuf);
  EXPECT_GE(dma.end_ps, dma.submit_ps + kRemotePs);
  TimePs peer_sem_ps = 0, own_sem_ps = 0;
  for (const TraceSyncUpdate& u : trace.sync_updates) {
    if (u.core == 3 && u.index == 7 && !u.event) peer_sem_ps = u.time_ps;
    if (u.core == 2 && u.index == 1 && !u.event) own_sem_ps = u.time_ps;
  }
  EXPECT_EQ(peer_sem_ps, dma.end_ps);
  EXPECT_EQ(own_sem_ps, dma.end_ps);
  EXPECT_GE(Find(trace, 3, isa::Engine::kAct, 0).start_ps, dma.end_ps);
}

// Registers are read at issue for both operands; the peer sees the bytes, the sender's later
// register change does not move them.
TEST(PairSyncTest, SendRecvResolvesRegistersAtIssue) {
  Pair p;
  const size_t part = p.a.state.limits.sbuf_bytes_per_partition;
  for (size_t k = 0; k < 8; ++k) p.a.state.sbuf[64 + k] = uint8_t(0x40 + k);
  p.a.Add(
      ".engine sp\n"
      "reg_set r2 = 16\n"
      "sendrecv dst=sbuf[p0:1, 0 + r2*8 + [2 x 1]] fp32 src=sbuf[p0:1, 0 + r2*4 + [2 x 1]] fp32 "
      "queue=0 peer_sem=0\n"
      "reg_set r2 = 0\n"
      "notify_end\n");
  StatusOr<ExecutionResult> r = p.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (size_t k = 0; k < 8; ++k) EXPECT_EQ(p.b.state.sbuf[128 + k], uint8_t(0x40 + k)) << k;
  EXPECT_EQ(p.b.state.sbuf[0], 0);
  EXPECT_EQ(p.b.state.sem[0], 1u);
  (void)part;
}

TEST(PairSyncTest, WithoutThePeerBothAreExecutionErrors) {
  for (const std::string& inst :
       {std::string("core_barrier sem=1"),
        std::string("sendrecv dst=sbuf[p0:1, 0 + [4 x 1]] fp32 src=sbuf[p0:1, 64 + [4 x 1]] "
                    "fp32 queue=0 peer_sem=1")}) {
    SCOPED_TRACE(inst);
    {  // LNC=1: core 2 alone.
      Pair p;
      p.a.Add(".engine pool\n" + inst + "\nnotify_end\n");
      StatusOr<ExecutionResult> r = p.Run(nullptr, /*only_a=*/true);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
      EXPECT_NE(r.status().message().find("core 2 POOL instruction 0"), std::string::npos)
          << r.status().message();
      EXPECT_NE(r.status().message().find("peer core 3"), std::string::npos)
          << r.status().message();
    }
    {  // Cores 1 and 2 run together but are not a pair.
      Pair p(1, 2);
      p.a.Add(".engine sp\n" + inst + "\nnotify_end\n");
      StatusOr<ExecutionResult> r = p.Run();
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
      EXPECT_NE(r.status().message().find("peer core 0"), std::string::npos)
          << r.status().message();
    }
  }
}

// A barrier the peer never reaches is a deadlock that names the barrier and its count.
TEST(PairSyncTest, UnmatchedBarrierIsReportedAsADeadlock) {
  Pair p;
  p.a.Add(".engine sp\ncore_barrier sem=5\ncore_barrier sem=5\nnotify_end\n");
  p.b.Add(".engine sp\ncore_barrier sem=5\nnotify_end\n");
  StatusOr<ExecutionResult> r = p.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  EXPECT_NE(r.status().message().find("core 2 SP instruction 1 (core_barrier) waits for S[5] >= 2"),
            std::string::npos)
      << r.status().message();
}

TEST(PairSyncTest, TheReferenceInterpreterRefusesBoth) {
  for (const std::string& inst :
       {std::string("core_barrier sem=1"),
        std::string("sendrecv dst=sbuf[p0:1, 0 + [4 x 1]] fp32 src=sbuf[p0:1, 64 + [4 x 1]] "
                    "fp32 queue=0 peer_sem=1")}) {
    Pair p;
    p.a.Add(".engine sp\n" + inst + "\nnotify_end\n");
    StatusOr<reference::RunResult> r = reference::Run(p.a.programs, p.a.state, p.hbm);
    ASSERT_FALSE(r.ok()) << inst;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    EXPECT_NE(r.status().message().find("needs the peer core of an LNC=2 pair"), std::string::npos)
        << r.status().message();
  }
}

// The pair kernel (tests/tools/kernel_builder/pair_kernel.h) decoded and run on both cores.
TEST(PairSyncTest, KernelBuilderLnc2KernelRunsOnBothCores) {
  kb::testing::PairKernel kernel = kb::testing::BuildPairKernel();
  StatusOr<neff::Neff>& n = kernel.neff;
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  const kb::HbmTensor &x = kernel.x, &y = kernel.y, &z = kernel.z;

  const isa::IsaLimits limits = isa::LimitsFor(kChip);
  reference::VectorHbm hbm;
  for (const neff::Variable& v : n->subgraphs[0].variables)
    hbm.vars[uint32_t(v.var_id)] = std::vector<uint8_t>(v.size);
  std::vector<uint8_t>& xs = hbm.vars[x.var_id];
  for (size_t i = 0; i < 128 * 64; ++i) {
    const float f = float(i % 97) - 40.0f;
    std::memcpy(&xs[i * 4], &f, 4);
  }
  std::vector<isa::Program> programs[2];
  reference::CoreState s0(limits), s1(limits);
  CoreRun runs[2];
  for (int sg = 0; sg < 2; ++sg) {
    for (const neff::EngineProgram& e : n->subgraphs[size_t(sg)].engines) {
      if (e.instructions.empty()) continue;
      programs[sg].push_back(isa::DecodeStream(e.instructions, limits).value());
    }
    runs[sg].core = sg;
    for (const isa::Program& p : programs[sg]) runs[sg].programs[int(p.engine)] = &p;
    runs[sg].state = sg == 0 ? &s0 : &s1;
    runs[sg].hbm = &hbm;
  }
  StatusOr<ExecutionResult> r = Execute(kChip, runs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (size_t i = 0; i < 128 * 64; ++i) {
    float in, out, kept;
    std::memcpy(&in, &xs[i * 4], 4);
    std::memcpy(&out, &hbm.vars[y.var_id][i * 4], 4);
    std::memcpy(&kept, &hbm.vars[z.var_id][i * 4], 4);
    ASSERT_EQ(out, in + 1.0f) << i;
    ASSERT_EQ(kept, in + 1.0f) << i;
  }
}

}  // namespace
}  // namespace trnsim::simulator::core
