// collective_bench: (a) the simulated all-reduce bus bandwidth of the collective cost model on
// a trn2.48xlarge, 1 KiB .. 1 GiB, for several rank placements, as a ratio to the chip's
// NeuronLink ports one way at the collective rate; (b) the host wall time of one all-reduce
// through the CollectiveHub with real data on real threads, next to the host's own limit (one
// thread summing the same inputs) and to the simulated duration. See bench/README.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/collective/collective_cost.h"
#include "simulator/collective/collective_hub.h"
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
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    RatioReporter::ReportRuns(runs);
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
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  CollectiveReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
