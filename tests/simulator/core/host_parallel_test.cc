// Host parallelism (ExecuteOptions::host_threads; simulator/core/effect_worker.h): the same
// LNC=2 programs run with it off (everything on the calling thread) and on (each core's TensorE
// effects on a host thread of its own) must give identical outputs, core state, simulated times,
// per-engine and per-queue statistics, traces and errors, bit for bit — and keep doing so when
// the on run is repeated (thread interleavings differ from run to run; results may not).
//
// The programs mix every route of effect_router.h: deferred matmuls (bf16, fp32, accumulate,
// nc_transpose), matmuls with register offsets inside a branch loop (drained, inline), ACT/DVE
// reading PSUM (drained), DMA both ways, sendrecv into the peer's SBUF and core_barrier; and 16
// such LNC=2 ranks, each on its own thread, meeting in an all-reduce through a CollectiveHub.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "simulator/collective/collective_hub.h"
#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();

// Engine programs for cores 0 and 1 (by engine name), as text.
struct PairProgram {
  std::vector<std::string> core[2];
};

// Everything one execution produces: the result or error, the final state of both cores and
// HBM, and the trace — held so two executions can be compared.
struct Outcome {
  StatusOr<ExecutionResult> result = InvalidError("not run");
  std::vector<std::unique_ptr<reference::CoreState>> states;
  reference::VectorHbm hbm;
  ExecutionTrace trace;
};

std::vector<uint8_t> Pattern(size_t bytes, uint32_t seed, bool tiny) {
  // bf16/fp32 values in (-1, 1), some of them tiny (subnormal products) when `tiny`.
  std::vector<uint8_t> out(bytes);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i + 1 < bytes; i += 2) {
    x = x * 1664525u + 1013904223u;
    uint16_t v = uint16_t(0x3C00 + ((x >> 8) & 0x3FF)) | uint16_t((x >> 31) << 15);
    if (tiny && (x & 7) == 0) v = uint16_t(0x0080 + ((x >> 12) & 0x7F));
    std::memcpy(&out[i], &v, 2);
  }
  return out;
}

// `validate` false: the program's static errors too are found as the instructions execute.
// `port`: where `collective` instructions go (null: none); `seed` varies the inputs.
Outcome RunPair(const PairProgram& program, bool host_threads, bool stochastic,
                bool validate = true, collective::CollectivePort* port = nullptr,
                uint32_t seed = 0) {
  Outcome o;
  std::vector<std::vector<isa::Program>> programs(2);
  std::vector<CoreRun> runs;
  for (int c = 0; c < 2; ++c) {
    o.states.push_back(std::make_unique<reference::CoreState>(isa::LimitsFor(kChip)));
    reference::CoreState& s = *o.states.back();
    if (stochastic) {
      s.rounding = numerics::Rounding::Mode::kStochastic;
      s.rounding_seed = 77 + uint64_t(c);
    }
    // Inputs: var 10+c stationary/moving bf16 [128 x 512], var 20+c fp32 [128 x 128].
    o.hbm.vars[10 + uint32_t(c)] = Pattern(32768 + 128 * 512 * 2, 3 + uint32_t(c) + seed, c == 1);
    o.hbm.vars[20 + uint32_t(c)] = Pattern(128 * 128 * 4, 9 + uint32_t(c) + seed, false);
    o.hbm.vars[30 + uint32_t(c)] = std::vector<uint8_t>(128 * 512 * 4);
    o.hbm.vars[40 + uint32_t(c)] = std::vector<uint8_t>(128 * 128 * 4);  // collective dst
    for (const std::string& text : program.core[c]) {
      StatusOr<isa::Program> p = isa::ParseProgram(text);
      EXPECT_TRUE(p.ok()) << p.status().message() << "\n" << text;
      if (!p.ok()) return o;
      programs[size_t(c)].push_back(std::move(*p));
    }
  }
  for (int c = 0; c < 2; ++c) {
    CoreRun run;
    run.core = c;
    for (const isa::Program& p : programs[size_t(c)]) run.programs[int(p.engine)] = &p;
    run.state = o.states[size_t(c)].get();
    run.hbm = &o.hbm;
    runs.push_back(run);
  }
  ExecuteOptions options;
  options.host_threads = host_threads;
  options.trace = &o.trace;
  options.validate = validate;
  options.collectives = port;
  o.result = Execute(kChip, runs, options);
  return o;
}

