// GFLOP/s of the PE fast path (simulator/core/fast_pe.h) next to the host's own single-threaded
// sgemm (OpenBLAS, and Eigen as built), measured in the same run. Benchmarks, each reporting
// items_per_second = floating-point operations (2·K·M·N per product) per host second:
//   TryFastPe/128      one multiply_moving on a full tile: K=128, M=128, N=512, bf16 stationary
//                      and moving in SBUF uniform in (-1, 1), fp32 dst in PSUM (stationary loaded
//                      once, outside the loop)
//   TryFastPeTiny/128  the same with every other input row (partition) tiny: ±[0.5, 1)·2^-64, so a
//                      product of two tiny values is subnormal in fp32 yet exact (the kernel's
//                      scaled form: no subnormal reaches the host's arithmetic)
//   TryFastPeTiny/129  tiny rows uniform in (-1, 1)·2^-64: some products fall below 2^-134 and the
//                      multiply must round them, so the reference arithmetic runs, with the
//                      microcode assists x86 takes on subnormal multiplies
//   OpenBLAS/128       cblas_sgemm [128x128]·[128x512] on one thread (openblas_set_num_threads)
//   Eigen/128          Eigen::MatrixXf [128x128]·[128x512] into a preallocated [128x512]
//   TryFastPe/1024     a [1024x1024]·[1024x1024] product as a kernel issues it: for each 128-row
//                      M tile and 128-deep K tile one load_stationary, then two multiply_moving
//                      (N = 2 x 512) accumulating over K into two PSUM banks
//   OpenBLAS/1024, Eigen/1024  the same product on the host
//   Reference/128      the reference interpreter's multiply_moving on the full tile, for scale
// The summary prints fast/OpenBLAS and fast/Eigen ratios (1.00 = as fast as that sgemm here).
// The PE kernel runs on one host thread here (TRNSIM_PE_THREADS=1, set by main): this bench
// compares single-thread arithmetic, and Google Benchmark's CPU time is the calling thread's.
// nrt_matmul_bench shows what the host's other cores add.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/core/fast_pe.h"
#include "simulator/core/pe_gemm.h"
#include "simulator/isa/limits.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {
namespace {

using isa::Dtype;
using isa::Instruction;

constexpr int64_t kTile = 128;
constexpr int64_t kLarge = 1024;

double Flops(int64_t k, int64_t m, int64_t n) { return 2.0 * double(k) * double(m) * double(n); }

enum class Tiny { kNone, kExact, kRounded };

// A Trainium2 core whose first `bytes` of every SBUF partition hold random bf16 values, uniform in
// (-1, 1); on odd partitions ±[0.5, 1)·2^-64 (kExact) or (-1, 1)·2^-64 (kRounded).
reference::CoreState RandomCore(uint32_t bytes, Tiny tiny = Tiny::kNone) {
  reference::CoreState s(isa::LimitsFor(Trainium2Spec()));
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> row(bytes / 2);
  for (int p = 0; p < s.limits.partitions; ++p) {
    for (float& x : row) {
      x = dist(rng);
      if (p % 2 == 1 && tiny == Tiny::kExact)
        x = std::copysign(0.5f + std::fabs(x) / 2, x) * 0x1p-64f;
      if (p % 2 == 1 && tiny == Tiny::kRounded) x *= 0x1p-64f;
    }
    numerics::ConvertFromFp32(row.data(), Dtype::kBfloat16, s.SbufAt(p, 0), row.size());
  }
  return s;
}

Instruction Load(int64_t offset_bytes) {
  Instruction inst;
  inst.opcode = isa::Opcode::kLoadStationary;
  inst.ap[1] = isa::SbufAp(0, 128, offset_bytes, Dtype::kBfloat16, {{128, 1}});
  return inst;
}

Instruction Multiply(int64_t moving_offset_bytes, int bank, bool accumulate) {
  Instruction inst;
  inst.opcode = isa::Opcode::kMultiplyMoving;
  inst.ap[0] = isa::PsumAp(0, 128, int64_t(bank) * 2048, Dtype::kFloat32, {{512, 1}});
  inst.ap[1] = isa::SbufAp(0, 128, moving_offset_bytes, Dtype::kBfloat16, {{512, 1}});
  if (accumulate) inst.flags |= isa::kFlagAccumulate;
  return inst;
}

// Runs `inst` through the fast path; false (and the benchmark skipped) if it was declined.
bool Fast(benchmark::State& state, const Instruction& inst, reference::CoreState& s,
          reference::HbmView& hbm) {
  StatusOr<bool> took = TryFastPe(isa::Engine::kPe, inst, s, hbm);
  if (took.ok() && *took) return true;
  state.SkipWithError("the fast path declined the instruction");
  return false;
}

void BM_FastTile(benchmark::State& state, Tiny tiny) {
  reference::CoreState s = RandomCore(2048, tiny);
  reference::VectorHbm hbm;
  if (!Fast(state, Load(0), s, hbm)) return;
  const Instruction mm = Multiply(256, 0, false);
  for (auto _ : state)
    if (!Fast(state, mm, s, hbm)) return;
  state.SetItemsProcessed(int64_t(double(state.iterations()) * Flops(128, 128, 512)));
}

void BM_ReferenceTile(benchmark::State& state) {
  reference::CoreState s = RandomCore(2048);
  reference::VectorHbm hbm;
  if (!reference::ExecuteDatapath(isa::Engine::kPe, Load(0), s, hbm).ok()) return;
  const Instruction mm = Multiply(256, 0, false);
  for (auto _ : state)
    if (!reference::ExecuteDatapath(isa::Engine::kPe, mm, s, hbm).ok())
      return state.SkipWithError("reference failed");
  state.SetItemsProcessed(int64_t(double(state.iterations()) * Flops(128, 128, 512)));
}

// SBUF per partition: A^T k-tiles [8][1024] bf16 at byte 0, B k-tiles [8][1024] at 16 KiB.
void BM_FastLarge(benchmark::State& state) {
  reference::CoreState s = RandomCore(32768);
  reference::VectorHbm hbm;
  constexpr int kTiles = kLarge / kTile;
  for (auto _ : state) {
    for (int mt = 0; mt < kTiles; ++mt)
      for (int kt = 0; kt < kTiles; ++kt) {
        if (!Fast(state, Load(kt * 2048 + mt * 256), s, hbm)) return;
        for (int nt = 0; nt < 2; ++nt)
          if (!Fast(state, Multiply(16384 + kt * 2048 + nt * 1024, nt, kt > 0), s, hbm)) return;
      }
    benchmark::DoNotOptimize(s.psum.data());
  }
  state.SetItemsProcessed(int64_t(double(state.iterations()) * Flops(kLarge, kLarge, kLarge)));
}

void BM_Eigen(benchmark::State& state, int64_t k, int64_t m, int64_t n) {
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(m, k), b = Eigen::MatrixXf::Random(k, n);
  Eigen::MatrixXf c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(int64_t(double(state.iterations()) * Flops(k, m, n)));
}

void BM_OpenBlas(benchmark::State& state, int64_t k, int64_t m, int64_t n) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a.data(),
                int(k), b.data(), int(n), 0.0f, c.data(), int(n));
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(int64_t(double(state.iterations()) * Flops(k, m, n)));
}

