// The load path of a big program through the public NRT API, in-process: nrt_load + the first
// nrt_execute of a NEFF of 10^6 small instructions, next to the host's floor for the same bytes
// measured in the same run.
//   LoadExecute/<n>    nrt_load, nrt_execute once, nrt_unload of a NEFF (built here with the
//                      kernel builder) whose DVE stream holds n one-operand memsets of a [1, 8]
//                      fp32 tile (104-byte records), then a DMA of the tile to the output.
//                      Counters: load_s, execute_s (host seconds of each call) and
//                      peak_rss_growth_MB (VmHWM after the first execute minus VmRSS before
//                      the load; the peak is reset with /proc/self/clear_refs first),
//                      load_peak_MB (the same, read right after nrt_load) and
//                      held_after_load_MB (VmRSS right after nrt_load minus VmRSS before it:
//                      what the loaded model keeps).
//   MemcpyStreams/<n>  the floor of any load: one memcpy of the NEFF's instruction-stream bytes
//                      (uncompressed) into a fresh buffer.
// The summary prints both in seconds and their ratio. Each iteration is one whole cycle; run
// with --benchmark_repetitions=N for steadier figures (the summary averages them).
#include <benchmark/benchmark.h>
#include <nrt/nrt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/process_memory.h"
#include "bench/ratio_reporter.h"
#include "runtime/neff/neff_io.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace {

constexpr int kInstructions = 1'000'000;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "load_path_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(NRT_STATUS status, const char* call) {
  if (status != NRT_SUCCESS) Die(std::string(call) + ": " + nrt_get_status_as_str(status));
}

struct BigNeff {
  std::vector<uint8_t> bytes;  // the NEFF file
  uint64_t stream_bytes = 0;   // its engine streams' bytes, uncompressed
};

// n DVE memsets of one [1, 8] fp32 tile (value i), then out <- tile on SP queue 0.
BigNeff MakeNeff(int n) {
  using trnsim::isa::Dtype;
  trnsim::kb::KernelBuilder k({"load_path", "trn2", 1});
  trnsim::kb::HbmTensor out = k.AddOutput("out", Dtype::kFloat32, {1, 8}).value();
  trnsim::kb::Core& core = k.core(0);
  trnsim::kb::Tile tile = core.AllocSbuf("t", Dtype::kFloat32, 1, 8).value();
  trnsim::kb::InstRef last;
  for (int i = 0; i < n; ++i) last = core.dve().Memset(tile.ap(), static_cast<float>(i));
  trnsim::kb::InstRef store = core.sp().DmaCopy(out.Block(0, 1, 0, 8), tile.ap(), 0);
  k.Depend(store, last);
  trnsim::StatusOr<trnsim::neff::Neff> neff = k.Build();
  if (!neff.ok()) Die("building the NEFF: " + neff.status().message());
  BigNeff big;
  for (const auto& subgraph : neff->subgraphs)
    for (const auto& engine : subgraph.engines) big.stream_bytes += engine.instructions.size();
  trnsim::StatusOr<std::vector<uint8_t>> bytes = trnsim::neff::WriteNeff(*neff);
  if (!bytes.ok()) Die("writing the NEFF: " + bytes.status().message());
  big.bytes = std::move(*bytes);
  return big;
}

const BigNeff& TheNeff(int n) {
  static std::map<int, BigNeff> cache;
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, MakeNeff(n)).first;
  return it->second;
}