std::string TraceText(const ExecutionTrace& t) {
  std::ostringstream out;
  for (const TraceInstruction& i : t.instructions) {
    out << "I " << i.core << " " << int(i.engine) << " " << i.pc << " " << i.opcode << " "
        << i.operands << " " << i.start_ps << " " << i.duration_ps << " " << i.wait_ps;
    for (const TraceWait& w : i.waits)
      out << " w" << w.event << w.index << ":" << int(w.satisfied_by.kind) << "/"
          << w.satisfied_by.index;
    out << "\n";
  }
  for (const TraceDma& d : t.dmas)
    out << "D " << d.core << " " << d.queue << " " << d.bytes << " " << d.submit_ps << " "
        << d.start_ps << " " << d.end_ps << " " << int(d.source) << " " << int(d.destination) << " "
        << d.instruction << "\n";
  for (const TraceDmaPart& p : t.dma_parts)
    out << "P " << p.dma << " " << p.engine << " " << p.bytes << " " << p.start_ps << " "
        << p.end_ps << "\n";
  for (const TraceSyncUpdate& u : t.sync_updates)
    out << "S " << u.core << " " << u.event << " " << u.index << " " << u.value << " " << u.time_ps
        << " " << int(u.source.kind) << "/" << u.source.index << "\n";
  return out.str();
}

// Every field of the two outcomes, bit for bit.
void ExpectIdentical(const Outcome& serial, const Outcome& parallel) {
  ASSERT_EQ(serial.result.ok(), parallel.result.ok());
  if (!serial.result.ok()) {
    EXPECT_EQ(serial.result.status().code(), parallel.result.status().code());
    EXPECT_EQ(serial.result.status().message(), parallel.result.status().message());
  } else {
    const ExecutionResult& a = *serial.result;
    const ExecutionResult& b = *parallel.result;
    EXPECT_EQ(a.duration_ps, b.duration_ps);
    EXPECT_EQ(a.events, b.events);
    ASSERT_EQ(a.cores.size(), b.cores.size());
    for (size_t c = 0; c < a.cores.size(); ++c) {
      EXPECT_EQ(a.cores[c].duration_ps, b.cores[c].duration_ps);
      EXPECT_EQ(a.cores[c].instructions, b.cores[c].instructions);
      EXPECT_EQ(a.cores[c].hbm_read_bytes, b.cores[c].hbm_read_bytes);
      EXPECT_EQ(a.cores[c].hbm_write_bytes, b.cores[c].hbm_write_bytes);
      for (int e = 0; e < isa::kEngineCount; ++e) {
        const EngineStats& x = a.cores[c].engines[e];
        const EngineStats& y = b.cores[c].engines[e];
        EXPECT_EQ(x.busy_ps, y.busy_ps) << c << " " << e;
        EXPECT_EQ(x.wait_ps, y.wait_ps) << c << " " << e;
        EXPECT_EQ(x.instructions, y.instructions) << c << " " << e;
        EXPECT_EQ(x.flops, y.flops) << c << " " << e;
      }
      ASSERT_EQ(a.cores[c].queues.size(), b.cores[c].queues.size());
      for (size_t q = 0; q < a.cores[c].queues.size(); ++q) {
        EXPECT_EQ(a.cores[c].queues[q].transfers, b.cores[c].queues[q].transfers);
        EXPECT_EQ(a.cores[c].queues[q].bytes, b.cores[c].queues[q].bytes);
        EXPECT_EQ(a.cores[c].queues[q].busy_ps, b.cores[c].queues[q].busy_ps);
      }
    }
  }
  EXPECT_EQ(serial.hbm.vars, parallel.hbm.vars);
  for (size_t c = 0; c < serial.states.size(); ++c) {
    const reference::CoreState& x = *serial.states[c];
    const reference::CoreState& y = *parallel.states[c];
    EXPECT_TRUE(x.sbuf == y.sbuf) << "core " << c << " SBUF differs";
    EXPECT_TRUE(x.psum == y.psum) << "core " << c << " PSUM differs";
    EXPECT_EQ(x.acc, y.acc);
    EXPECT_EQ(x.sem, y.sem);
    EXPECT_EQ(x.event, y.event);
    EXPECT_EQ(x.regs, y.regs);
    EXPECT_EQ(x.issued, y.issued);
    EXPECT_EQ(x.rounding_stream, y.rounding_stream);
    EXPECT_EQ(x.stationary.loaded, y.stationary.loaded);
    EXPECT_EQ(x.stationary.k, y.stationary.k);
    EXPECT_EQ(x.stationary.m, y.stationary.m);
    EXPECT_EQ(x.stationary.bits, y.stationary.bits);
  }
  EXPECT_EQ(TraceText(serial.trace), TraceText(parallel.trace));
}

