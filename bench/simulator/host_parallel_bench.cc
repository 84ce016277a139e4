// Parallel simulation on the host (ExecuteOptions::host_threads; simulator/core/effect_worker.h):
// one LNC=2 execution — both physical cores of a logical core in one core::Execute — with the
// cores' effects on the scheduler thread (off) and on one effect thread per core (on), measured
// in the same run. Each core loads a [128 x 128] bf16 stationary and a [128 x 512] moving
// operand, runs 64 matmuls into 8 PSUM banks, and ACT copies the banks out; `mixed` also has
// ACT and DVE read PSUM every 8 matmuls (each read drains that core's effect thread first).
//   Lnc2/<0 off | 1 on>        matmuls only
//   Lnc2/<2 off | 3 on>        mixed
// items_per_second: simulated FLOP per second of host (wall-clock) time; process_cpu_ms: CPU
// time of all the process's threads per execution (on a host with no idle core the threads
// only share it, so compare the two: on should cost no more CPU than off). The ratio table prints
// on / off (the speed-up; at most 2 with two cores, less on a loaded host) and checks that both
// runs gave the same simulated time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();
constexpr int kMatmuls = 64;

std::vector<std::string> CoreProgram(int core, bool mixed) {
  const std::string in = "var" + std::to_string(1 + core);
  std::string sp = ".engine sp\n";
  sp += "dma_copy dst=sbuf[p0:128, 0 + [128 x 1]] bf16 src=hbm[" + in +
        " + 0, [128 x 128, 128 x 1]] bf16 queue=0 then S[1] += 1 @complete\n";
  sp += "dma_copy dst=sbuf[p0:128, 8192 + [512 x 1]] bf16 src=hbm[" + in +
        " + 32768, [128 x 512, 512 x 1]] bf16 queue=1 then S[1] += 1 @complete\n";
  sp += "notify_end\n";
  std::string pe = ".engine pe\nwait S[1] >= 2 nop\n";
  std::string act = ".engine act\n", dve = ".engine dve\n";
  for (int i = 0; i < kMatmuls; ++i) {
    const std::string bank = std::to_string(i % 8);
    pe += "load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16\n";
    pe += "multiply_moving dst=psum[p0:128, bank" + bank +
          " + [512 x 1]] fp32 moving=sbuf[p0:128, 8192 + [512 x 1]] bf16" +
          (i < 8 ? " first" : " accumulate") + (i + 8 >= kMatmuls ? " last" : "") +
          (mixed && i % 8 == 7 ? " then S[2] += 1 @complete" : "") + "\n";
    if (mixed && i % 8 == 7) {
      const std::string k = std::to_string(i / 8 + 1);
      act += "wait S[2] >= " + k +
             " tensor_copy dst=sbuf[p0:128, 16384 + [512 x 1]] bf16 in=psum[p0:128, bank0 + "
             "[512 x 1]] fp32\n";
      dve += "wait S[2] >= " + k +
             " tensor_tensor dst=sbuf[p0:128, 20480 + [512 x 1]] fp32 in0=psum[p0:128, bank1 + "
             "[512 x 1]] fp32 in1=sbuf[p0:128, 40960 + [512 x 1]] fp32 op0=add\n";
    }
  }
  pe += "notify_end\n";
  act += "barrier\nnotify_end\n";
  dve += "barrier\nnotify_end\n";
  return {sp, pe, act, dve};
}

std::map<int64_t, DurationPs> simulated_ps;  // per argument, for the ratio table's check
std::map<int64_t, double> process_cpu_ms;    // per argument: CPU time of all threads per run

double ProcessCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

void BM_Lnc2(benchmark::State& state) {
  const bool on = state.range(0) % 2 == 1;
  const bool mixed = state.range(0) >= 2;
  reference::VectorHbm hbm;
  std::vector<std::vector<isa::Program>> programs(2);
  std::vector<std::unique_ptr<reference::CoreState>> states;
  std::vector<CoreRun> runs(2);
  for (int c = 0; c < 2; ++c) {
    std::vector<uint8_t> bytes(32768 + 128 * 512 * 2);
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      bytes[i] = uint8_t(i * 37 + c);
      bytes[i + 1] = uint8_t(0x3C + (i / 2) % 3);  // bf16 in about [0.008, 0.06]
    }
    hbm.vars[1 + uint32_t(c)] = std::move(bytes);
    for (const std::string& text : CoreProgram(c, mixed))
      programs[size_t(c)].push_back(isa::ParseProgram(text).value());
    states.push_back(std::make_unique<reference::CoreState>(isa::LimitsFor(kChip)));
    runs[size_t(c)].core = c;
    for (const isa::Program& p : programs[size_t(c)]) runs[size_t(c)].programs[int(p.engine)] = &p;
    runs[size_t(c)].state = states.back().get();
    runs[size_t(c)].hbm = &hbm;
  }
  ExecuteOptions options;
  options.host_threads = on;
  ExecutionResult result;
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    StatusOr<ExecutionResult> r = Execute(kChip, runs, options);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    result = *r;
  }
  process_cpu_ms[state.range(0)] =
      (ProcessCpuSeconds() - cpu_start) * 1e3 / double(std::max<int64_t>(1, state.iterations()));
  state.counters["process_cpu_ms"] = process_cpu_ms[state.range(0)];
  uint64_t flops = 0;
  for (const CoreStats& c : result.cores) flops += c.engines[int(isa::Engine::kPe)].flops;
  state.SetItemsProcessed(int64_t(state.iterations() * flops));
  state.counters["deferred"] = double(result.deferred_effects);
  simulated_ps[state.range(0)] = result.duration_ps;
}
BENCHMARK(BM_Lnc2)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

class HostParallelReporter : public trnsim::bench::RatioReporter {
 public:
  explicit HostParallelReporter(OutputOptions options)
      : RatioReporter(options, "items_per_second") {}

 protected:
  void PrintRatios() override {
    std::printf("\nLNC=2 execution, host threads on vs off (host time ratio, same process):\n");
    const char* what[] = {"matmuls only", "matmuls + ACT/DVE reading PSUM"};
    for (int64_t k = 0; k < 2; ++k) {
      const double off = Mean("BM_Lnc2", 2 * k), on = Mean("BM_Lnc2", 2 * k + 1);
      if (off <= 0 || on <= 0) continue;
      const bool same = simulated_ps[2 * k] == simulated_ps[2 * k + 1];
      std::printf("  %-32s %6.2f vs %6.2f GFLOP/s: %.2fx (simulated time %s)\n", what[k], on / 1e9,
                  off / 1e9, on / off, same ? "identical" : "DIFFERS");
      std::printf("  %-32s CPU time of all threads per execution: %.1f ms on, %.1f ms off\n", "",
                  process_cpu_ms[2 * k + 1], process_cpu_ms[2 * k]);
    }
  }
};

}  // namespace
}  // namespace trnsim::simulator::core

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  trnsim::simulator::core::HostParallelReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
