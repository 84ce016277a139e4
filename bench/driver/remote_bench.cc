// The remote back end (driver/remote/remote_device.h) against the in-process sim back end, in
// one run: a neurond daemon is started in this process on a unix socket and another on TCP
// loopback (tools/neurond/daemon.h), and every back end serves the same calls.
//   Write/<0 sim | 1 remote unix | 2 remote TCP>, Read/<0|1|2>   64 MiB Device::Write /
//                   Device::Read: bytes_per_second
//   Write1M/<0|1|2>, Read1M/<0|1|2>   the same of 1 MiB
//   Execute/<0|1|2> Device::Execute of a tiny program (one 4 KiB dma_copy on SP + notify_end):
//                   items_per_second = executions per second (its inverse is the latency)
// The summary prints remote/sim for each: the cost of the protocol, gRPC and the socket.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"
#include "driver/device.h"
#include "simulator/isa/encoding.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/daemon.h"

namespace trnsim::driver {
namespace {

constexpr uint64_t kBytes = 64ull << 20;
constexpr uint64_t kSmallBytes = 1ull << 20;
constexpr const char* kInstance = "trn2.3xlarge";

struct Backend {
  std::unique_ptr<Device> device;
  MemoryHandle memory = kInvalidMemoryHandle;
  MemoryHandle small = kInvalidMemoryHandle;
  ProgramHandle program = kInvalidProgramHandle;
};

void Die(const char* what, const Status& st) {
  std::fprintf(stderr, "remote_bench: %s: %s\n", what, st.ToString().c_str());
  std::exit(1);
}

Backend Open(const std::string& backend, const std::string& address) {
  Backend b;
  DeviceOptions options;
  options.backend = backend;
  options.instance = *simulator::FindInstanceSpec(kInstance);
  options.address = address;
  auto device = OpenDevice(options);
  if (!device.ok()) Die("open", device.status());
  b.device = std::move(*device);
  if (Status st = b.device->AcquireCores(0, 1); !st.ok()) Die("acquire", st);
  AllocationRequest r;
  r.size_bytes = kBytes;
  auto info = b.device->Allocate(r);
  if (!info.ok()) Die("allocate", info.status());
  b.memory = info->handle;
  r.size_bytes = 8192;
  info = b.device->Allocate(r);
  if (!info.ok()) Die("allocate", info.status());
  b.small = info->handle;
  ProgramImage image;
  const char* text =
      ".engine sp\n"
      "dma_copy dst=hbm[var2 + 0, [1 x 1024, 1024 x 1]] fp32 src=hbm[var1 + 0, [1 x 1024, 1024 "
      "x 1]] fp32 queue=0\nbarrier\nnotify_end\n";
  isa::Program p = isa::ParseProgram(text).value();
  image.streams[int(isa::Engine::kSp)] =
      isa::EncodeStream(p.engine, p.instructions,
                        isa::LimitsFor(*options.instance->chip))
          .value();
  auto program = b.device->LoadProgram(image);
  if (!program.ok()) Die("load program", program.status());
  b.program = *program;
  return b;
}

struct World {
  std::unique_ptr<neurond::Daemon> daemon, tcp_daemon;
  Backend sim, remote, tcp;
};

World& TheWorld() {
  static World* world = [] {
    auto* w = new World;
    neurond::DaemonOptions options;
    options.listen = "unix:/tmp/trnsim-remote-bench-" + std::to_string(getpid()) + ".sock";
    options.instance = *simulator::FindInstanceSpec(kInstance);
    auto daemon = neurond::Daemon::Start(options);
    if (!daemon.ok()) Die("daemon", daemon.status());
    w->daemon = std::move(*daemon);
    options.listen = "127.0.0.1:0";
    daemon = neurond::Daemon::Start(options);
    if (!daemon.ok()) Die("daemon", daemon.status());
    w->tcp_daemon = std::move(*daemon);
    w->sim = Open("sim", "");
    w->remote = Open("remote", w->daemon->address());
    w->tcp = Open("remote", w->tcp_daemon->address());
    return w;
  }();
  return *world;
}

Backend& Pick(benchmark::State& state) {
  switch (state.range(0)) {
    case 0: return TheWorld().sim;
    case 1: return TheWorld().remote;
    default: return TheWorld().tcp;
  }
}

void Write(benchmark::State& state, uint64_t bytes) {
  Backend& b = Pick(state);
  std::vector<uint8_t> host(bytes, 0x5A);
  for (auto _ : state)
    if (Status st = b.device->Write(b.memory, 0, host.data(), bytes); !st.ok()) Die("write", st);
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
}

void Read(benchmark::State& state, uint64_t bytes) {
  Backend& b = Pick(state);
  std::vector<uint8_t> host(bytes);
  for (auto _ : state)
    if (Status st = b.device->Read(b.memory, 0, host.data(), bytes); !st.ok()) Die("read", st);
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
}

void BM_Write(benchmark::State& state) { Write(state, kBytes); }
void BM_Read(benchmark::State& state) { Read(state, kBytes); }
void BM_Write1M(benchmark::State& state) { Write(state, kSmallBytes); }
void BM_Read1M(benchmark::State& state) { Read(state, kSmallBytes); }
BENCHMARK(BM_Write)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Read)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Write1M)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Read1M)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Execute(benchmark::State& state) {
  Backend& b = Pick(state);
  CoreExecution core;
  core.program = b.program;
  core.vars = {{1, b.small, 0, 4096}, {2, b.small, 4096, 4096}};
  ExecutionRequestOptions options;
  for (auto _ : state) {
    auto r = b.device->Execute(std::span<const CoreExecution>(&core, 1), options);
    if (!r.ok()) Die("execute", r.status());
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_Execute)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

class RemoteRatios : public bench::RatioReporter {
 public:
  using RatioReporter::RatioReporter;

 protected:
  void PrintRatios() override {
    std::printf("\nremote / in-process (same run):\n");
    for (int arg : {1, 2}) {
      const char* link = arg == 1 ? "unix" : "tcp";
      for (const char* family : {"BM_Write", "BM_Read", "BM_Write1M", "BM_Read1M"}) {
        const double sim = Mean(family, 0), remote = Mean(family, arg);
        if (sim > 0 && remote > 0)
          std::printf("  %-10s %-4s %8.2f GB/s remote vs %8.2f GB/s sim  ratio %.3f\n", family,
                      link, remote / 1e9, sim / 1e9, remote / sim);
      }
      const double sim = Items("BM_Execute/0/real_time");
      const double remote = Items("BM_Execute/" + std::to_string(arg) + "/real_time");
      if (sim > 0 && remote > 0)
        std::printf("  %-10s %-4s %8.1f us remote vs %8.1f us sim  latency x%.1f\n",
                    "BM_Execute", link, 1e6 / remote, 1e6 / sim, sim / remote);
    }
  }
};

}  // namespace
}  // namespace trnsim::driver

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  trnsim::driver::RemoteRatios reporter(benchmark::ConsoleReporter::OO_Defaults,
                                        "bytes_per_second");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