// Core c: loads its inputs, runs `matmuls` bf16 matmuls of [128 x 128] x [128 x n] into four
// PSUM banks (accumulating), an fp32 matmul, an nc_transpose, a register-offset matmul loop,
// then ACT/DVE read PSUM and SP stores the result; core 0 sends its result to core 1's SBUF;
// both meet at a core_barrier.
PairProgram MatmulPair(int matmuls, int n) {
  PairProgram p;
  const std::string N = std::to_string(n);
  for (int c = 0; c < 2; ++c) {
    const std::string in = "var" + std::to_string(10 + c), f32 = "var" + std::to_string(20 + c),
                      out = "var" + std::to_string(30 + c);
    std::string sp = ".engine sp\n";
    sp += "dma_copy dst=sbuf[p0:128, 0 + [128 x 1]] bf16 src=hbm[" + in +
          " + 0, [128 x 128, 128 x 1]] bf16 queue=0 then S[1] += 1 @complete\n";
    sp += "dma_copy dst=sbuf[p0:128, 8192 + [" + N + " x 1]] bf16 src=hbm[" + in +
          " + 32768, [128 x " + N + ", " + N + " x 1]] bf16 queue=1 then S[1] += 1 @complete\n";
    sp += "dma_copy dst=sbuf[p0:128, 16384 + [128 x 1]] fp32 src=hbm[" + f32 +
          " + 0, [128 x 128, 128 x 1]] fp32 queue=2 then S[1] += 1 @complete\n";
    sp += "wait S[3] >= 1 dma_copy dst=hbm[" + out + " + 0, [128 x " + N + ", " + N +
          " x 1]] fp32 src=sbuf[p0:128, 32768 + [" + N + " x 1]] fp32 queue=3\n";
    sp += "barrier\n";
    if (c == 0)
      sp += "sendrecv dst=sbuf[p0:128, 65536 + [" + N + " x 1]] fp32 src=sbuf[p0:128, 32768 + [" +
            N + " x 1]] fp32 queue=4 peer_sem=9\n";
    sp += "core_barrier sem=5\nnotify_end\n";

    std::string pe = ".engine pe\nwait S[1] >= 3 nop\n";
    for (int i = 0; i < matmuls; ++i) {
      pe += "load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16\n";
      pe += "multiply_moving dst=psum[p0:128, bank" + std::to_string(i % 4) + " + [" + N +
            " x 1]] fp32 moving=sbuf[p0:128, 8192 + [" + N + " x 1]] bf16" +
            (i < 4 ? " first" : " accumulate") + (i + 4 >= matmuls ? " last" : "") + "\n";
    }
    pe += "load_stationary stationary=sbuf[p0:128, 16384 + [128 x 1]] fp32\n";
    pe +=
        "multiply_moving dst=psum[p0:128, bank4 + [128 x 1]] fp32 moving=sbuf[p0:128, 16384 + "
        "[128 x 1]] fp32 first last\n";
    pe +=
        "nc_transpose dst=psum[p0:128, bank5 + [128 x 1]] fp32 in=sbuf[p0:128, 16384 + [128 x "
        "1]] fp32\n";
    // A loop whose moving operand is register-offset: drained and inline every time.
    pe += "load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16\n";
    pe += "reg_set r1 = 0\n";
    const int loop = 2 * matmuls + 6;  // the index of the loop's multiply_moving
    pe +=
        "multiply_moving dst=psum[p0:128, bank6 + [64 x 1]] fp32 moving=sbuf[p0:128, 8192 + "
        "r1*128 + [64 x 1]] bf16 first last\n";
    pe += "reg_add r1 += 1\n";
    pe += "branch r1 < 4 -> " + std::to_string(loop) + "\n";
    pe += "multiply_moving dst=psum[p0:128, bank7 + [" + N +
          " x 1]] fp32 moving=sbuf[p0:128, "
          "8192 + [" +
          N + " x 1]] bf16 first last then S[2] += 1 @complete\n";
    pe += "notify_end\n";

    std::string act = ".engine act\n";
    act += "wait S[2] >= 1 tensor_copy dst=sbuf[p0:128, 32768 + [" + N +
           " x 1]] fp32 in=psum[p0:128, bank0 + [" + N + " x 1]] fp32\n";
    act += "tensor_copy dst=sbuf[p0:128, 49152 + [" + N + " x 1]] bf16 in=psum[p0:128, bank7 + [" +
           N + " x 1]] fp32 then S[3] += 1 @complete\n";
    act += "notify_end\n";
    std::string dve = ".engine dve\n";
    dve += "wait S[2] >= 1 tensor_tensor dst=sbuf[p0:128, 81920 + [" + N +
           " x 1]] fp32 in0=psum[p0:128, bank1 + [" + N + " x 1]] fp32 in1=sbuf[p0:128, 16384 + [" +
           N + " x 1]] fp32 op0=add\n";
    dve += "notify_end\n";
    p.core[c] = {sp, pe, act, dve};
  }
  return p;
}

