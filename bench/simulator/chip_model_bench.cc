// The chip model (simulator/core/execution.h), measured two ways in one run:
//
// Fidelity — what the model says the hardware does, against the published figure it must
// reproduce (docs/calibration.md §4). These are simulated quantities, so they do not depend on
// the host; each benchmark reports them as counters next to the published value and the ratio:
//   PeMatmul/<0 bf16 | 1 fp32 | 2 fp8 double_row>  back-to-back load_stationary + multiply_moving
//       K=M=128, N=512 on PE only: simulated FLOP/s vs the per-core peak (2·128·128·clock, ×¼
//       fp32, ×2 fp8 double_row)
//   HbmToSbuf/<cores on one stack>/<2 trn2 | 3 trn3>  16 MiB per core HBM -> SBUF in 4 KiB
//       rows on 16 queues: per-core bytes/s vs the core's share of HBM (chip bandwidth / 8)
//   HbmCopy/<1>  64 MiB HBM -> HBM: per-core bytes/s ×2 sides vs one stack's bandwidth
//   SmallTransfer/<row bytes>  8 MiB moved in rows of 64 B / 4 KiB: bytes/s, and one 4 KiB
//       transfer's latency vs start latency + descriptor + bytes/bandwidth
//   SmallInstruction/<0 DVE bf16 copy [128,1024] | 1 ACT activation [128,32]>  per-instruction
//       time vs the cost formula
//   SemaphoreRoundTrip/1  ACT <-> DVE ping-pong: simulated time per round trip
// Simulator speed — host time per simulated program:
//   Sample/<i>  each sample kernel (tools/samples) on trn2: simulated instructions per host
//       second (items_per_second) and host seconds per simulated second (host_s_per_sim_s).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/neff/neff_io.h"
#include "simulator/core/execution.h"
#include "simulator/cost/cost_model.h"
#include "simulator/isa/encoding.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "tools/samples/sample_kernels.h"

