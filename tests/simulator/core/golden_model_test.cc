// The golden-model test (LevelDB's ModelDB idea): seeded random instruction programs run through
// the timed chip model (core::Execute) and through the trivially correct reference interpreter
// (reference::Run); every byte of SBUF, PSUM, HBM and every semaphore must agree. The programs
// are random mixes of DMA, PE, ACT, DVE and POOL work on a few shared tiles, spread over the five
// engines, with the kernel builder's semaphores ordering every read-after-write, write-after-read
// and write-after-write hazard — race-free, so any difference is a chip-model bug (wrong issue
// order, an update applied at the wrong time, a fast path that rounds differently).
// Also: the chip model is deterministic — identical times and statistics run after run — and
// every debug_print reads the same bytes in both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/core/execution.h"
#include "simulator/isa/encoding.h"
#include "simulator/reference/interpreter.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::simulator::core {
namespace {

using isa::AluOp;
using isa::Dtype;

constexpr int kParts = 32;
constexpr int kCols = 64;
constexpr int kTiles = 6;
constexpr int kPsumTiles = 2;

struct Hazards {
  std::vector<kb::InstRef> readers;
  kb::InstRef writer;
};

// A random race-free program; returns the kernel's NEFF and fills `table` with the DMA
// descriptors its dma_trigger instructions start.
neff::Neff RandomProgram(uint64_t seed, const std::string& chip, int tasks,
                         dma::DescriptorTable& table) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
  kb::KernelBuilder k({"golden", chip, 1});
  kb::HbmTensor in = k.AddInput("in", Dtype::kFloat32, {kParts * 4, kCols}).value();
  kb::HbmTensor out = k.AddOutput("out", Dtype::kFloat32, {kParts * 4, kCols}).value();
  kb::Core& c = k.core(0);
  std::vector<kb::Tile> tiles;
  for (int t = 0; t < kTiles; ++t)
    tiles.push_back(c.AllocSbuf("t" + std::to_string(t),
                                t % 3 == 2 ? Dtype::kBfloat16 : Dtype::kFloat32, kParts, kCols)
                        .value());
  std::vector<kb::Tile> psum;
  for (int t = 0; t < kPsumTiles; ++t)
    psum.push_back(
        c.AllocPsum("p" + std::to_string(t), Dtype::kFloat32, kParts, kCols, 2048).value());
  // Hazard tracking per buffer: tiles, then psum tiles, then 4 HBM row blocks of in, of out.
  std::vector<Hazards> hz(kTiles + kPsumTiles + 8);
  auto read = [&](kb::InstRef r, int b) {
    if (hz[b].writer.valid()) k.Depend(r, hz[b].writer);
    hz[b].readers.push_back(r);
  };
  auto write = [&](kb::InstRef w, int b) {
    if (hz[b].writer.valid()) k.Depend(w, hz[b].writer);
    for (kb::InstRef r : hz[b].readers)
      if (r.engine != w.engine || r.index != w.index) k.Depend(w, r);
    hz[b].readers.clear();
    hz[b].writer = w;
  };
  auto any_engine = [&]() -> kb::Stream& {
    static const isa::Engine kAll[] = {isa::Engine::kSp, isa::Engine::kAct, isa::Engine::kDve,
                                       isa::Engine::kPool};
    return c.stream(kAll[pick(4)]);
  };
  const AluOp kOps[] = {AluOp::kAdd, AluOp::kSubtract, AluOp::kMultiply, AluOp::kMaximum};
  // Start from defined data: load every tile.
  for (int t = 0; t < kTiles; ++t) {
    kb::InstRef r =
        c.sp().DmaCopy(tiles[t].ap(), in.Block((t % 4) * kParts, kParts, 0, kCols), pick(16));
    read(r, kTiles + kPsumTiles + t % 4);
    write(r, t);
  }
  const uint32_t sbuf_pitch = k.limits().sbuf_bytes_per_partition;
  // An SBUF tile or an `in` row block as a descriptor endpoint ([kParts rows of kCols]).
  auto tile_ep = [&](const kb::Tile& t) {
    const int es = isa::DtypeSize(t.dtype);
    return dma::Endpoint{dma::kSbufVarId,
                         uint64_t(t.offset),
                         {es, int64_t(sbuf_pitch)},
                         {uint64_t(kCols * es), kParts},
                         t.dtype};
  };
  auto in_ep = [&](int blk) {
    return dma::Endpoint{in.var_id,
                         uint64_t(blk) * kParts * kCols * 4,
                         {4, kCols * 4},
                         {kCols * 4, kParts},
                         Dtype::kFloat32};
  };
  // debug_print draws from a stream of its own, so the rest of each program is what it was
  // before prints existed.
  std::mt19937_64 print_rng(seed ^ 0x9e3779b97f4a7c15ull);
  for (int i = 0; i < tasks; ++i) {
    if (print_rng() % 3 == 0) {  // a print of a tile (or an `in` block) on any engine
      const int t = int(print_rng() % (kTiles + 1));
      kb::Stream& s = c.stream(isa::Engine(print_rng() % isa::kEngineCount));
      const std::string prefix = "p" + std::to_string(print_rng() % 4);
      if (t < kTiles) {
        read(s.DebugPrint(prefix, tiles[t].ap()), t);
      } else {
        const int blk = int(print_rng() % 4);
        read(s.DebugPrint(prefix, in.Block(blk * kParts, kParts, 0, kCols)),
             kTiles + kPsumTiles + blk);
      }
    }
    const int a = pick(kTiles), b = pick(kTiles), d = pick(kTiles);
    switch (pick(10)) {
      case 9: {  // dma_trigger of 1-2 descriptors HBM -> SBUF (copy/cast, add, fma, min, max)
        kb::Stream& s = any_engine();
        auto& list = table.per_engine[int(s.engine())];
        const int count = 1 + pick(2), first = int(list.size());
        std::vector<int> blocks;
        for (int n = 0; n < count; ++n) {
          dma::Descriptor desc;
          desc.id = first + n;
          desc.queue = pick(16);
          static const dma::Op kDmaOps[] = {dma::Op::kCopy, dma::Op::kAdd, dma::Op::kFma,
                                            dma::Op::kMin, dma::Op::kMax};
          desc.op = kDmaOps[pick(5)];
          desc.scale = 0.5;
          desc.constant = 0.25;
          blocks.push_back(pick(4));
          desc.sources.push_back(in_ep(blocks.back()));
          desc.dest = tile_ep(tiles[d]);
          if (pick(2)) desc.semaphore = 200 + uint32_t(pick(8));  // counted, never waited on
          list.push_back(desc);
        }
        kb::InstRef trig = s.DmaTrigger(first, count);
        isa::Instruction bar;
        bar.opcode = isa::Opcode::kBarrier;
        kb::InstRef done = s.Emit(bar);  // completes once every descriptor landed
        for (int blk : blocks) read(trig, kTiles + kPsumTiles + blk);
        read(trig, d);  // add/fma read the destination
        write(trig, d);
        hz[d].writer = done;
        for (int blk : blocks) hz[kTiles + kPsumTiles + blk].readers.back() = done;
        break;
      }
      case 0: {  // HBM -> SBUF
        const int blk = pick(4);
        kb::InstRef r =
            any_engine().DmaCopy(tiles[d].ap(), in.Block(blk * kParts, kParts, 0, kCols), pick(16));
        read(r, kTiles + kPsumTiles + blk);
        write(r, d);
        break;
      }
      case 1: {  // SBUF -> HBM
        const int blk = pick(4);
        kb::InstRef r = any_engine().DmaCopy(out.Block(blk * kParts, kParts, 0, kCols),
                                             tiles[a].ap(), pick(16));
        read(r, a);
        write(r, kTiles + kPsumTiles + 4 + blk);
        break;
      }
      case 2: {
        kb::Stream& s = pick(2) ? c.dve() : c.pool();
        kb::InstRef r = s.TensorTensor(tiles[d].ap(), tiles[a].ap(), tiles[b].ap(), kOps[pick(4)]);
        read(r, a);
        read(r, b);
        write(r, d);
        break;
      }
      case 3: {
        static const isa::Engine kEs[] = {isa::Engine::kDve, isa::Engine::kPool, isa::Engine::kAct};
        const isa::Engine e = kEs[pick(3)];
        // ACT's tensor_scalar takes (multiply, add) only; DVE and POOL any ALU pair.
        const AluOp op0 = e == isa::Engine::kAct ? AluOp::kMultiply : kOps[pick(4)];
        kb::InstRef r = c.stream(e).TensorScalar(tiles[d].ap(), tiles[a].ap(), op0,
                                                 float(pick(7)) * 0.37f - 1.0f, AluOp::kAdd, 0.25f);
        read(r, a);
        write(r, d);
        break;
      }
      case 4: {
        static const isa::ActFunc kFs[] = {isa::ActFunc::kExp, isa::ActFunc::kTanh,
                                           isa::ActFunc::kRelu, isa::ActFunc::kCopy};
        kb::ActArgs args;
        args.scale = 0.5f;
        kb::InstRef r = c.act().Activation(tiles[d].ap(), tiles[a].ap(), kFs[pick(4)], args);
        read(r, a);
        write(r, d);
        break;
      }
      case 5: {
        kb::InstRef r = (pick(2) ? c.dve() : c.act()).TensorCopy(tiles[d].ap(), tiles[a].ap());
        read(r, a);
        write(r, d);
        break;
      }
      case 6: {  // PE: psum = tiles[a][:, :32]^T . tiles[b] (K = 32 partitions, M = 32, N = 64)
        const int p = pick(kPsumTiles);
        // Both PE operands must be of one dtype class: pick two tiles alike.
        int bb = b;
        for (int t = 0; t < kTiles; ++t)
          if (tiles[(b + t) % kTiles].dtype == tiles[a].dtype) {
            bb = (b + t) % kTiles;
            break;
          }
        kb::MatmulRefs m =
            c.pe().Matmul(psum[p].ap(), tiles[a].Cols(0, kParts).ap(), tiles[bb].ap(), true, true);
        read(m.stationary, a);
        read(m.moving, bb);
        write(m.moving, kTiles + p);
        break;
      }
      case 7: {  // PSUM -> SBUF
        const int p = pick(kPsumTiles);
        kb::InstRef r = c.dve().TensorCopy(tiles[d].ap(), psum[p].ap());
        read(r, kTiles + p);
        write(r, d);
        break;
      }
      case 8: {
        kb::InstRef r = c.dve().TensorReduce(tiles[d].Cols(0, 1).ap(), tiles[a].ap(),
                                             pick(2) ? AluOp::kAdd : AluOp::kMaximum);
        read(r, a);
        write(r, d);
        break;
      }
    }
  }
  for (auto& list : table.per_engine)
    for (size_t n = 0; n + 1 < list.size(); ++n) EXPECT_LT(list[n].id, list[n + 1].id);
  StatusOr<neff::Neff> n = k.Build();
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? std::move(*n) : neff::Neff{};
}