TEST(HostParallelTest, Lnc2MatmulsAreBitIdenticalWithAndWithoutHostThreads) {
  const PairProgram program = MatmulPair(/*matmuls=*/8, /*n=*/256);
  const Outcome serial = RunPair(program, /*host_threads=*/false, /*stochastic=*/false);
  ASSERT_TRUE(serial.result.ok()) << serial.result.status().ToString();
  // The program did real work on both cores: non-zero results and every engine ran.
  for (int c = 0; c < 2; ++c) {
    const std::vector<uint8_t>& out = serial.hbm.vars.at(30 + uint32_t(c));
    EXPECT_NE(std::count(out.begin(), out.end(), 0), std::ptrdiff_t(out.size()));
    EXPECT_GT(serial.result->cores[size_t(c)].engines[int(isa::Engine::kPe)].flops, 0u);
  }
  EXPECT_TRUE(std::equal(serial.states[0]->sbuf.begin() + 32768,
                         serial.states[0]->sbuf.begin() + 32768 + 1024,
                         serial.states[1]->sbuf.begin() + 65536));  // sendrecv landed
  EXPECT_EQ(serial.result->deferred_effects, 0u);
  for (int i = 0; i < 12; ++i) {
    SCOPED_TRACE("parallel run " + std::to_string(i));
    const Outcome parallel = RunPair(program, /*host_threads=*/true, /*stochastic=*/false);
    ExpectIdentical(serial, parallel);
    // Both cores' 8 bf16 matmuls with their loads, the fp32 one and nc_transpose went to the
    // effect threads; the register-offset loop did not.
    ASSERT_TRUE(parallel.result.ok());
    EXPECT_EQ(parallel.result->deferred_effects, 2u * (16 + 2 + 1 + 1 + 1));
  }
}

TEST(HostParallelTest, StochasticRoundingStreamsAreTheSerialRunsOnes) {
  const PairProgram program = MatmulPair(/*matmuls=*/4, /*n=*/128);
  const Outcome serial = RunPair(program, false, /*stochastic=*/true);
  ASSERT_TRUE(serial.result.ok()) << serial.result.status().ToString();
  for (int i = 0; i < 3; ++i) ExpectIdentical(serial, RunPair(program, true, true));
}

// An execution error in an instruction that would otherwise be deferred surfaces at its issue,
// with the serial run's status and message, and leaves the same partial state. `bad` replaces
// core 1's sixth PE instruction starting with `what` (the indices of the others stay put).
PairProgram WithFault(const std::string& what, const std::string& bad) {
  PairProgram p = MatmulPair(/*matmuls=*/8, /*n=*/256);
  std::string& pe = p.core[1][1];
  size_t at = 0;
  for (int k = 0; k < 6; ++k) at = pe.find("\n" + what, at) + 1;
  pe.replace(at, pe.find('\n', at) - at, bad);
  return p;
}

TEST(HostParallelTest, ErrorsSurfaceAsInTheSerialRun) {
  const std::vector<std::pair<std::string, std::string>> faults = {
      // The product is [128 x 256]; dst is [128 x 64].
      {"multiply_moving",
       "multiply_moving dst=psum[p0:128, bank0 + [64 x 1]] fp32 moving=sbuf[p0:128, 8192 + [256 "
       "x 1]] bf16 first last"},
      // Outside PSUM.
      {"multiply_moving",
       "multiply_moving dst=psum[p0:128, 16000 + [256 x 1]] fp32 moving=sbuf[p0:128, 8192 + [256 "
       "x 1]] bf16 first last"},
      // Moving K 64 against the stationary's 128.
      {"multiply_moving",
       "multiply_moving dst=psum[p0:128, bank0 + [256 x 1]] fp32 moving=sbuf[p0:64, 8192 + [256 "
       "x 1]] bf16 first last"},
      // Partitions past the end of SBUF.
      {"load_stationary", "load_stationary stationary=sbuf[p100:128, 0 + [128 x 1]] bf16"},
  };
  for (const auto& [what, fault] : faults) {
    SCOPED_TRACE(fault);
    const PairProgram program = WithFault(what, fault);
    const Outcome serial = RunPair(program, false, false, /*validate=*/false);
    ASSERT_FALSE(serial.result.ok());
    EXPECT_EQ(serial.result.status().code(), StatusCode::kInvalid);
    EXPECT_NE(serial.result.status().message().find("core 1 PE instruction"), std::string::npos)
        << serial.result.status().message();
    for (int i = 0; i < 3; ++i)
      ExpectIdentical(serial, RunPair(program, true, false, /*validate=*/false));
  }
}

