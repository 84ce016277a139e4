// Elements per second of the ACT/DVE/POOL fast path (simulator/core/fast_vector.h) next to the
// reference interpreter's element-by-element execution of the same instruction, measured in the
// same run. Each benchmark runs one instruction on a [128, 1024] bf16 SBUF tile (the sample
// kernels' tile) and reports items_per_second = elements produced per host second:
//   Fast/0, Reference/0   tensor_copy bf16 -> bf16 (DVE)
//   Fast/1, Reference/1   tensor_copy bf16 -> fp32 (DVE)
//   Fast/2, Reference/2   tensor_tensor add, bf16 + bf16 -> bf16 (DVE)
//   Fast/3, Reference/3   activation exp, scale 1, bias 0, bf16 -> bf16 (ACT)
//   Fast/4, Reference/4   tensor_reduce max over the free axis -> fp32 [128, 1] (DVE)
//   Fast/5, Reference/5   tensor_tensor add on a small [128, 8] bf16 tile (DVE)
// The summary prints the Fast/Reference ratio of each, and Fast/5 against Host/5: the host's own
// plain loop doing the same [128, 8] bf16 add (decode, add, round to nearest even) on the same
// partition-strided rows.
//
// Stream/<n> runs a program of n [128, 8] bf16 tensor_tensor adds on DVE and n on POOL through
// the timed chip model (core::Execute), each POOL add waiting for the DVE add before it
// (`wait S[1] >= i`), so POOL is blocked and retried once per add: the per-instruction cost of
// the whole path (scheduler, waits, cost model, fast path). HostStream/<n> is the plain loop
// doing the same 2n adds; the summary prints ns per add and HostStream/Stream.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/core/execution.h"
#include "simulator/core/fast_vector.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
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
constexpr int kSmallCols = 8;  // Fast/5's [128, 8] tile
constexpr int kCases = 6;
const char* const kNames[kCases] = {"tensor_copy bf16->bf16", "tensor_copy bf16->fp32",
                                    "tensor_tensor add bf16", "activation exp bf16",
                                    "tensor_reduce max bf16", "add bf16 [128, 8]"};
int Cols(int c) { return c == 5 ? kSmallCols : kCols; }

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
    case 5:
      inst.opcode = isa::Opcode::kTensorTensor;
      inst.op0 = isa::AluOp::kAdd;
      inst.ap[0] = isa::SbufAp(0, kRows, 4096, Dtype::kBfloat16, {{kSmallCols, 1}});
      inst.ap[1] = isa::SbufAp(0, kRows, 0, Dtype::kBfloat16, {{kSmallCols, 1}});
      inst.ap[2] = isa::SbufAp(0, kRows, 2048, Dtype::kBfloat16, {{kSmallCols, 1}});
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
  state.SetItemsProcessed(int64_t(state.iterations()) * kRows * Cols(int(state.range(0))));
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
  state.SetItemsProcessed(int64_t(state.iterations()) * kRows * Cols(int(state.range(0))));
}

// ---- the host's own loop: a [128, 8] bf16 add on rows a partition pitch apart ---------------

