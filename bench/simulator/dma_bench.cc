// The chip model's DMA data path against the host's memcpy of the same bytes, in one run:
//   FastDma/<bytes>     dma_copy HBM [128, n] fp32 -> SBUF [128, n] through TryFastDmaCopy
//                       (simulator/core/fast_dma.h), the path every same-dtype dma_copy takes
//   Descriptor/<bytes>  a NEFF copy descriptor HBM -> SBUF whose two sides are both strided
//                       (HBM rows with a gap, SBUF partitions), through dma::Execute
//                       (simulator/dma/descriptor.h): gathered into staging, then scattered
//   Cast/<bytes>        the same descriptor casting fp32 -> bf16 (staged on both sides)
//   Memcpy/<bytes>      memcpy of the same number of bytes between two host buffers
// bytes_per_second counts payload bytes; the summary prints each path's throughput over
// memcpy's. Every buffer is written once before timing (no first-touch page faults).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/core/fast_dma.h"
#include "simulator/dma/descriptor.h"
#include "simulator/isa/limits.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {
namespace {

constexpr int kRows = 128;
constexpr uint32_t kGapElements = 16;  // between HBM rows of the descriptor's source
constexpr int64_t kSizes[] = {int64_t{64} << 10, int64_t{8} << 20};

uint32_t Cols(int64_t bytes) { return uint32_t(bytes / kRows / 4); }

struct Machine {
  explicit Machine(int64_t bytes) : state(isa::LimitsFor(Trainium2Spec())) {
    const uint32_t n = Cols(bytes);
    std::vector<uint8_t>& v = hbm.vars[1];
    v.resize(size_t(kRows) * (n + kGapElements) * 4);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 7 + 1);
    for (int p = 0; p < kRows; ++p) std::memset(state.SbufAt(p, 0), 1, size_t(n) * 4);
  }
  reference::CoreState state;
  reference::VectorHbm hbm;
};

void BM_FastDma(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  const uint32_t n = Cols(bytes);
  Machine m(bytes);
  isa::Instruction inst;
  inst.opcode = isa::Opcode::kDmaCopy;
  inst.ap[0] = isa::SbufAp(0, kRows, 0, isa::Dtype::kFloat32, {{uint16_t(n), 1}});
  isa::AccessPattern src;
  src.memory = isa::Memory::kHbm;
  src.var_id = 1;
  src.num_partitions = kRows;
  src.partition_stride = int32_t(n + kGapElements);
  src.dtype = isa::Dtype::kFloat32;
  src.num_dims = 1;
  src.sizes[0] = uint16_t(n);
  src.strides[0] = 1;
  inst.ap[1] = src;
  for (auto _ : state) {
    StatusOr<bool> took = TryFastDmaCopy(inst, m.state, m.hbm);
    if (!took.ok() || !*took) return state.SkipWithError("the fast path declined");
    benchmark::DoNotOptimize(m.state.sbuf.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * bytes);
}

dma::Descriptor CopyDescriptor(int64_t bytes, isa::Dtype dst_dtype) {
  const uint32_t n = Cols(bytes);
  const int dst_size = isa::DtypeSize(dst_dtype);
  const uint32_t pitch = isa::LimitsFor(Trainium2Spec()).sbuf_bytes_per_partition;
  dma::Descriptor d;
  d.op = dma::Op::kCopy;
  dma::Endpoint src;
  src.var_id = 1;
  src.dtype = isa::Dtype::kFloat32;
  src.steps = {4, int64_t(n + kGapElements) * 4};
  src.sizes = {uint64_t(n) * 4, kRows};
  d.sources.push_back(src);
  d.dest.var_id = dma::kSbufVarId;
  d.dest.dtype = dst_dtype;
  d.dest.steps = {dst_size, int64_t(pitch)};
  d.dest.sizes = {uint64_t(n) * uint64_t(dst_size), kRows};
  return d;
}

void RunDescriptor(benchmark::State& state, isa::Dtype dst_dtype) {
  const int64_t bytes = state.range(0);
  Machine m(bytes);
  const dma::Descriptor d = CopyDescriptor(bytes, dst_dtype);
  for (auto _ : state) {
    Status st = dma::Execute(d, m.state, m.hbm);
    if (!st.ok()) return state.SkipWithError(st.ToString().c_str());
    benchmark::DoNotOptimize(m.state.sbuf.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * bytes);
}
void BM_Descriptor(benchmark::State& state) { RunDescriptor(state, isa::Dtype::kFloat32); }
void BM_Cast(benchmark::State& state) { RunDescriptor(state, isa::Dtype::kBfloat16); }

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  std::vector<uint8_t> a(bytes, 1), b(bytes, 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

class DmaRatioReporter : public bench::RatioReporter {
 public:
  explicit DmaRatioReporter(OutputOptions options) : RatioReporter(options, "bytes_per_second") {}

 protected:
  void PrintRatios() override {
    std::printf("\nThroughput relative to memcpy in this run (1.00 = as fast as memcpy):\n");
    std::printf("  %-8s %12s %12s %12s %12s\n", "size", "memcpy GB/s", "FastDma", "Descriptor",
                "Cast");
    for (int64_t bytes : kSizes) {
      const double base = Mean("Memcpy", bytes);
      if (base <= 0) continue;
      std::printf("  %-8s %12.2f", bytes >= (1 << 20) ? "8 MiB" : "64 KiB", base / 1e9);
      for (const char* f : {"FastDma", "Descriptor", "Cast"}) {
        const double v = Mean(f, bytes);
        if (v > 0)
          std::printf(" %12.3f", v / base);
        else
          std::printf(" %12s", "-");
      }
      std::printf("\n");
    }
  }
};

}  // namespace
}  // namespace trnsim::simulator::core

int main(int argc, char** argv) {
  using namespace trnsim::simulator::core;  // NOLINT: registration only
  struct Family {
    const char* name;
    void (*fn)(benchmark::State&);
  };
  for (const Family& f : {Family{"Memcpy", BM_Memcpy}, Family{"FastDma", BM_FastDma},
                          Family{"Descriptor", BM_Descriptor}, Family{"Cast", BM_Cast}}) {
    auto* b = benchmark::RegisterBenchmark(f.name, f.fn);
    for (int64_t bytes : kSizes) b->Arg(bytes);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  DmaRatioReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
