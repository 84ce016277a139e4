// Event throughput of the simulation kernel (simulator/sched/scheduler.h), events per host
// second, next to the host's own limit for the same work.
//
// The workload is the one engines produce: `N` components (N = 1, 64, 4096 pending events, so
// heaps of depth 0..12), each rescheduling itself after its own period with its id as priority.
// Two benchmarks run per N:
//   heap/<N>       a bare std::priority_queue of (time, priority, seq) keys: one pop + one push
//                  per event, no callback — the ceiling for any binary-heap scheduler
//   Scheduler/<N>  trnsim::simulator::Scheduler: Schedule + run a Callback per event
// plus Scheduler+cancel/<N>, where every event also schedules and cancels a timeout (the
// pattern of a DMA queue arming a watchdog). Each reports items_per_second = events run per host
// second; the summary prints Scheduler/heap ratios from this same run (1.00 = no overhead).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/sched/scheduler.h"

namespace trnsim::simulator {
namespace {

constexpr int64_t kComponents[] = {1, 64, 4096};
constexpr uint64_t kEventsPerIteration = 1 << 16;

DurationPs PeriodOf(uint32_t id) { return 400 + (id * 37) % 1000; }

void BM_BareHeap(benchmark::State& state) {
  struct Key {
    TimePs time;
    uint32_t prio;
    uint64_t seq;
    bool operator<(const Key& o) const {  // priority_queue is a max-heap: invert
      if (time != o.time) return time > o.time;
      if (prio != o.prio) return prio > o.prio;
      return seq > o.seq;
    }
  };
  const auto n = static_cast<uint32_t>(state.range(0));
  for (auto _ : state) {
    std::priority_queue<Key> heap;
    uint64_t seq = 0;
    for (uint32_t i = 0; i < n; ++i) heap.push({0, i, seq++});
    for (uint64_t e = 0; e < kEventsPerIteration; ++e) {
      Key k = heap.top();
      heap.pop();
      heap.push({k.time + PeriodOf(k.prio), k.prio, seq++});
    }
    benchmark::DoNotOptimize(heap.top());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kEventsPerIteration));
}

struct Ticker {
  Scheduler* s;
  uint32_t id;
  bool arm_timeout;
  void Tick() {
    if (arm_timeout) {  // arm a far watchdog, then disarm it: the common cancel pattern
      EventId timeout = s->ScheduleAfter(
          1'000'000'000, [] {}, id);
      s->Cancel(timeout);
    }
    s->ScheduleAfter(
        PeriodOf(id), [this] { Tick(); }, id);
  }
};

void RunScheduler(benchmark::State& state, bool arm_timeout) {
  const auto n = static_cast<uint32_t>(state.range(0));
  for (auto _ : state) {
    Scheduler s;
    std::vector<Ticker> tickers;
    tickers.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      tickers.push_back(Ticker{&s, i, arm_timeout});
      s.Schedule(
          0, [t = &tickers.back()] { t->Tick(); }, i);
    }
    RunResult r = s.RunUntilIdle(kEventsPerIteration);
    if (r.events_run != kEventsPerIteration) state.SkipWithError("scheduler ran dry");
    benchmark::DoNotOptimize(s.Now());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kEventsPerIteration));
}

void BM_Scheduler(benchmark::State& state) { RunScheduler(state, false); }
void BM_SchedulerCancel(benchmark::State& state) { RunScheduler(state, true); }

// The console table, then Scheduler/heap event-rate ratios from the same run.
class SchedulerRatioReporter : public bench::RatioReporter {
 public:
  explicit SchedulerRatioReporter(OutputOptions options)
      : RatioReporter(options, "items_per_second") {}

 protected:
  void PrintRatios() override {
    std::printf("\nEvents per host second, relative to a bare binary heap in this run:\n");
    std::printf("  %-6s %12s %12s %16s %10s %16s\n", "N", "heap Mev/s", "sched Mev/s",
                "sched+cancel", "sched/heap", "sched+cancel/heap");
    for (int64_t n : kComponents) {
      const double heap = Mean("heap", n);
      const double sched = Mean("Scheduler", n);
      const double cancel = Mean("Scheduler+cancel", n);
      if (heap <= 0) continue;  // filtered out
      std::printf("  %-6lld %12.1f %12.1f %16.1f %10.2f %16.2f\n", static_cast<long long>(n),
                  heap / 1e6, sched / 1e6, cancel / 1e6, sched / heap, cancel / heap);
    }
  }
};

}  // namespace
}  // namespace trnsim::simulator

int main(int argc, char** argv) {
  using namespace trnsim::simulator;  // NOLINT: registration only
  for (int64_t n : kComponents) {
    benchmark::RegisterBenchmark("heap", BM_BareHeap)->Arg(n);
    benchmark::RegisterBenchmark("Scheduler", BM_Scheduler)->Arg(n);
    benchmark::RegisterBenchmark("Scheduler+cancel", BM_SchedulerCancel)->Arg(n);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  SchedulerRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