class GemmRatioReporter : public bench::RatioReporter {
 public:
  explicit GemmRatioReporter(OutputOptions options) : RatioReporter(options, "items_per_second") {}

 protected:
  void PrintRatios() override {
    std::printf(
        "\nGFLOP/s relative to the host's single-threaded sgemm in this run (kernel: %s):\n",
        std::string(PeGemmIsaName(SelectedPeGemmIsa())).c_str());
    std::printf("  %-34s %9s %9s %9s %13s %10s\n", "shape", "fast", "OpenBLAS", "Eigen",
                "fast/OpenBLAS", "fast/Eigen");
    const struct {
      const char* fast;
      int64_t arg;
      const char* shape;
    } rows[] = {{"TryFastPe", kTile, "tile 128x128x512"},
                {"TryFastPeTiny", kTile, "tile, tiny rows, exact products"},
                {"TryFastPeTiny", kTile + 1, "tile, tiny rows, rounded products"},
                {"TryFastPe", kLarge, "1024x1024x1024 (128 matmuls)"}};
    for (const auto& r : rows) {
      const int64_t base = r.arg == kTile + 1 ? kTile : r.arg;
      const double fast = Mean(r.fast, r.arg), blas = Mean("OpenBLAS", base);
      const double eigen = Mean("Eigen", base);
      if (fast <= 0 || blas <= 0 || eigen <= 0) continue;  // filtered out
      std::printf("  %-34s %9.2f %9.2f %9.2f %13.2f %10.2f\n", r.shape, fast / 1e9, blas / 1e9,
                  eigen / 1e9, fast / blas, fast / eigen);
    }
    const double fast = Mean("TryFastPe", kTile), ref = Mean("Reference", kTile);
    if (fast > 0 && ref > 0)
      std::printf("  fast path / reference interpreter on the tile: %.0fx\n", fast / ref);
  }
};

}  // namespace
}  // namespace trnsim::simulator::core

int main(int argc, char** argv) {
  using namespace trnsim::simulator::core;  // NOLINT: registration only
  Eigen::setNbThreads(1);
  openblas_set_num_threads(1);
  benchmark::RegisterBenchmark("TryFastPe", [](benchmark::State& s) {
    BM_FastTile(s, Tiny::kNone);
  })->Arg(kTile);
  benchmark::RegisterBenchmark("TryFastPeTiny",
                               [](benchmark::State& s) {
                                 BM_FastTile(s,
                                             s.range(0) == kTile ? Tiny::kExact : Tiny::kRounded);
                               })
      ->Arg(kTile)
      ->Arg(kTile + 1);
  benchmark::RegisterBenchmark("OpenBLAS", [](benchmark::State& s) {
    BM_OpenBlas(s, 128, 128, 512);
  })->Arg(kTile);
  benchmark::RegisterBenchmark("Eigen", [](benchmark::State& s) {
    BM_Eigen(s, 128, 128, 512);
  })->Arg(kTile);
  benchmark::RegisterBenchmark("TryFastPe", BM_FastLarge)->Arg(kLarge);
  benchmark::RegisterBenchmark("OpenBLAS", [](benchmark::State& s) {
    BM_OpenBlas(s, kLarge, kLarge, kLarge);
  })->Arg(kLarge);
  benchmark::RegisterBenchmark("Eigen", [](benchmark::State& s) {
    BM_Eigen(s, kLarge, kLarge, kLarge);
  })->Arg(kLarge);
  benchmark::RegisterBenchmark("Reference", BM_ReferenceTile)->Arg(kTile);
  setenv("TRNSIM_PE_THREADS", "1", 1);  // before the first matmul creates the pool
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  GemmRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