using trnsim::bench::ResetPeakRss;
using trnsim::bench::StatusKb;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// nrt_init once per process (the runtime of a CI job), closed at exit.
void InitRuntime() {
  static const bool initialised = [] {
    setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
    setenv("NEURON_RT_NUM_CORES", "1", 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);  // the NEFF is an LNC=1 one
    Check(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init");
    std::atexit(nrt_close);
    return true;
  }();
  (void)initialised;
}

void BM_LoadExecute(benchmark::State& state) {
  InitRuntime();
  const int n = static_cast<int>(state.range(0));
  const BigNeff& neff = TheNeff(n);
  double load_s = 0, execute_s = 0, growth_mb = 0, load_growth_mb = 0, held_mb = 0;
  for (auto _ : state) {
    const uint64_t rss_before_kb = StatusKb("VmRSS");
    if (!ResetPeakRss()) {
      state.SkipWithError("cannot reset VmHWM (/proc/self/clear_refs)");
      break;
    }
    auto start = std::chrono::steady_clock::now();
    nrt_model_t* model = nullptr;
    Check(nrt_load(neff.bytes.data(), neff.bytes.size(), 0, 1, &model), "nrt_load");
    load_s += SecondsSince(start);
    load_growth_mb += static_cast<double>(StatusKb("VmHWM") - rss_before_kb) / 1024.0;
    held_mb += (static_cast<double>(StatusKb("VmRSS")) - static_cast<double>(rss_before_kb)) / 1024;
    nrt_tensor_t* out = nullptr;
    nrt_tensor_set_t* inputs = nullptr;
    nrt_tensor_set_t* outputs = nullptr;
    Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8 * sizeof(float), "out", &out),
          "nrt_tensor_allocate");
    Check(nrt_allocate_tensor_set(&inputs), "nrt_allocate_tensor_set");
    Check(nrt_allocate_tensor_set(&outputs), "nrt_allocate_tensor_set");
    Check(nrt_add_tensor_to_tensor_set(outputs, "out", out), "nrt_add_tensor_to_tensor_set");
    start = std::chrono::steady_clock::now();
    Check(nrt_execute(model, inputs, outputs), "nrt_execute");
    execute_s += SecondsSince(start);
    growth_mb += static_cast<double>(StatusKb("VmHWM") - rss_before_kb) / 1024.0;
    float result[8] = {};
    Check(nrt_tensor_read(out, result, 0, sizeof(result)), "nrt_tensor_read");
    for (float v : result) {
      if (v != static_cast<float>(n - 1)) Die("wrong output " + std::to_string(v));
    }
    nrt_destroy_tensor_set(&inputs);
    nrt_destroy_tensor_set(&outputs);
    nrt_tensor_free(&out);
    nrt_unload(model);
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["load_s"] = load_s / iterations;
  state.counters["execute_s"] = execute_s / iterations;
  state.counters["peak_rss_growth_MB"] = growth_mb / iterations;
  state.counters["load_peak_MB"] = load_growth_mb / iterations;
  state.counters["held_after_load_MB"] = held_mb / iterations;
  state.counters["stream_MB"] = static_cast<double>(neff.stream_bytes) / (1 << 20);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_LoadExecute)
    ->Arg(kInstructions)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

void BM_MemcpyStreams(benchmark::State& state) {
  const BigNeff& neff = TheNeff(static_cast<int>(state.range(0)));
  std::vector<uint8_t> src(neff.stream_bytes, 0x5A);
  for (auto _ : state) {
    std::vector<uint8_t> dst(src.size());
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_MemcpyStreams)->Arg(kInstructions)->Unit(benchmark::kMillisecond)->UseRealTime();

class LoadPathRatios : public trnsim::bench::RatioReporter {
 public:
  using RatioReporter::RatioReporter;

 protected:
  void PrintRatios() override {
    const std::string arg = std::to_string(kInstructions);
    const double load = Items("BM_LoadExecute/" + arg + "/iterations:1/real_time");
    const double copy = Items("BM_MemcpyStreams/" + arg + "/real_time");
    if (load <= 0 || copy <= 0) return;
    std::printf(
        "\nnrt_load + first nrt_execute of %d instructions vs one memcpy of its stream bytes, "
        "same run:\n  load+execute %.3f s, memcpy %.4f s: ratio memcpy/load+execute %.5f "
        "(x%.0f)\n",
        kInstructions, 1 / load, 1 / copy, load / copy, copy / load);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  LoadPathRatios reporter(benchmark::ConsoleReporter::OO_Defaults, "items_per_second");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
