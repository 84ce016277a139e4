// collective_bench: (a) the simulated all-reduce bus bandwidth of the collective cost model on
// a trn2.48xlarge, 1 KiB .. 1 GiB, for several rank placements, as a ratio to the chip's
// NeuronLink ports one way at the collective rate; (b) the host wall time of one all-reduce
// through the CollectiveHub with real data on real threads, next to the host's own limit (one
// thread summing the same inputs) and to the simulated duration; (c) the first execution of a
// 16-rank all-reduce program in one process through the chip model — each rank's core state
// created at first use, as the sim driver does — its host time and peak RSS, next to the second
// execution of the same program in the same run. See bench/README.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/collective/collective_cost.h"
#include "simulator/collective/collective_hub.h"
#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {
namespace {

const InstanceSpec& Trn2() { return *FindInstanceSpec("trn2.48xlarge").value(); }

// A chip's four NeuronLink ports one way at the rate collective traffic gets
// (ChipSpec::cc_link_bytes_per_s_per_direction): what a whole-torus ring approaches.
double CollectiveLinkOneWay() {
  const ChipSpec& chip = *Trn2().chip;
  return double(chip.cc_link_bytes_per_s_per_direction) * chip.neuronlink_ports;
}

// Placements. LNC 2: a chip holds four ranks, on physical cores 0, 2, 4, 6; chips in device
// order (0..3 is one torus row).
struct Placement {
  const char* name;
  int ranks;
  int chips;
};
constexpr Placement kPlacements[] = {
    {"2r_1chip", 2, 1},    {"2r_2chips", 2, 2},     {"4r_1chip", 4, 1},      {"4r_4chips", 4, 4},
    {"16r_4chips", 16, 4}, {"16r_16chips", 16, 16}, {"64r_16chips", 64, 16},
};
constexpr int kPlacementCount = sizeof(kPlacements) / sizeof(kPlacements[0]);

std::vector<RankPlacement> Members(const Placement& p) {
  std::vector<RankPlacement> m;
  const int per_chip = p.ranks / p.chips;
  for (int c = 0; c < p.chips; ++c) {
    for (int k = 0; k < per_chip; ++k) m.push_back({c, 2 * k});
  }
  return m;
}

void BM_SimBusBw(benchmark::State& state, Placement p) {
  const std::vector<RankPlacement> members = Members(p);
  const uint64_t bytes = uint64_t(state.range(0));
  CollectiveCost cost;
  for (auto _ : state) {
    auto c = EstimateCollective(Trn2(), CollectiveKind::kAllReduce, bytes, members);
    if (!c.ok()) return state.SkipWithError(c.status().ToString().c_str());
    cost = *c;
    benchmark::DoNotOptimize(cost.duration_ps);
  }
  state.counters["bus_bytes_per_s"] = cost.bus_bytes_per_s;
  state.counters["sim_us"] = double(cost.duration_ps) / 1e6;
  state.counters["vs_link"] = cost.bus_bytes_per_s / CollectiveLinkOneWay();
}

// (b): one all-reduce of `bytes` fp32 per rank among `ranks` threads (one per chip, ranks 4
// per chip as above); the benchmark thread is rank 0, the others loop in step with it.
constexpr int kHubIterations = 40;

void BM_Hub(benchmark::State& state, int ranks) {
  const uint64_t bytes = uint64_t(state.range(0));
  CollectiveHub hub(Trn2());
  std::vector<std::vector<uint8_t>> inputs(ranks, std::vector<uint8_t>(bytes, 0));
  for (int r = 0; r < ranks; ++r) {
    auto* f = reinterpret_cast<float*>(inputs[r].data());
    for (uint64_t i = 0; i < bytes / 4; ++i) f[i] = float(r) + 0.25f * float(i % 7);
  }
  auto call = [&](int r) {
    CollectiveCall c;
    c.dtype = isa::Dtype::kFloat32;
    c.input = inputs[r];
    c.output_bytes = bytes;
    c.physical_core = (r % 4) * 2;
    return c;
  };
  const int64_t iterations = state.max_iterations;
  std::atomic<bool> failed{false};
  std::vector<std::thread> others;
  for (int r = 1; r < ranks; ++r) {
    others.emplace_back([&, r] {
      auto port = hub.Attach({"bench", uint32_t(r), uint32_t(ranks), r / 4, 0}, {});
      for (int64_t i = 0; i < iterations; ++i) {
        if (!port->Run(call(r)).ok()) failed = true;
      }
    });
  }
  auto port = hub.Attach({"bench", 0, uint32_t(ranks), 0, 0}, {});
  TimePs simulated = 0;
  for (auto _ : state) {
    auto out = port->Run(call(0));
    if (!out.ok()) {
      failed = true;
      break;
    }
    simulated = out->complete_ps;
  }
  for (auto& t : others) t.join();
  if (failed) return state.SkipWithError("a rank failed");
  state.SetItemsProcessed(state.iterations());
  state.counters["sim_us"] = double(simulated) / 1e6;
}

// The host's limit for (b): one thread summing `ranks` fp32 inputs of `bytes` each.
void BM_Reduce(benchmark::State& state, int ranks) {
  const uint64_t n = uint64_t(state.range(0)) / 4;
  std::vector<std::vector<float>> inputs(ranks, std::vector<float>(n, 1.5f));
  std::vector<float> acc(n);
  for (auto _ : state) {
    acc = inputs[0];
    for (int r = 1; r < ranks; ++r) {
      for (uint64_t i = 0; i < n; ++i) acc[i] += inputs[r][i];
    }
    benchmark::DoNotOptimize(acc.data());
  }
  state.SetItemsProcessed(state.iterations());
}

// ---- (c) the first execution of a 16-rank all-reduce ---------------------------------------

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM"), or -1.
int64_t StatusKiB(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(status, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::atoll(line.c_str() + n + 1);
  return -1;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so the next reading is this phase's peak.
bool ResetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  return bool(clear.flush());
}

constexpr int kAllReduceRanks = 16;  // two trn2 chips at LNC 1, one rank per physical core

// One rank's kernel: a [128, 64] fp32 tile HBM -> SBUF, doubled on DVE, back to HBM, then
// all-reduced across the world into another HBM variable.
constexpr const char* kRankSp =
    ".engine sp\n"
    "dma_copy dst=sbuf[p0:128, 0 + [64 x 1]] fp32 src=hbm[var1 + 0, [128 x 64, 64 x 1]] fp32 "
    "queue=1 then S[0] += 1 @complete\n"
    "wait S[1] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 64, 64 x 1]] fp32 "
    "src=sbuf[p0:128, 256 + [64 x 1]] fp32 queue=1 then S[2] += 1 @complete\n"
    "wait S[2] >= 1 collective dst=hbm[var3 + 0, [128 x 64, 64 x 1]] fp32 "
    "src=hbm[var2 + 0, [128 x 64, 64 x 1]] fp32 group=0 stride=1 op0=add kind=all_reduce id=1\n"
    "barrier\n"
    "notify_end\n";
constexpr const char* kRankDve =
    ".engine dve\n"
    "wait S[0] >= 1 tensor_tensor dst=sbuf[p0:128, 256 + [64 x 1]] fp32 "
    "in0=sbuf[p0:128, 0 + [64 x 1]] fp32 in1=sbuf[p0:128, 0 + [64 x 1]] fp32 op0=add "
    "then S[1] += 1 @complete\n"
    "notify_end\n";

struct Rank {
  std::unique_ptr<reference::CoreState> state;  // made at first use, as driver/sim does
  reference::VectorHbm hbm;
};

// Runs execution `sequence` of the program on every rank, one host thread per rank (each rank's
// Execute blocks in the hub until all have arrived, as ranks' executions do). False on failure.
bool RunAllReduce(CollectiveHub& hub, const std::vector<isa::Program>& programs,
                  std::vector<Rank>& ranks, uint64_t sequence) {
  const ChipSpec& chip = *Trn2().chip;
  std::atomic<bool> ok{true};
  std::vector<std::thread> threads;
  for (int r = 0; r < kAllReduceRanks; ++r) {
    threads.emplace_back([&, r] {
      Rank& rank = ranks[size_t(r)];
      if (rank.state == nullptr)
        rank.state = std::make_unique<reference::CoreState>(isa::LimitsFor(chip));
      const int per_chip = chip.physical_cores;
      auto port = hub.Attach(
          {"first_exec", uint32_t(r), uint32_t(kAllReduceRanks), r / per_chip, sequence}, {});
      core::CoreRun run;
      run.core = r % per_chip;
      for (const isa::Program& p : programs) run.programs[int(p.engine)] = &p;
      run.state = rank.state.get();
      run.hbm = &rank.hbm;
      core::ExecuteOptions options;
      options.collectives = port.get();
      StatusOr<core::ExecutionResult> result =
          core::Execute(chip, std::span<const core::CoreRun>(&run, 1), options);
      if (!result.ok()) {
        std::fprintf(stderr, "rank %d: %s\n", r, result.status().ToString().c_str());
        ok = false;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return ok;
}

void BM_FirstAllReduce(benchmark::State& state) {
  std::vector<isa::Program> programs = {isa::ParseProgram(kRankSp).value(),
                                        isa::ParseProgram(kRankDve).value()};
  for (auto _ : state) {
    CollectiveHub hub(Trn2());
    std::vector<Rank> ranks(kAllReduceRanks);
    for (int r = 0; r < kAllReduceRanks; ++r) {
      std::vector<uint8_t>& in = ranks[size_t(r)].hbm.vars[1];
      in.resize(128 * 64 * 4);
      for (size_t i = 0; i < in.size() / 4; ++i) {
        const float v = float(r) + 0.25f * float(i % 7);
        std::memcpy(&in[i * 4], &v, 4);
      }
      ranks[size_t(r)].hbm.vars[2].resize(in.size());
      ranks[size_t(r)].hbm.vars[3].resize(in.size());
    }
    const int64_t rss_before = StatusKiB("VmRSS");
    if (!ResetPeakRss()) return state.SkipWithError("cannot reset VmHWM (/proc/self/clear_refs)");
    const auto t0 = std::chrono::steady_clock::now();
    if (!RunAllReduce(hub, programs, ranks, 0)) return state.SkipWithError("a rank failed");
    const auto t1 = std::chrono::steady_clock::now();
    const int64_t peak = StatusKiB("VmHWM");
    if (!RunAllReduce(hub, programs, ranks, 1)) return state.SkipWithError("a rank failed");
    const auto t2 = std::chrono::steady_clock::now();
    const double first = std::chrono::duration<double>(t1 - t0).count();
    const double second = std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(first);
    state.counters["first_ms"] = first * 1e3;
    state.counters["second_ms"] = second * 1e3;
    state.counters["first_per_second"] = first / second;
    state.counters["peak_rss_mib"] = double(peak) / 1024;
    state.counters["peak_growth_mib"] = double(peak - rss_before) / 1024;
  }
}

constexpr int64_t kHubSizes[] = {4 << 10, 64 << 10, 1 << 20, 4 << 20};

class CollectiveReporter : public bench::RatioReporter {
 public:
  explicit CollectiveReporter(OutputOptions options) : RatioReporter(options, "bus_bytes_per_s") {}

 protected:
  void PrintRatios() override {
    const double link = CollectiveLinkOneWay();
    std::printf(
        "\n(a) simulated all_reduce bus bandwidth on trn2.48xlarge, GB/s "
        "(ratio to the chip's 4 links one way at the collective rate, %.0f GB/s):\n",
        link / 1e9);
    std::printf("  %-9s", "size");
    for (const Placement& p : kPlacements) std::printf(" %18s", p.name);
    std::printf("\n");
    for (int64_t bytes = 1 << 10; bytes <= (int64_t(1) << 30); bytes *= 4) {
      std::printf("  %-9s", SizeName(bytes).c_str());
      for (const Placement& p : kPlacements) {
        const double bw = Mean(std::string("SimBusBw_") + p.name, bytes);
        std::printf(" %10.1f (%5.3f)", bw / 1e9, bw / link);
      }
      std::printf("\n");
    }
    std::printf("\n(b) all_reduce fp32 through the hub (threads as ranks), per collective:\n");
    std::printf("  %-6s %-8s %10s %16s %10s %14s %15s\n", "ranks", "size", "host us",
                "1-thread sum us", "host/sum", "simulated us", "host/simulated");
    for (int ranks : {4, 16}) {
      for (int64_t bytes : kHubSizes) {
        const std::string size = std::to_string(bytes);
        const double hub = Items("Hub" + std::to_string(ranks) + "/" + size +
                                 "/iterations:" + std::to_string(kHubIterations) + "/real_time");
        const double sum = Items("Reduce" + std::to_string(ranks) + "/" + size);
        if (hub <= 0) continue;
        const double sim_us = sim_us_[{ranks, bytes}];
        std::printf("  %-6d %-8s %10.1f %16.1f %10.2f %14.2f %15.1f\n", ranks,
                    SizeName(bytes).c_str(), 1e6 / hub, sum > 0 ? 1e6 / sum : 0,
                    sum > 0 ? sum / hub : 0, sim_us, sim_us > 0 ? (1e6 / hub) / sim_us : 0);
      }
    }
    if (!first_["first_ms"].empty()) {
      auto mean = [&](const char* c) {
        double t = 0;
        for (double v : first_[c]) t += v;
        return t / double(first_[c].size());
      };
      std::printf(
          "\n(c) %d-rank all_reduce program, one process (mean of %zu): first execution %.1f ms, "
          "second %.1f ms (first/second %.1f); peak RSS during the first %.0f MiB (+%.0f MiB "
          "over the RSS before it)\n",
          kAllReduceRanks, first_["first_ms"].size(), mean("first_ms"), mean("second_ms"),
          mean("first_ms") / mean("second_ms"), mean("peak_rss_mib"), mean("peak_growth_mib"));
    }
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    RatioReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.benchmark_name().rfind("FirstAllReduce", 0) == 0 && !run.error_occurred &&
          run.run_type == Run::RT_Iteration) {
        for (const char* c : {"first_ms", "second_ms", "peak_rss_mib", "peak_growth_mib"})
          first_[c].push_back(run.counters.at(c).value);
      }
    }
    for (const Run& run : runs) {
      auto it = run.counters.find("sim_us");
      const std::string name = run.benchmark_name();
      if (it == run.counters.end() || name.rfind("Hub", 0) != 0) continue;
      const int ranks = std::atoi(name.c_str() + 3);
      const int64_t bytes = std::atoll(name.c_str() + name.find('/') + 1);
      sim_us_[{ranks, bytes}] = it->second.value;
    }
  }

 private:
  static std::string SizeName(int64_t bytes) {
    if (bytes >= (1 << 30)) return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (1 << 20)) return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes >> 10) + " KiB";
  }
  std::map<std::pair<int, int64_t>, double> sim_us_;
  std::map<std::string, std::vector<double>> first_;
};

}  // namespace
}  // namespace trnsim::simulator::collective

int main(int argc, char** argv) {
  using namespace trnsim::simulator::collective;  // NOLINT: registration only
  for (const Placement& p : kPlacements) {
    benchmark::RegisterBenchmark((std::string("SimBusBw_") + p.name).c_str(), BM_SimBusBw, p)
        ->RangeMultiplier(4)
        ->Range(1 << 10, 1 << 30)
        ->Iterations(100);
  }
  for (int ranks : {4, 16}) {
    auto* hub =
        benchmark::RegisterBenchmark(("Hub" + std::to_string(ranks)).c_str(), BM_Hub, ranks);
    auto* sum =
        benchmark::RegisterBenchmark(("Reduce" + std::to_string(ranks)).c_str(), BM_Reduce, ranks);
    for (int64_t bytes : kHubSizes) {
      hub->Arg(bytes);
      sum->Arg(bytes);
    }
    hub->Iterations(kHubIterations)->UseRealTime();
  }
  benchmark::RegisterBenchmark("FirstAllReduce16", BM_FirstAllReduce)
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  CollectiveReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