inline float Bf16(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }
inline uint16_t ToBf16(float v) {  // round to nearest even (inputs here are never NaN)
  const uint32_t b = std::bit_cast<uint32_t>(v);
  return uint16_t((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
// dst = a + b for `rows` rows of `cols` bf16 elements, each operand's rows `pitch` bytes apart.
void HostAdd(uint8_t* mem, uint64_t pitch, uint32_t a, uint32_t b, uint32_t dst, int cols) {
  for (int r = 0; r < kRows; ++r) {
    uint8_t* row = mem + r * pitch;
    for (int i = 0; i < cols; ++i) {
      uint16_t x, y;
      std::memcpy(&x, row + a + 2 * i, 2);
      std::memcpy(&y, row + b + 2 * i, 2);
      const uint16_t z = ToBf16(Bf16(x) + Bf16(y));
      std::memcpy(row + dst + 2 * i, &z, 2);
    }
  }
}

void BM_Host(benchmark::State& state) {
  reference::CoreState s = RandomCore();
  for (auto _ : state) {
    HostAdd(s.SbufAt(0, 0), s.limits.sbuf_bytes_per_partition, 0, 2048, 4096, kSmallCols);
    benchmark::DoNotOptimize(s.sbuf.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * kRows * kSmallCols);
}

// ---- a stream of small adds through the timed chip model ------------------------------------

isa::Instruction ParseOne(const std::string& line) {
  return isa::ParseProgram(line + "\nnotify_end\n").value().instructions.at(0);
}

// DVE: n adds, each `then S[1] += 1 @complete`; POOL: n adds on another tile, the i-th waiting
// for S[1] >= i. Instructions are built by copying one parsed instruction (parsing 10^6 lines
// would dominate the setup).
struct StreamPrograms {
  explicit StreamPrograms(int n) {
    const std::string add =
        "tensor_tensor dst=sbuf[p0:128, 4096 + [8 x 1]] bf16 in0=sbuf[p0:128, 0 + [8 x 1]] bf16 "
        "in1=sbuf[p0:128, 2048 + [8 x 1]] bf16 op0=add";
    const isa::Instruction d = ParseOne(".engine dve\n" + add + " then S[1] += 1 @complete");
    const isa::Instruction p = ParseOne(
        ".engine pool\nwait S[1] >= 1 tensor_tensor dst=sbuf[p0:128, 6144 + [8 x 1]] bf16 "
        "in0=sbuf[p0:128, 0 + [8 x 1]] bf16 in1=sbuf[p0:128, 2048 + [8 x 1]] bf16 op0=add");
    const isa::Instruction notify = ParseOne(".engine dve\nnotify_end");
    dve.engine = isa::Engine::kDve;
    pool.engine = isa::Engine::kPool;
    dve.instructions.assign(size_t(n), d);
    pool.instructions.assign(size_t(n), p);
    for (int i = 0; i < n; ++i) pool.instructions[size_t(i)].waits[0].value = uint32_t(i + 1);
    dve.instructions.push_back(notify);
    pool.instructions.push_back(notify);
  }
  isa::Program dve, pool;
};

void BM_Stream(benchmark::State& state) {
  const int n = int(state.range(0));
  const StreamPrograms programs(n);
  reference::CoreState s = RandomCore();
  reference::VectorHbm hbm;
  CoreRun run;
  run.programs[int(isa::Engine::kDve)] = &programs.dve;
  run.programs[int(isa::Engine::kPool)] = &programs.pool;
  run.state = &s;
  run.hbm = &hbm;
  ExecuteOptions options;
  options.validate = false;  // load-time work, not the element-wise path measured here
  for (auto _ : state) {
    StatusOr<ExecutionResult> r =
        Execute(Trainium2Spec(), std::span<const CoreRun>(&run, 1), options);
    if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * 2 * n);  // adds
}

void BM_HostStream(benchmark::State& state) {
  const int n = int(state.range(0));
  reference::CoreState s = RandomCore();
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) {
      HostAdd(s.SbufAt(0, 0), s.limits.sbuf_bytes_per_partition, 0, 2048, 4096, kSmallCols);
      HostAdd(s.SbufAt(0, 0), s.limits.sbuf_bytes_per_partition, 0, 2048, 6144, kSmallCols);
      benchmark::ClobberMemory();
    }
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * 2 * n);
}

constexpr int kStreamAdds = 1 << 17;  // per engine

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
      const double elems = double(kRows) * Cols(c);
      std::printf("  %-26s %12.1f %12.1f %12.1f %9.1fx\n", kNames[c], elems / fast * 1e6,
                  elems / ref * 1e6, 1e9 / ref, fast / ref);
    }
    const double fast = Mean("Fast", 5), host = Mean("Host", 5);
    if (fast > 0 && host > 0)
      std::printf("\n[128, 8] bf16 add: fast path %.0f ns, host loop %.0f ns, host/fast %.3f\n",
                  kRows * kSmallCols / fast * 1e9, kRows * kSmallCols / host * 1e9, fast / host);
    const double stream = Mean("Stream", kStreamAdds),
                 host_stream = Mean("HostStream", kStreamAdds);
    if (stream > 0 && host_stream > 0)
      std::printf(
          "%d [128, 8] bf16 adds through core::Execute: %.0f ns per add, host loop %.0f ns, "
          "stream/host loop %.4f\n",
          2 * kStreamAdds, 1e9 / stream, 1e9 / host_stream, stream / host_stream);
  }
};

}  // namespace
}  // namespace trnsim::simulator::core

int main(int argc, char** argv) {
  using namespace trnsim::simulator::core;  // NOLINT: registration only
  benchmark::RegisterBenchmark("Fast", BM_Fast)->DenseRange(0, kCases - 1);
  benchmark::RegisterBenchmark("Reference", BM_Reference)->DenseRange(0, kCases - 1);
  benchmark::RegisterBenchmark("Host", BM_Host)->Arg(5);
  benchmark::RegisterBenchmark("Stream", BM_Stream)
      ->Arg(kStreamAdds)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("HostStream", BM_HostStream)
      ->Arg(kStreamAdds)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  VectorRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