TEST(HostParallelTest, MatmulBeforeLoadStationaryFailsAsSerially) {
  PairProgram p = MatmulPair(/*matmuls=*/4, /*n=*/128);
  p.core[0][1] =
      ".engine pe\nwait S[1] >= 3 nop\nmultiply_moving dst=psum[p0:128, bank0 + [128 x 1]] fp32 "
      "moving=sbuf[p0:128, 8192 + [128 x 1]] bf16 first last\nnotify_end\n";
  const Outcome serial = RunPair(p, false, false, /*validate=*/false);
  ASSERT_FALSE(serial.result.ok());
  EXPECT_NE(serial.result.status().message().find("before load_stationary"), std::string::npos)
      << serial.result.status().message();
  for (int i = 0; i < 3; ++i) ExpectIdentical(serial, RunPair(p, true, false, false));
}

}  // namespace
}  // namespace trnsim::simulator::core

namespace trnsim::simulator::core {
namespace {

// 16 ranks in one process, each an LNC=2 execution on its own thread (as the runtime runs them:
// one caller thread per rank), meeting in an all-reduce of core 0's matmul results: every rank's
// outcome is the same with host threads on and off.
std::vector<Outcome> RunSixteenRanks(bool host_threads) {
  constexpr uint32_t kRanks = 16;
  const InstanceSpec& spec = *FindInstanceSpec("trn2.48xlarge").value();
  collective::CollectiveHub hub(spec);
  std::vector<Outcome> outcomes(kRanks);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      PairProgram program = MatmulPair(/*matmuls=*/4, /*n=*/128);
      std::string& sp = program.core[0][0];
      sp.insert(sp.find("core_barrier"),
                "collective dst=hbm[var40 + 0, [128 x 128, 128 x 1]] fp32 src=hbm[var30 + 0, [128 "
                "x 128, 128 x 1]] fp32 group=0 stride=1 op0=add kind=all_reduce id=1\nbarrier\n");
      collective::RankEndpoint endpoint;
      endpoint.communicator = "host-parallel-test";
      endpoint.rank = r;
      endpoint.world_size = kRanks;
      endpoint.chip = int(r);
      std::unique_ptr<collective::CollectivePort> port = hub.Attach(endpoint, {});
      outcomes[r] = RunPair(program, host_threads, false, true, port.get(), /*seed=*/r * 17);
    });
  }
  for (std::thread& t : threads) t.join();
  return outcomes;
}

TEST(HostParallelTest, SixteenRankAllReduceOfLnc2RanksIsBitIdentical) {
  const std::vector<Outcome> serial = RunSixteenRanks(false);
  for (const Outcome& o : serial) ASSERT_TRUE(o.result.ok()) << o.result.status().ToString();
  // The all-reduce really summed: rank 0's result differs from its own input.
  const std::vector<uint8_t>& in = serial[0].hbm.vars.at(30);
  const std::vector<uint8_t>& sum = serial[0].hbm.vars.at(40);
  EXPECT_FALSE(std::equal(sum.begin(), sum.end(), in.begin()));
  EXPECT_EQ(sum, serial[15].hbm.vars.at(40));  // every rank holds the same sum
  for (int round = 0; round < 3; ++round) {
    const std::vector<Outcome> parallel = RunSixteenRanks(true);
    for (size_t r = 0; r < serial.size(); ++r) {
      SCOPED_TRACE("round " + std::to_string(round) + ", rank " + std::to_string(r));
      ExpectIdentical(serial[r], parallel[r]);
      ASSERT_TRUE(parallel[r].result.ok());
      EXPECT_GT(parallel[r].result->deferred_effects, 0u);
    }
  }
}

}  // namespace
}  // namespace trnsim::simulator::core