namespace trnsim::simulator::core {
namespace {

struct Machine {
  explicit Machine(const ChipSpec& chip, int core = 0) : state(isa::LimitsFor(chip)) {
    run.core = core;
  }
  void Add(const std::string& text) { programs.push_back(isa::ParseProgram(text).value()); }
  CoreRun& Run() {
    for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
    run.state = &state;
    run.hbm = &hbm;
    return run;
  }
  std::vector<isa::Program> programs;
  reference::CoreState state;
  reference::VectorHbm hbm;
  CoreRun run;
};

ExecutionResult MustRun(const ChipSpec& chip, std::vector<CoreRun> runs, benchmark::State& state) {
  StatusOr<ExecutionResult> r = Execute(chip, runs);
  if (!r.ok()) {
    state.SkipWithError(r.status().message().c_str());
    return {};
  }
  return *r;
}

void Report(benchmark::State& state, double simulated, double published) {
  state.counters["simulated"] = simulated;
  state.counters["published"] = published;
  state.counters["ratio"] = published > 0 ? simulated / published : 0;
}

// ---- fidelity -----------------------------------------------------------------------------

void BM_PeMatmul(benchmark::State& state) {
  const ChipSpec& chip = Trainium2Spec();
  const int mode = int(state.range(0));
  const char* dt = mode == 0 ? "bf16" : mode == 1 ? "fp32" : "fp8e4";
  const int esize = mode == 1 ? 4 : mode == 0 ? 2 : 1;
  const bool dr = mode == 2;
  const int reps = 64;
  std::string s = ".engine pe\n";
  // Stationary [128, 128] (double_row: [128, 2, 128]); moving [128, 512] ([128, 2, 512]).
  const std::string stat =
      std::string("sbuf[p0:128, 0 + [") + (dr ? "256" : "128") + " x 1]] " + dt;
  const std::string mov =
      "sbuf[p0:128, 8192 + [" + std::string(dr ? "1024" : "512") + " x 1]] " + dt;
  for (int i = 0; i < reps; ++i) {
    s += "load_stationary stationary=" + stat + (dr ? " double_row" : "") + "\n";
    s += "multiply_moving dst=psum[p0:128, bank" + std::to_string(i % 8) +
         " + [512 x 1]] fp32 moving=" + mov + " first last" + (dr ? " double_row" : "") + "\n";
  }
  s += "notify_end\n";
  (void)esize;
  Machine m(chip);
  m.Add(s);
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, {m.Run()}, state);
  if (r.cores.empty()) return;
  const double flops = double(r.cores[0].engines[int(isa::Engine::kPe)].flops);
  const double peak = chip.cost.PePeakBf16Flops() * (mode == 1 ? 0.25 : mode == 2 ? 2.0 : 1.0);
  Report(state, flops / (double(r.duration_ps) * 1e-12), peak);
}
BENCHMARK(BM_PeMatmul)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// `rows` rows of `row_bytes` from HBM var 1 to SBUF (or HBM var 2), spread over 16 queues.
std::string Loads(uint64_t total, uint64_t row_bytes, bool to_hbm) {
  std::string s = ".engine sp\n";
  const uint64_t per_queue = total / 16;
  const uint64_t rows = per_queue / row_bytes;
  const uint64_t elems = row_bytes / 4;
  for (int q = 0; q < 16; ++q) {
    // Each queue moves its share in transfers of up to 128 rows (one per partition).
    for (uint64_t r = 0; r < rows; r += 128) {
      const uint64_t n = std::min<uint64_t>(128, rows - r);
      const uint64_t src = uint64_t(q) * per_queue + r * row_bytes;
      std::string dst =
          to_hbm ? "hbm[var2 + " + std::to_string(src) + ", [" + std::to_string(n) + " x " +
                       std::to_string(elems) + ", " + std::to_string(elems) + " x 1]] fp32"
                 : "sbuf[p0:" + std::to_string(n) + ", " +
                       std::to_string((uint64_t(q) * 8192 + (r / 128) * row_bytes) % 196608) +
                       " + [" + std::to_string(elems) + " x 1]] fp32";
      s += "dma_copy dst=" + dst + " src=hbm[var1 + " + std::to_string(src) + ", [" +
           std::to_string(n) + " x " + std::to_string(elems) + ", " + std::to_string(elems) +
           " x 1]] fp32 queue=" + std::to_string(q) + "\n";
    }
  }
  return s + "barrier\nnotify_end\n";
}

void BM_HbmToSbuf(benchmark::State& state) {
  const ChipSpec& chip = state.range(1) == 3 ? Trainium3Spec() : Trainium2Spec();
  const int cores = int(state.range(0));
  const uint64_t total = 16ull << 20, row = 4096;
  std::vector<std::unique_ptr<Machine>> ms;
  std::vector<CoreRun> runs;
  for (int c = 0; c < cores; ++c) {
    ms.push_back(std::make_unique<Machine>(chip, c));
    ms.back()->hbm.vars[1] = std::vector<uint8_t>(total);
    ms.back()->Add(Loads(total, row, false));
    runs.push_back(ms.back()->Run());
  }
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, runs, state);
  if (r.cores.empty()) return;
  Report(state, double(total) / (double(r.duration_ps) * 1e-12),
         double(chip.cost.hbm_bytes_per_s_per_chip) / chip.cost.cores_sharing_hbm_bandwidth);
}
BENCHMARK(BM_HbmToSbuf)
    ->Args({1, 2})
    ->Args({2, 2})
    ->Args({1, 3})
    ->Args({2, 3})
    ->Unit(benchmark::kMillisecond);

void BM_HbmCopy(benchmark::State& state) {
  const ChipSpec& chip = Trainium2Spec();
  const uint64_t total = 64ull << 20;
  Machine m(chip);
  m.hbm.vars[1] = std::vector<uint8_t>(total);
  m.hbm.vars[2] = std::vector<uint8_t>(total);
  m.Add(Loads(total, 64 << 10, true));
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, {m.Run()}, state);
  if (r.cores.empty()) return;
  Report(state, 2.0 * double(total) / (double(r.duration_ps) * 1e-12),
         double(chip.cost.hbm_bytes_per_s_per_chip) / chip.hbm_stacks);
}
BENCHMARK(BM_HbmCopy)->Arg(1)->Unit(benchmark::kMillisecond);

