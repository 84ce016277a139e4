// The first execution of a 16-rank all-reduce in one process, through the public NRT API, as a
// framework runs a collective job with one thread per rank (tests/api/cc_rank.c "threads"):
// nrt_init on a trn2.48xlarge with logical cores 0-15 visible (LNC 2: four ranks on each of
// chips 0-3), the allreduce_fp32_lnc2 sample (one SP `collective` all-reducing a [128, 1024]
// fp32 input into the output, built here with the sample generator) loaded 16 times with
// nrt_load_collectives (rank r on logical core r), then every rank's nrt_execute from its own
// thread, all released at once, twice.
//   FirstAllReduce16   one iteration is the whole job: load the 16 ranks, execute twice,
//                      check every output element bit for bit (the exact sum), unload.
//                      Counters: first_execute_ms / second_execute_ms (host wall time from the
//                      release of the 16 threads to the return of the last nrt_execute),
//                      peak_rss_growth_MB (VmHWM after the first execution minus VmRSS before
//                      it; the peak reset with /proc/self/clear_refs first), peak_rss_MB (that
//                      VmHWM: the process's peak over the first execution) and load_rss_MB
//                      (VmRSS after the 16 loads minus before nrt_init); first_cpu_ms and
//                      second_cpu_ms, the process's CPU time over each execution (all threads:
//                      what a loaded machine does not stretch).
// The summary prints the first execution against the second, the baseline measured in the same
// run. Only the first iteration is cold (the cores' state is the device's and outlives a model),
// so run it with one iteration, as registered.
#include <benchmark/benchmark.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/process_memory.h"
#include "runtime/neff/neff_io.h"
#include "tools/samples/sample_kernels.h"

namespace {

constexpr int kRanks = 16;
constexpr const char* kSample = "allreduce_fp32_lnc2";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "nrt_collective_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(NRT_STATUS status, const std::string& call) {
  if (status != NRT_SUCCESS) Die(call + ": " + nrt_get_status_as_str(status));
}

std::vector<uint8_t> BuildNeff() {
  for (const trnsim::samples::SampleSpec& spec : trnsim::samples::CollectiveSamples()) {
    if (spec.name != kSample) continue;
    trnsim::kb::KernelBuilder k({spec.name, "trn2", spec.lnc});
    trnsim::Status generated = trnsim::samples::GenerateAllReduce(spec, k);
    if (!generated.ok()) Die("generating " + spec.name + ": " + generated.message());
    trnsim::StatusOr<trnsim::neff::Neff> neff = k.Build();
    if (!neff.ok()) Die("building " + spec.name + ": " + neff.status().message());
    trnsim::StatusOr<std::vector<uint8_t>> bytes = trnsim::neff::WriteNeff(*neff);
    if (!bytes.ok()) Die("writing " + spec.name + ": " + bytes.status().message());
    return std::move(*bytes);
  }
  Die(std::string("no sample ") + kSample);
}

using trnsim::bench::ResetPeakRss;
using trnsim::bench::StatusKb;

double Mb(uint64_t kb) { return static_cast<double>(kb) / 1024.0; }

struct Rank {
  nrt_model_t* model = nullptr;
  nrt_tensor_t* in = nullptr;
  nrt_tensor_t* out = nullptr;
  nrt_tensor_set_t* inputs = nullptr;
  nrt_tensor_set_t* outputs = nullptr;
  size_t bytes = 0;
  NRT_STATUS executed = NRT_SUCCESS;
};

void LoadRank(const std::vector<uint8_t>& neff, int r, Rank& rank) {
  const std::string who = "rank " + std::to_string(r) + ": ";
  Check(nrt_load_collectives(neff.data(), neff.size(), r, -1, static_cast<uint32_t>(r), kRanks,
                             &rank.model),
        who + "nrt_load_collectives");
  nrt_tensor_info_array_t* info = nullptr;
  Check(nrt_get_model_tensor_info(rank.model, &info), who + "nrt_get_model_tensor_info");
  if (info->tensor_count != 2) Die(who + "the sample has not one input and one output");
  Check(nrt_allocate_tensor_set(&rank.inputs), who + "nrt_allocate_tensor_set");
  Check(nrt_allocate_tensor_set(&rank.outputs), who + "nrt_allocate_tensor_set");
  for (size_t t = 0; t < info->tensor_count; ++t) {
    const nrt_tensor_info_t& ti = info->tensor_array[t];
    const bool input = ti.usage == NRT_TENSOR_USAGE_INPUT;
    nrt_tensor_t** slot = input ? &rank.in : &rank.out;
    Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, r, ti.size, ti.name, slot),
          who + "nrt_tensor_allocate");
    Check(nrt_add_tensor_to_tensor_set(input ? rank.inputs : rank.outputs, ti.name, *slot),
          who + "nrt_add_tensor_to_tensor_set");
    rank.bytes = ti.size;
  }
  nrt_free_model_tensor_info(info);
}

// Rank r's input in execution e: element i is (r + 1) * (e + 1) * (i % 251 + 1), so the sum over
// the world is exact in fp32 (cc_rank.c's data).
float InputValue(int r, int e, size_t i) {
  return static_cast<float>((r + 1) * (e + 1) * static_cast<int>(i % 251 + 1));
}

