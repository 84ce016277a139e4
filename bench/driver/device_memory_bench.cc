// Device memory throughput of the sim back end against the host's own limit.
//
// For each transfer size (4 KiB, 1 MiB, 64 MiB) three benchmarks run back to back:
//   memcpy/<size>             a plain memcpy between two host buffers (the ceiling)
//   SimDevice::Write/<size>   Device::Write from a host buffer into emulated HBM
//   SimDevice::Read/<size>    Device::Read from emulated HBM into a host buffer
// Each reports bytes/second, and after the usual table a summary prints device/memcpy ratios
// computed from this same run (1.00 = as fast as memcpy). All buffers and HBM pages are touched
// before timing, so the figures are steady-state copies, not first-touch page faults.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/ratio_reporter.h"
#include "driver/device.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::driver {
namespace {

constexpr uint64_t kSizes[] = {4ull << 10, 1ull << 20, 64ull << 20};
constexpr const char* kMemcpy = "memcpy";
constexpr const char* kWrite = "SimDevice::Write";
constexpr const char* kRead = "SimDevice::Read";

std::string SizeText(uint64_t bytes) {
  if (bytes >= (1ull << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

struct HostBuffer {
  explicit HostBuffer(uint64_t size)
      : bytes(static_cast<uint8_t*>(std::aligned_alloc(4096, size)), &std::free) {
    if (!bytes) {
      std::fprintf(stderr, "device_memory_bench: cannot allocate %llu host bytes\n",
                   static_cast<unsigned long long>(size));
      std::exit(1);
    }
    std::memset(bytes.get(), 0x5A, size);  // touch every page before timing
  }
  std::unique_ptr<uint8_t, decltype(&std::free)> bytes;
};

// One sim device and, per size, a pre-touched allocation and two host buffers.
struct Fixture {
  std::unique_ptr<Device> device;
  std::map<uint64_t, MemoryHandle> handles;
  std::map<uint64_t, std::pair<HostBuffer, HostBuffer>> host;  // size -> (src, dst)
};

std::unique_ptr<Fixture> MakeFixture() {
  auto fixture = std::make_unique<Fixture>();
  DeviceOptions options;
  options.backend = "sim";
  options.instance = *simulator::FindInstanceSpec("trn2.3xlarge");
  StatusOr<std::unique_ptr<Device>> device = OpenDevice(options);
  if (!device.ok()) {
    std::fprintf(stderr, "device_memory_bench: %s\n", device.status().ToString().c_str());
    std::exit(1);
  }
  fixture->device = std::move(device).value();
  for (uint64_t size : kSizes) {
    AllocationRequest request;
    request.size_bytes = size;
    StatusOr<AllocationInfo> info = fixture->device->Allocate(request);
    if (!info.ok() || !fixture->device->Fill(info->handle, 0, 0xA5, size).ok()) {
      std::fprintf(stderr, "device_memory_bench: cannot set up %s of device memory\n",
                   SizeText(size).c_str());
      std::exit(1);
    }
    fixture->handles[size] = info->handle;
    fixture->host.emplace(size, std::make_pair(HostBuffer(size), HostBuffer(size)));
  }
  return fixture;
}

void BM_Memcpy(benchmark::State& state, Fixture* f, uint64_t size) {
  auto& [src, dst] = f->host.at(size);
  for (auto _ : state) {
    std::memcpy(dst.bytes.get(), src.bytes.get(), size);
    benchmark::DoNotOptimize(dst.bytes.get());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

void BM_DeviceWrite(benchmark::State& state, Fixture* f, uint64_t size) {
  const uint8_t* src = f->host.at(size).first.bytes.get();
  MemoryHandle handle = f->handles.at(size);
  for (auto _ : state) {
    Status status = f->device->Write(handle, 0, src, size);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

void BM_DeviceRead(benchmark::State& state, Fixture* f, uint64_t size) {
  uint8_t* dst = f->host.at(size).second.bytes.get();
  MemoryHandle handle = f->handles.at(size);
  for (auto _ : state) {
    Status status = f->device->Read(handle, 0, dst, size);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

// The console table, then device/memcpy throughput ratios per size from the same run.
class MemoryRatioReporter : public bench::RatioReporter {
 public:
  explicit MemoryRatioReporter(OutputOptions options)
      : RatioReporter(options, "bytes_per_second") {}

 protected:
  void PrintRatios() override {
    std::printf("\nThroughput relative to memcpy in this run (1.00 = as fast as memcpy):\n");
    std::printf("  %-8s %13s %13s %13s %13s %13s\n", "size", "memcpy GiB/s", "Write GiB/s",
                "Read GiB/s", "Write/memcpy", "Read/memcpy");
    for (uint64_t size : kSizes) {
      double base = Mean(kMemcpy, size);
      double write = Mean(kWrite, size);
      double read = Mean(kRead, size);
      if (base <= 0) continue;  // filtered out with --benchmark_filter
      std::printf("  %-8s %13.2f %13.2f %13.2f %13s %13s\n", SizeText(size).c_str(),
                  base / (1 << 30), write / (1 << 30), read / (1 << 30), Ratio(write, base).c_str(),
                  Ratio(read, base).c_str());
    }
  }

 private:
  static std::string Ratio(double value, double base) {
    if (value <= 0) return "-";
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f", value / base);
    return text;
  }

};

}  // namespace
}  // namespace trnsim::driver

int main(int argc, char** argv) {
  using namespace trnsim::driver;
  // A custom display reporter does not see --benchmark_color, so honour it (and pipes) here.
  bool color = isatty(STDOUT_FILENO);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--benchmark_color=false" || arg == "--benchmark_color=no") color = false;
    if (arg == "--benchmark_color=true" || arg == "--benchmark_color=yes") color = true;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::unique_ptr<Fixture> fixture = MakeFixture();
  // Registered size by size so each device figure sits next to its memcpy baseline.
  for (uint64_t size : kSizes) {
    std::string suffix = "/" + std::to_string(size);
    benchmark::RegisterBenchmark((kMemcpy + suffix).c_str(), BM_Memcpy, fixture.get(), size);
    benchmark::RegisterBenchmark((kWrite + suffix).c_str(), BM_DeviceWrite, fixture.get(), size);
    benchmark::RegisterBenchmark((kRead + suffix).c_str(), BM_DeviceRead, fixture.get(), size);
  }
  MemoryRatioReporter reporter(color ? benchmark::ConsoleReporter::OO_Defaults
                               : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
