// nki_trace_bench: the host time to trace and build (no execution) a well-blocked 4096^3 bf16
// matmul NKI kernel (nki_trace_bench.py, run in an embedded Python interpreter), next to
// building the same-size matmul NEFF with the C++ kernel builder (the matmul_bf16 sample's
// generator, tools/samples/matmul.cc) in the same run. bench/README.md, "nki_trace_bench".
//
//   NkiTraceBuild/<n>       trace_and_build(n): trace + allocate + dependencies + lower + emit
//                           through the builder + write the NEFF (Python + the native module)
//   KernelBuilderBuild/<n>  GenerateMatmul + KernelBuilder::BuildBytes for the same problem
//
// Counters: `seconds` (host seconds per build), `instructions`, `neff_bytes`. The summary
// prints NKI / C++ and whether the NKI build meets issue 17's target (under 5 s).
#include <pybind11/embed.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bench/ratio_reporter.h"
#include "tools/samples/reference/samples.h"
#include "tools/samples/sample_kernels.h"

namespace {

namespace py = pybind11;

constexpr int64_t kSize = 4096;
constexpr double kTargetSeconds = 5.0;  // issue 17, "Done when"

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void BM_NkiTraceBuild(benchmark::State& state) {
  py::object trace_and_build;
  try {
    py::module_ m = py::module_::import("nki_trace_bench");
    m.attr("prepare")(state.range(0));  // the arguments: made once, outside the timing
    trace_and_build = m.attr("trace_and_build");
  } catch (const py::error_already_set& e) {
    state.SkipWithError(e.what());
    return;
  }
  double total = 0, instructions = 0, bytes = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    try {
      py::tuple r = trace_and_build(state.range(0));
      bytes = r[0].cast<double>();
      instructions = r[1].cast<double>();
    } catch (const py::error_already_set& e) {
      state.SkipWithError(e.what());
      return;
    }
    total += Seconds(std::chrono::steady_clock::now() - start);
  }
  state.counters["seconds"] = total / double(state.iterations());
  state.counters["instructions"] = instructions;
  state.counters["neff_bytes"] = bytes;
}

void BM_KernelBuilderBuild(benchmark::State& state) {
  using namespace trnsim;  // NOLINT: samples and kb
  const samples::SampleSpec spec = samples::internal::Matmul(uint32_t(state.range(0)));
  double total = 0, instructions = 0, bytes = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    kb::KernelBuilder k({.name = spec.name, .chip = "trn2", .lnc = 1});
    Status st = samples::GenerateMatmul(spec, k);
    StatusOr<std::vector<uint8_t>> neff =
        st.ok() ? k.BuildBytes() : StatusOr<std::vector<uint8_t>>(st);
    total += Seconds(std::chrono::steady_clock::now() - start);
    if (!neff.ok()) {
      state.SkipWithError(neff.status().ToString().c_str());
      return;
    }
    bytes = double(neff->size());
    instructions = 0;
    for (int e = 0; e < isa::kEngineCount; ++e)
      instructions += k.core(0).stream(static_cast<isa::Engine>(e)).size();
  }
  state.counters["seconds"] = total / double(state.iterations());
  state.counters["instructions"] = instructions;
  state.counters["neff_bytes"] = bytes;
}

class TraceRatioReporter : public trnsim::bench::RatioReporter {
 public:
  explicit TraceRatioReporter(OutputOptions options) : RatioReporter(options, "seconds") {}

 protected:
  void PrintRatios() override {
    const double nki = Mean("NkiTraceBuild", kSize), cpp = Mean("KernelBuilderBuild", kSize);
    std::printf("\n%lld^3 bf16 matmul, host seconds to make its NEFF in this run:\n",
                (long long)kSize);
    if (nki > 0) {
      std::printf("  NKI trace + build      %8.3f s  (target < %.0f s: %s)\n", nki,
                  kTargetSeconds, nki < kTargetSeconds ? "met" : "NOT met");
    }
    if (cpp > 0) std::printf("  C++ kernel builder     %8.3f s\n", cpp);
    if (nki > 0 && cpp > 0) std::printf("  NKI / C++              %8.1fx\n", nki / cpp);
  }
};

}  // namespace

int main(int argc, char** argv) {
  py::scoped_interpreter python;
  try {
    py::list path = py::module_::import("sys").attr("path");
    for (const char* dir : {TRNSIM_BENCH_PYTHON_DIR, TRNSIM_PYTHON_BUILD_DIR,
                            TRNSIM_PYTHON_SOURCE_DIR})
      path.insert(0, dir);
  } catch (const py::error_already_set& e) {
    std::fprintf(stderr, "nki_trace_bench: %s\n", e.what());
    return 1;
  }
  benchmark::RegisterBenchmark("NkiTraceBuild", BM_NkiTraceBuild)
      ->Arg(kSize)
      ->Unit(benchmark::kMillisecond)
      ->MinTime(2.0)  // a build takes about a second: average a few
      ->UseRealTime();
  benchmark::RegisterBenchmark("KernelBuilderBuild", BM_KernelBuilderBuild)
      ->Arg(kSize)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TraceRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