struct Machine {
  explicit Machine(const isa::IsaLimits& limits) : state(limits) {}
  reference::CoreState state;
  reference::VectorHbm hbm;
};

void Prepare(const neff::Neff& n, uint64_t seed, Machine& m) {
  std::mt19937 rng(uint32_t(seed * 7 + 1));
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (const neff::Variable& v : n.subgraphs[0].variables) {
    std::vector<uint8_t> bytes(v.size);
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      float f = u(rng);
      std::memcpy(&bytes[i], &f, 4);
    }
    m.hbm.vars[uint32_t(v.var_id)] = std::move(bytes);
  }
}

std::vector<isa::Program> Programs(const neff::Neff& n, const isa::IsaLimits& limits) {
  std::vector<isa::Program> out;
  for (const neff::EngineProgram& e : n.subgraphs[0].engines) {
    if (e.instructions.empty()) continue;
    out.push_back(isa::DecodeStream(e.instructions, limits).value());
  }
  return out;
}

const ChipSpec& Chip(const std::string& name) {
  return name == "trn3" ? Trainium3Spec() : Trainium2Spec();
}

StatusOr<ExecutionResult> RunChip(const ChipSpec& chip, const std::vector<isa::Program>& progs,
                                  Machine& m, const dma::DescriptorTable* table) {
  CoreRun run;
  run.descriptors = table;
  run.core = 0;
  for (const isa::Program& p : progs) run.programs[int(p.engine)] = &p;
  run.state = &m.state;
  run.hbm = &m.hbm;
  return Execute(chip, std::span<const CoreRun>(&run, 1));
}

class GoldenModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenModelTest, RandomProgramsMatchTheReferenceByteForByte) {
  const ChipSpec& chip = Chip(GetParam());
  const isa::IsaLimits limits = isa::LimitsFor(chip);
  size_t descriptors = 0, prints = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    dma::DescriptorTable table;
    neff::Neff n = RandomProgram(seed, GetParam(), 20 + int(seed % 5) * 10, table);
    for (const auto& list : table.per_engine) descriptors += list.size();
    ASSERT_FALSE(n.subgraphs.empty());
    std::vector<isa::Program> progs = Programs(n, limits);
    Machine golden(limits), model(limits);
    Prepare(n, seed, golden);
    Prepare(n, seed, model);
    reference::RunOptions options;
    options.descriptors = &table;
    StatusOr<reference::RunResult> want = reference::Run(progs, golden.state, golden.hbm, options);
    ASSERT_TRUE(want.ok()) << want.status().message();
    StatusOr<ExecutionResult> got = RunChip(chip, progs, model, &table);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_GT(got->duration_ps, 0u);
    EXPECT_EQ(got->cores[0].instructions, want->steps);
    ASSERT_EQ(golden.state.sbuf.size(), model.state.sbuf.size());
    EXPECT_TRUE(golden.state.sbuf == model.state.sbuf) << "SBUF differs";
    EXPECT_TRUE(golden.state.psum == model.state.psum) << "PSUM differs";
    EXPECT_TRUE(golden.state.sem == model.state.sem) << "semaphores differ";
    for (const auto& [id, bytes] : golden.hbm.vars)
      EXPECT_TRUE(bytes == model.hbm.vars[id]) << "HBM variable " << id << " differs";
    // Every debug_print read the same bytes (the reference in round-robin order, the chip model
    // in time order: compare by engine and pc).
    auto by_site = [](const reference::DebugPrint& a, const reference::DebugPrint& b) {
      return std::tie(a.engine, a.pc) < std::tie(b.engine, b.pc);
    };
    std::vector<reference::DebugPrint> want_prints = want->debug_prints;
    std::vector<reference::DebugPrint> got_prints = got->debug_prints;
    std::sort(want_prints.begin(), want_prints.end(), by_site);
    std::sort(got_prints.begin(), got_prints.end(), by_site);
    ASSERT_EQ(want_prints.size(), got_prints.size());
    for (size_t i = 0; i < want_prints.size(); ++i) {
      EXPECT_EQ(want_prints[i].prefix_id, got_prints[i].prefix_id);
      EXPECT_EQ(want_prints[i].shape, got_prints[i].shape);
      EXPECT_TRUE(want_prints[i].data == got_prints[i].data)
          << "debug_print " << isa::EngineName(want_prints[i].engine) << " pc "
          << want_prints[i].pc << " read different bytes";
    }
    prints += got_prints.size();
  }
  EXPECT_GT(descriptors, 40u) << "the programs exercise dma_trigger";
  EXPECT_GT(prints, 100u) << "the programs exercise debug_print";
}

