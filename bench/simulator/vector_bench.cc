// Elements per second of the ACT/DVE/POOL fast path (simulator/core/fast_vector.h) next to the
// reference interpreter's element-by-element execution of the same instruction, measured in the
// same run. Each benchmark runs one instruction on a [128, 1024] bf16 SBUF tile (the sample
// kernels' tile) and reports items_per_second = elements produced per host second:
//   Fast/0, Reference/0   tensor_copy bf16 -> bf16 (DVE)
//   Fast/1, Reference/1   tensor_copy bf16 -> fp32 (DVE)
//   Fast/2, Reference/2   tensor_tensor add, bf16 + bf16 -> bf16 (DVE)
//   Fast/3, Reference/3   activation exp, scale 1, bias 0, bf16 -> bf16 (ACT)
//   Fast/4, Reference/4   tensor_reduce max over the free axis -> fp32 [128, 1] (DVE)
// The summary prints the Fast/Reference ratio of each.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/core/fast_vector.h"
#include "simulator/isa/limits.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {
namespace {

using isa::Dtype;
using isa::Engine;
using isa::Instruction;

constexpr int kRows = 128;
constexpr int kCols = 1024;
constexpr int kCases = 5;
const char* const kNames[kCases] = {"tensor_copy bf16->bf16", "tensor_copy bf16->fp32",
                                    "tensor_tensor add bf16", "activation exp bf16",
                                    "tensor_reduce max bf16"};

// A Trainium2 core whose first 16 KiB of every SBUF partition hold random bf16 values.
reference::CoreState RandomCore() {
  reference::CoreState s(isa::LimitsFor(Trainium2Spec()));
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> row(8192);
  for (int p = 0; p < s.limits.partitions; ++p) {
    for (float& x : row) x = dist(rng);
    numerics::ConvertFromFp32(row.data(), Dtype::kBfloat16, s.SbufAt(p, 0), row.size());
  }
  return s;
}

// Case `c`'s instruction: inputs at SBUF bytes 0 and 2048, output at 4096 (8192 for fp32).
Instruction CaseInstruction(int c, Engine& engine) {
  Instruction inst;
  engine = Engine::kDve;
  const isa::AccessPattern x = isa::SbufAp(0, kRows, 0, Dtype::kBfloat16, {{kCols, 1}});
  inst.ap[1] = x;
  inst.ap[0] = isa::SbufAp(0, kRows, 4096, Dtype::kBfloat16, {{kCols, 1}});
  switch (c) {
    case 0:
      inst.opcode = isa::Opcode::kTensorCopy;
      break;
    case 1:
      inst.opcode = isa::Opcode::kTensorCopy;
      inst.ap[0] = isa::SbufAp(0, kRows, 8192, Dtype::kFloat32, {{kCols, 1}});
      break;
    case 2:
      inst.opcode = isa::Opcode::kTensorTensor;
      inst.op0 = isa::AluOp::kAdd;
      inst.ap[2] = isa::SbufAp(0, kRows, 2048, Dtype::kBfloat16, {{kCols, 1}});
      break;
    case 3:
      engine = Engine::kAct;
      inst.opcode = isa::Opcode::kActivation;
      inst.func = isa::ActFunc::kExp;
      inst.set_imm_f32(0, 1.0f);  // scale
      break;
    default:
      inst.opcode = isa::Opcode::kTensorReduce;
      inst.op0 = isa::AluOp::kMaximum;
      inst.count = 1;
      inst.ap[0] = isa::SbufAp(0, kRows, 8192, Dtype::kFloat32, {{1, 1}});
      break;
  }
  return inst;
}

void BM_Fast(benchmark::State& state) {
  reference::CoreState s = RandomCore();
  reference::VectorHbm hbm;
  Engine engine;
  const Instruction inst = CaseInstruction(int(state.range(0)), engine);
  for (auto _ : state) {
    StatusOr<bool> took = TryFastVector(engine, inst, s, hbm);
    if (!took.ok() || !*took) return state.SkipWithError("the fast path declined");
    benchmark::DoNotOptimize(s.sbuf.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * kRows * kCols);
}

void BM_Reference(benchmark::State& state) {
  reference::CoreState s = RandomCore();
  reference::VectorHbm hbm;
  Engine engine;
  const Instruction inst = CaseInstruction(int(state.range(0)), engine);
  for (auto _ : state) {
    if (!reference::ExecuteDatapath(engine, inst, s, hbm).ok())
      return state.SkipWithError("the reference failed");
    benchmark::DoNotOptimize(s.sbuf.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * kRows * kCols);
}

class VectorRatioReporter : public bench::RatioReporter {
 public:
  explicit VectorRatioReporter(OutputOptions options)
      : RatioReporter(options, "items_per_second") {}

 protected:
  void PrintRatios() override {
    std::printf("\n[128, 1024] tile, fast path vs reference interpreter in this run:\n");
    std::printf("  %-26s %12s %12s %12s %10s\n", "instruction", "fast us", "ref us", "ref ns/elem",
                "fast/ref");
    for (int c = 0; c < kCases; ++c) {
      const double fast = Mean("Fast", c), ref = Mean("Reference", c);
      if (fast <= 0 || ref <= 0) continue;  // filtered out
      const double elems = double(kRows) * kCols;
      std::printf("  %-26s %12.1f %12.1f %12.1f %9.1fx\n", kNames[c], elems / fast * 1e6,
                  elems / ref * 1e6, 1e9 / ref, fast / ref);
    }
  }
};

}  // namespace
}  // namespace trnsim::simulator::core

int main(int argc, char** argv) {
  using namespace trnsim::simulator::core;  // NOLINT: registration only
  benchmark::RegisterBenchmark("Fast", BM_Fast)->DenseRange(0, kCases - 1);
  benchmark::RegisterBenchmark("Reference", BM_Reference)->DenseRange(0, kCases - 1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  VectorRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
