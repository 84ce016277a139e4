// The simulator's host speed on the biggest sample, through the public API, against the host's own
// single-threaded sgemm of the same shape in the same run (issue 21's first row):
//   Execute/0   nrt_execute of matmul_bf16_4096 (C[4096x4096] = A·B, bf16 in, 137 GFLOP) on
//               logical core 0 of a trn2.3xlarge, inputs uniform in (-1, 1)
//   Execute/1   the same with every other input element times 2^-64: products of two such are
//               subnormal in fp32, some below the 2^-149 grid (the PE kernel's rounded form;
//               before it, x86's microcode assists)
//   OpenBLAS/0  cblas_sgemm of [4096x4096]·[4096x4096] fp32 on one thread
// items_per_second = floating-point operations (2·4096³ per product) per wall-clock second; the
// CPU column is the whole process's CPU time (every thread). The summary prints Execute/OpenBLAS
// twice: by wall time (what a user waits; the PE kernel uses TRNSIM_PE_THREADS host threads, by
// default one per core) and by process CPU time (the work done, whatever the thread count; on a
// loaded host the fairer single-thread figure — run with TRNSIM_PE_THREADS=1 for it). One
// iteration each: an execution takes seconds.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"

namespace {

constexpr int64_t kN = 4096;
constexpr double kFlops = 2.0 * kN * kN * kN;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "nrt_matmul_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(NRT_STATUS status, const char* call) {
  if (status != NRT_SUCCESS) Die(std::string(call) + ": " + nrt_get_status_as_str(status));
}

uint16_t Bf16(float x) {  // round to nearest even; the inputs here are finite
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

// The model loaded once, its inputs and outputs bound by nrt_get_model_tensor_info's names.
class Client {
 public:
  Client() {
    setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);  // the sample is compiled for LNC=1
    setenv("NEURON_RT_LOG_LEVEL", "WARN", 0);
    Check(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init");
    std::ifstream file(TRNSIM_SAMPLES_DIR "/matmul_bf16_4096.neff", std::ios::binary);
    std::vector<char> neff((std::istreambuf_iterator<char>(file)), {});
    if (neff.empty()) Die("cannot read " TRNSIM_SAMPLES_DIR "/matmul_bf16_4096.neff");
    Check(nrt_load(neff.data(), neff.size(), 0, 1, &model_), "nrt_load");
    nrt_tensor_info_array_t* info = nullptr;
    Check(nrt_get_model_tensor_info(model_, &info), "nrt_get_model_tensor_info");
    Check(nrt_allocate_tensor_set(&inputs_), "nrt_allocate_tensor_set");
    Check(nrt_allocate_tensor_set(&outputs_), "nrt_allocate_tensor_set");
    for (uint64_t i = 0; i < info->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info->tensor_array[i];
      nrt_tensor_t* tensor = nullptr;
      Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t.size, t.name, &tensor),
            "nrt_tensor_allocate");
      const bool input = t.usage == NRT_TENSOR_USAGE_INPUT;
      Check(nrt_add_tensor_to_tensor_set(input ? inputs_ : outputs_, t.name, tensor),
            "nrt_add_tensor_to_tensor_set");
      (input ? in_ : out_).push_back({tensor, t.size});
    }
    nrt_free_model_tensor_info(info);
    if (in_.size() != 2 || out_.size() != 1) Die("matmul_bf16_4096 is not two inputs, one output");
  }
  ~Client() { nrt_close(); }

  // Fills both inputs with bf16 values uniform in (-1, 1), every other one times 2^-64 if `tiny`.
  void Fill(bool tiny) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (const Bound& b : in_) {
      std::vector<uint16_t> host(b.bytes / 2);
      for (size_t e = 0; e < host.size(); ++e)
        host[e] = Bf16(tiny && e % 2 ? dist(rng) * 0x1p-64f : dist(rng));
      Check(nrt_tensor_write(b.tensor, host.data(), 0, b.bytes), "nrt_tensor_write");
    }
  }
  void Execute() { Check(nrt_execute(model_, inputs_, outputs_), "nrt_execute"); }

 private:
  struct Bound {
    nrt_tensor_t* tensor;
    size_t bytes;
  };
  nrt_model_t* model_ = nullptr;
  nrt_tensor_set_t *inputs_ = nullptr, *outputs_ = nullptr;
  std::vector<Bound> in_, out_;
};

Client& TheClient() {
  static Client client;
  return client;
}

void BM_Execute(benchmark::State& state) {
  Client& c = TheClient();
  c.Fill(state.range(0) == 1);
  for (auto _ : state) c.Execute();
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kFlops));
}

void BM_OpenBlas(benchmark::State& state) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(kN * kN), b(kN * kN), c(kN * kN);
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(kN), int(kN), int(kN), 1.0f,
                a.data(), int(kN), b.data(), int(kN), 0.0f, c.data(), int(kN));
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kFlops));
}

class MatmulRatioReporter : public trnsim::bench::RatioReporter {
 public:
  explicit MatmulRatioReporter(OutputOptions options)
      : RatioReporter(options, "items_per_second") {}

  void ReportRuns(const std::vector<Run>& runs) override {
    RatioReporter::ReportRuns(runs);
    for (const Run& run : runs)
      if (!run.error_occurred && run.run_type == Run::RT_Iteration && run.cpu_accumulated_time > 0)
        cpu_flops_[run.benchmark_name()] =
            double(run.iterations) * kFlops / run.cpu_accumulated_time;
  }

 protected:
  void PrintRatios() override {
    const double blas = Mean("OpenBLAS", 0), blas_cpu = CpuFlops("OpenBLAS/0");
    if (blas <= 0) return;
    std::printf(
        "\nmatmul_bf16_4096 through nrt_execute vs single-threaded OpenBLAS sgemm "
        "(GFLOP per wall second | per process CPU second):\n");
    const char* what[] = {"inputs uniform in (-1, 1)", "half the inputs times 2^-64"};
    for (int64_t arg = 0; arg < 2; ++arg) {
      const double fast = Mean("Execute", arg);
      const double fast_cpu = CpuFlops("Execute/" + std::to_string(arg));
      if (fast > 0 && blas_cpu > 0)
        std::printf("  %-28s wall %6.2f vs %6.2f: %.2fx | CPU %6.2f vs %6.2f: %.2fx\n", what[arg],
                    fast / 1e9, blas / 1e9, fast / blas, fast_cpu / 1e9, blas_cpu / 1e9,
                    fast_cpu / blas_cpu);
    }
  }

 private:
  // FLOP per process CPU second of the benchmark whose name starts with `prefix`, or 0.
  double CpuFlops(const std::string& prefix) const {
    for (const auto& [name, flops] : cpu_flops_)
      if (name.rfind(prefix, 0) == 0) return flops;
    return 0;
  }
  std::map<std::string, double> cpu_flops_;
};

}  // namespace

int main(int argc, char** argv) {
  openblas_set_num_threads(1);
  benchmark::RegisterBenchmark("Execute", BM_Execute)
      ->Arg(0)
      ->Arg(1)
      ->Iterations(1)
      ->UseRealTime()
      ->MeasureProcessCPUTime()
      ->Unit(benchmark::kSecond);
  benchmark::RegisterBenchmark("OpenBLAS", BM_OpenBlas)
      ->Arg(0)
      ->Iterations(1)
      ->UseRealTime()
      ->MeasureProcessCPUTime()
      ->Unit(benchmark::kSecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  MatmulRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