// 8 MiB HBM -> SBUF in transfers of [128 partitions x 4 KiB], each partition's 4 KiB read
// from HBM in runs of `run` bytes spaced 2·run apart (so no two runs are adjacent).
void BM_SmallTransfer(benchmark::State& state) {
  const ChipSpec& chip = Trainium2Spec();
  const uint64_t run = uint64_t(state.range(0)), total = 8ull << 20;
  const uint64_t per_transfer = 128 * 4096, transfers = total / per_transfer;
  const uint64_t run_elems = run / 4, runs = 4096 / run;
  Machine m(chip);
  m.hbm.vars[1] = std::vector<uint8_t>(2 * total);
  std::string s = ".engine sp\n";
  for (uint64_t t = 0; t < transfers; ++t)
    s += "dma_copy dst=sbuf[p0:128, " + std::to_string((t % 32) * 4096) +
         " + [1024 x 1]] fp32 src=hbm[var1 + " + std::to_string(t * 2 * per_transfer) +
         ", [128 x 2048, " + std::to_string(runs) + " x " + std::to_string(2 * run_elems) + ", " +
         std::to_string(run_elems) + " x 1]] fp32 queue=" + std::to_string(t % 16) + "\n";
  m.Add(s + "barrier\nnotify_end\n");
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, {m.Run()}, state);
  if (r.cores.empty()) return;
  // Reference: 16 engines reading HBM (C-1's 23.34 GB/s each), each run paying the element
  // overhead (docs/calibration.md §3).
  const double rate = double(chip.cost.dma_engine_hbm_read_bytes_per_s);
  const double per_run_s = double(run) / rate + double(chip.cost.dma_element_overhead_ps) * 1e-12;
  Report(state, double(total) / (double(r.duration_ps) * 1e-12),
         double(chip.cost.dma_engines_per_core) * double(run) / per_run_s);
}
BENCHMARK(BM_SmallTransfer)->Arg(64)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_OneTransferLatency(benchmark::State& state) {
  const ChipSpec& chip = Trainium2Spec();
  Machine m(chip);
  m.hbm.vars[1] = std::vector<uint8_t>(4096);
  m.Add(
      ".engine sp\ndma_copy dst=sbuf[p0:1, 0 + [1024 x 1]] fp32 src=hbm[var1 + 0, [1 x 1024, "
      "1024 x 1]] fp32 queue=0\nbarrier\nnotify_end\n");
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, {m.Run()}, state);
  if (r.cores.empty()) return;
  // Reference: C-4's ~1.3 us per transfer ([DMA-BW]); one 4 KiB row on engine 0 (1,057.5 ns
  // + 4096 B / 23.34 GB/s + 2 elements) ends before engine 15's semaphore at 1.3 us.
  Report(state, double(r.cores[0].queues[0].busy_ps) * 1e-3,
         double(chip.cost.dma_start_latency_ps) * 1e-3);  // ns
}
BENCHMARK(BM_OneTransferLatency)->Arg(4096)->Unit(benchmark::kMicrosecond);