TEST_P(GoldenModelTest, StochasticRoundingMatchesTheReference) {
  const ChipSpec& chip = Chip(GetParam());
  const isa::IsaLimits limits = isa::LimitsFor(chip);
  int differs_from_nearest = 0;
  for (uint64_t seed = 200; seed < 210; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    dma::DescriptorTable table;
    neff::Neff n = RandomProgram(seed, GetParam(), 40, table);
    std::vector<isa::Program> progs = Programs(n, limits);
    Machine golden(limits), model(limits), nearest(limits);
    for (Machine* m : {&golden, &model, &nearest}) Prepare(n, seed, *m);
    for (Machine* m : {&golden, &model}) {
      m->state.rounding = numerics::Rounding::Mode::kStochastic;
      m->state.rounding_seed = seed * 31;
    }
    reference::RunOptions options;
    options.descriptors = &table;
    ASSERT_TRUE(reference::Run(progs, golden.state, golden.hbm, options).ok());
    ASSERT_TRUE(RunChip(chip, progs, model, &table).ok());
    ASSERT_TRUE(RunChip(chip, progs, nearest, &table).ok());
    EXPECT_TRUE(golden.state.sbuf == model.state.sbuf) << "SBUF differs";
    EXPECT_TRUE(golden.state.psum == model.state.psum) << "PSUM differs";
    for (const auto& [id, bytes] : golden.hbm.vars)
      EXPECT_TRUE(bytes == model.hbm.vars[id]) << "HBM variable " << id << " differs";
    differs_from_nearest += model.state.sbuf != nearest.state.sbuf;
  }
  EXPECT_GT(differs_from_nearest, 5) << "stochastic rounding must change bf16 results";
}

TEST_P(GoldenModelTest, CycleCountsAreIdenticalAcrossRuns) {
  const ChipSpec& chip = Chip(GetParam());
  const isa::IsaLimits limits = isa::LimitsFor(chip);
  for (uint64_t seed = 100; seed < 105; ++seed) {
    dma::DescriptorTable table;
    neff::Neff n = RandomProgram(seed, GetParam(), 60, table);
    std::vector<isa::Program> progs = Programs(n, limits);
    Machine a(limits), b(limits);
    Prepare(n, seed, a);
    Prepare(n, seed, b);
    StatusOr<ExecutionResult> ra = RunChip(chip, progs, a, &table);
    StatusOr<ExecutionResult> rb = RunChip(chip, progs, b, &table);
    ASSERT_TRUE(ra.ok() && rb.ok());
    EXPECT_EQ(ra->duration_ps, rb->duration_ps);
    EXPECT_EQ(ra->events, rb->events);
    for (int e = 0; e < isa::kEngineCount; ++e) {
      EXPECT_EQ(ra->cores[0].engines[e].busy_ps, rb->cores[0].engines[e].busy_ps);
      EXPECT_EQ(ra->cores[0].engines[e].wait_ps, rb->cores[0].engines[e].wait_ps);
    }
    for (size_t q = 0; q < ra->cores[0].queues.size(); ++q)
      EXPECT_EQ(ra->cores[0].queues[q].busy_ps, rb->cores[0].queues[q].busy_ps);
    EXPECT_TRUE(a.state.sbuf == b.state.sbuf);
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, GoldenModelTest, ::testing::Values("trn2", "trn3"));

}  // namespace
}  // namespace trnsim::simulator::core