void WriteInput(int r, int e, Rank& rank) {
  std::vector<float> host(rank.bytes / sizeof(float));
  for (size_t i = 0; i < host.size(); ++i) host[i] = InputValue(r, e, i);
  Check(nrt_tensor_write(rank.in, host.data(), 0, rank.bytes), "nrt_tensor_write");
}

void CheckOutput(int r, int e, Rank& rank) {
  std::vector<float> host(rank.bytes / sizeof(float));
  Check(nrt_tensor_read(rank.out, host.data(), 0, rank.bytes), "nrt_tensor_read");
  const int world_sum = kRanks * (kRanks + 1) / 2;
  for (size_t i = 0; i < host.size(); ++i) {
    const float want = static_cast<float>(world_sum * (e + 1) * static_cast<int>(i % 251 + 1));
    if (std::memcmp(&host[i], &want, sizeof(want)) != 0) {
      Die("rank " + std::to_string(r) + " execution " + std::to_string(e) + ": element " +
          std::to_string(i) + " is " + std::to_string(host[i]) + ", expected " +
          std::to_string(want));
    }
  }
}

// The process's CPU seconds so far, every thread's.
double ProcessCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Timing {
  double wall_s = 0;
  double cpu_s = 0;
};

// Every rank's nrt_execute from its own thread, released together: the wall seconds from the
// release to the last return, and the process's CPU seconds over the same span (the figure a
// loaded machine does not stretch).
Timing ExecuteAll(std::vector<Rank>& ranks) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (Rank& rank : ranks) {
    threads.emplace_back([&ready, &go, &rank] {
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      rank.executed = nrt_execute(rank.model, rank.inputs, rank.outputs);
    });
  }
  while (ready.load() < kRanks) std::this_thread::yield();
  const double cpu_start = ProcessCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  go.store(true);
  for (std::thread& t : threads) t.join();
  Timing timing;
  timing.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timing.cpu_s = ProcessCpuSeconds() - cpu_start;
  for (size_t r = 0; r < ranks.size(); ++r)
    Check(ranks[r].executed, "rank " + std::to_string(r) + ": nrt_execute");
  return timing;
}

Timing g_first, g_second;

void BM_FirstAllReduce16(benchmark::State& state) {
  const std::vector<uint8_t> neff = BuildNeff();
  const uint64_t before_init_kb = StatusKb("VmRSS");
  setenv("TRNSIM_INSTANCE", "trn2.48xlarge", 1);
  setenv("NEURON_RT_VISIBLE_CORES", "0-15", 1);
  setenv("NEURON_RT_ROOT_COMM_ID", "127.0.0.1:29500", 1);
  setenv("NEURON_RT_EXEC_TIMEOUT", "120", 1);
  Check(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init");
  for (auto _ : state) {
    std::vector<Rank> ranks(kRanks);
    // Loaded one after another: a load restructures the runtime, which a rank waiting in a
    // collective holds shared (docs/collectives.md).
    for (int r = 0; r < kRanks; ++r) LoadRank(neff, r, ranks[size_t(r)]);
    const double load_rss_mb = Mb(StatusKb("VmRSS")) - Mb(before_init_kb);
    Timing timing[2];
    double growth_mb = 0, peak_mb = 0;
    for (int e = 0; e < 2; ++e) {
      for (int r = 0; r < kRanks; ++r) WriteInput(r, e, ranks[size_t(r)]);
      const uint64_t rss_before_kb = StatusKb("VmRSS");
      if (e == 0 && !ResetPeakRss()) {
        state.SkipWithError("cannot reset VmHWM (/proc/self/clear_refs)");
        break;
      }
      timing[e] = ExecuteAll(ranks);
      if (e == 0) {
        peak_mb = Mb(StatusKb("VmHWM"));
        growth_mb = peak_mb - Mb(rss_before_kb);
      }
      for (int r = 0; r < kRanks; ++r) CheckOutput(r, e, ranks[size_t(r)]);
    }
    state.SetIterationTime(timing[0].wall_s);
    state.counters["first_execute_ms"] = timing[0].wall_s * 1e3;
    state.counters["second_execute_ms"] = timing[1].wall_s * 1e3;
    state.counters["first_cpu_ms"] = timing[0].cpu_s * 1e3;
    state.counters["second_cpu_ms"] = timing[1].cpu_s * 1e3;
    state.counters["peak_rss_growth_MB"] = growth_mb;
    state.counters["peak_rss_MB"] = peak_mb;
    state.counters["load_rss_MB"] = load_rss_mb;
    g_first = timing[0];
    g_second = timing[1];
    for (Rank& rank : ranks) {
      nrt_destroy_tensor_set(&rank.inputs);
      nrt_destroy_tensor_set(&rank.outputs);
      nrt_tensor_free(&rank.in);
      nrt_tensor_free(&rank.out);
      nrt_unload(rank.model);
    }
  }
  nrt_close();
}
BENCHMARK(BM_FirstAllReduce16)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_second.wall_s > 0) {
    std::printf(
        "\n16-rank all-reduce through nrt_execute, one thread per rank, same run:\n"
        "  first execution %.1f ms wall (%.1f ms CPU), second %.1f ms wall (%.1f ms CPU): "
        "ratio second/first %.3f wall, %.3f CPU\n",
        g_first.wall_s * 1e3, g_first.cpu_s * 1e3, g_second.wall_s * 1e3, g_second.cpu_s * 1e3,
        g_second.wall_s / g_first.wall_s, g_second.cpu_s / g_first.cpu_s);
  }
  return 0;
}