void BM_SmallInstruction(benchmark::State& state) {
  const ChipSpec& chip = Trainium2Spec();
  const bool act = state.range(0) == 1;
  const int reps = 256;
  std::string line =
      act ? "activation dst=sbuf[p0:128, 0 + [32 x 1]] bf16 in=sbuf[p0:128, 4096 + [32 x 1]] "
            "bf16 func=exp"
          : "tensor_copy dst=sbuf[p0:128, 0 + [1024 x 1]] bf16 in=sbuf[p0:128, 4096 + [1024 x "
            "1]] bf16";
  std::string s = act ? ".engine act\n" : ".engine dve\n";
  for (int i = 0; i < reps; ++i) s += line + "\n";
  Machine m(chip);
  m.Add(s + "notify_end\n");
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, {m.Run()}, state);
  if (r.cores.empty()) return;
  const isa::Engine e = act ? isa::Engine::kAct : isa::Engine::kDve;
  // Published: ACT MIN_II = 64 cycles at 1.2 GHz; DVE bf16 SBUF copy at 4x: 1024/4 cycles at
  // 0.96 GHz (docs/calibration.md §4). The issue interval is measured: on ACT the busy time also
  // holds the one table load of exp's set and the last activation's fixed pipeline cost (which
  // covers notify_end), on DVE the closing notify_end.
  const double published_ns = act ? 64.0 / 1.2 : 256.0 / 0.96;
  const DurationPs end_ps =
      act ? DurationPs(chip.cost.act_table_load_ps) +
                Clock::FromHz(chip.cost.act_clock_hz)
                    .CyclesToPs(uint64_t(chip.cost.act_fixed_cycles))
          : cost::EstimateCost(isa::ParseInstruction("notify_end").value(), e, chip.cost)
                .OccupancyPs();
  Report(state, double(r.cores[0].engines[int(e)].busy_ps - end_ps) * 1e-3 / reps, published_ns);
}
BENCHMARK(BM_SmallInstruction)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_SemaphoreRoundTrip(benchmark::State& state) {
  const ChipSpec& chip = Trainium2Spec();
  const int rounds = 500;
  std::string a = ".engine act\n", d = ".engine dve\n";
  for (int i = 1; i <= rounds; ++i) {
    a += "wait S[2] >= " + std::to_string(i - 1) + " nop then S[1] += 1 @complete\n";
    d += "wait S[1] >= " + std::to_string(i) + " nop then S[2] += 1 @complete\n";
  }
  Machine m(chip);
  m.Add(a + "notify_end\n");
  m.Add(d + "notify_end\n");
  ExecutionResult r;
  for (auto _ : state) r = MustRun(chip, {m.Run()}, state);
  if (r.cores.empty()) return;
  // The cost rules: a sync instruction is control_cycles of its engine, no extra hand-off
  // latency (assumption, docs/calibration.md): one round trip = one ACT nop + one DVE nop.
  const double published_ns = chip.cost.control_cycles / 1.2 + chip.cost.control_cycles / 0.96;
  Report(state, double(r.duration_ps) * 1e-3 / rounds, published_ns);
}
BENCHMARK(BM_SemaphoreRoundTrip)->Arg(1)->Unit(benchmark::kMicrosecond);

// ---- simulator speed ----------------------------------------------------------------------

struct SampleProgram {
  neff::Neff neff;
  std::vector<isa::Program> programs;
};

SampleProgram BuildSample(const samples::SampleSpec& spec) {
  kb::KernelBuilder k({spec.name, "trn2", spec.lnc});
  Status made = samples::GeneratorFor(spec.name)(spec, k);
  SampleProgram p;
  if (!made.ok()) return p;
  p.neff = k.Build().value();
  for (const neff::EngineProgram& e : p.neff.subgraphs[0].engines)
    if (!e.instructions.empty())
      p.programs.push_back(
          isa::DecodeStream(e.instructions, isa::LimitsFor(Trainium2Spec())).value());
  return p;
}

void BM_Sample(benchmark::State& state) {
  const std::vector<samples::SampleSpec> all = samples::AllSamples();
  const samples::SampleSpec& spec = all[size_t(state.range(0))];
  state.SetLabel(spec.name);
  SampleProgram p = BuildSample(spec);
  if (p.programs.empty()) {
    state.SkipWithError("sample did not build");
    return;
  }
  const ChipSpec& chip = Trainium2Spec();
  Machine m(chip);
  const neff::Subgraph& sg = p.neff.subgraphs[0];
  for (const neff::Variable& v : sg.variables) {
    std::vector<uint8_t> bytes(v.size);
    if (v.type == neff::VariableType::kFile) {
      auto data = neff::ConstantData(sg, v);
      if (data.ok()) std::memcpy(bytes.data(), data->data(), std::min(bytes.size(), data->size()));
    }
    m.hbm.vars[uint32_t(v.var_id)] = std::move(bytes);
  }
  for (const isa::Program& prog : p.programs) m.run.programs[int(prog.engine)] = &prog;
  m.run.state = &m.state;
  m.run.hbm = &m.hbm;
  ExecutionResult r;
  double host_s = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    r = MustRun(chip, {m.run}, state);
    host_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (r.cores.empty()) return;
  state.SetItemsProcessed(int64_t(state.iterations() * r.cores[0].instructions));
  state.counters["sim_us"] = double(r.duration_ps) * 1e-6;
  state.counters["host_s_per_sim_s"] =
      host_s / double(state.iterations()) / (double(r.duration_ps) * 1e-12);
}
BENCHMARK(BM_Sample)
    ->DenseRange(0, int(samples::AllSamples().size()) - 1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace trnsim::simulator::core

BENCHMARK_MAIN();
