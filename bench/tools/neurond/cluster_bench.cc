// cluster_bench: the host cost of a collective of a multi-instance job (docs/cluster.md). Two
// ranks on two instances all-reduce `bytes` of fp32, per collective:
//   Local/<bytes>      both ranks meet in a CollectiveHub as the root daemon's hub meets ranks
//                      of two instances — the rendezvous, the numerics and the cluster cost,
//                      without any RPC;
//   Forwarded/<bytes>  the same two ranks, each on its own member daemon's RootLinks (the
//                      code a member runs for each collective of its ranks: one blocking
//                      NeurondCluster.Collective call, input up, output down) to an in-process
//                      root daemon over loopback TCP, the hub behind it as above;
//   Copy/<bytes>       the host's limit for what forwarding adds: the bytes a forwarded rank
//                      moves (its input to the root, the output back) copied with memcpy.
// The ratios printed after the table: Forwarded/Local (what the RPC costs over the meeting
// itself) and the forwarded ranks' payload rate against memcpy's. See bench/README.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/ratio_reporter.h"
#include "simulator/collective/collective_hub.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/cluster/root_links.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {
namespace {

using simulator::collective::CollectiveCall;
using simulator::collective::CollectiveHub;
using simulator::collective::RankEndpoint;

constexpr char kToken[] = "cluster-bench";
constexpr int kIterations = 30;
constexpr int64_t kSizes[] = {4 << 10, 1 << 20, 16 << 20};
const char* const kInstances[] = {"member-a:1", "member-b:1"};

const simulator::InstanceSpec& Trn2() {
  return *simulator::FindInstanceSpec("trn2.3xlarge").value();
}

std::vector<uint8_t> Input(uint64_t bytes, int rank) {
  std::vector<uint8_t> input(bytes);
  auto* f = reinterpret_cast<float*>(input.data());
  for (uint64_t i = 0; i < bytes / 4; ++i) f[i] = float(rank) + 0.25f * float(i % 7);
  return input;
}

// Runs `rank_loop(rank)` for rank 1 on a thread and rank 0 in the timed loop; both do
// kIterations calls in step.
template <typename Call>
void InStep(benchmark::State& state, Call call) {
  std::atomic<bool> failed{false};
  std::thread other([&] {
    for (int64_t i = 0; i < state.max_iterations; ++i) {
      if (!call(1, i)) failed = true;
    }
  });
  int64_t i = 0;
  for (auto _ : state) {
    if (!call(0, i++)) {
      failed = true;
      break;
    }
  }
  other.join();
  if (failed) return state.SkipWithError("a rank failed");
  state.SetItemsProcessed(state.iterations());
}

void BM_Local(benchmark::State& state) {
  const uint64_t bytes = uint64_t(state.range(0));
  CollectiveHub hub(Trn2());
  const std::string communicator = "127.0.0.1:62182";
  std::unique_ptr<simulator::collective::CollectivePort> ports[2];
  std::vector<uint8_t> inputs[2] = {Input(bytes, 0), Input(bytes, 1)};
  for (int r = 0; r < 2; ++r) {
    RankEndpoint endpoint;
    endpoint.communicator = communicator;
    endpoint.rank = uint32_t(r);
    endpoint.world_size = 2;
    endpoint.cluster = true;
    endpoint.instance.id = kInstances[r];
    ports[r] = hub.Attach(endpoint, {});
  }
  double simulated_us = 0;
  InStep(state, [&](int r, int64_t) {
    CollectiveCall call;
    call.input = inputs[r];
    call.output_bytes = bytes;
    auto outcome = ports[r]->Run(std::move(call));
    if (!outcome.ok()) return false;
    if (r == 0) simulated_us = double(outcome->complete_ps) / 1e6;
    return true;
  });
  state.counters["sim_us"] = simulated_us;
}

void BM_Forwarded(benchmark::State& state) {
  const uint64_t bytes = uint64_t(state.range(0));
  DaemonOptions options;
  options.listen = "127.0.0.1:0";
  options.instance = &Trn2();
  options.service.token = kToken;
  options.cluster.listen = "127.0.0.1:0";
  auto daemon = Daemon::Start(options);
  if (!daemon.ok()) return state.SkipWithError(daemon.status().message().c_str());
  const std::string root = (*daemon)->cluster_address();
  // Each member daemon's own links to the root, bound to its rank as a session's first Execute
  // binds it.
  std::unique_ptr<cluster::RootLinks> members[2];
  v1::ClusterCollectiveRequest requests[2];
  for (int r = 0; r < 2; ++r) {
    members[r] = std::make_unique<cluster::RootLinks>(
        cluster::ClusterIdentity{kInstances[r], "trn2.3xlarge", "", kToken, ""});
    Status bound = members[r]->Bind(root, root, uint32_t(r), 2);
    if (!bound.ok()) return state.SkipWithError(bound.message().c_str());
    v1::ClusterCollectiveRequest& request = requests[r];
    request.set_communicator(root);
    request.set_rank(r);
    request.set_world_size(2);
    request.set_kind(static_cast<uint32_t>(isa::CollectiveKind::kAllReduce));
    request.set_op(static_cast<uint32_t>(isa::AluOp::kAdd));
    request.set_dtype(static_cast<uint32_t>(isa::Dtype::kFloat32));
    request.set_group_stride(1);
    const std::vector<uint8_t> input = Input(bytes, r);
    request.set_input(input.data(), input.size());
    request.set_output_bytes(bytes);
    request.set_timeout_ms(60'000);
  }
  const std::function<bool()> never = [] { return false; };
  double simulated_us = 0;
  std::string error;
  InStep(state, [&](int r, int64_t i) {
    v1::ClusterCollectiveRequest request = requests[r];
    request.set_occurrence(uint64_t(i));
    auto outcome = members[r]->Collective(root, std::move(request), never);
    if (!outcome.ok() || outcome->output.size() != bytes) {
      if (r == 0) error = outcome.ok() ? "short output" : outcome.status().message();
      return false;
    }
    if (r == 0) simulated_us = double(outcome->complete_ps) / 1e6;
    return true;
  });
  if (!error.empty()) {
    std::fprintf(stderr, "Forwarded/%llu: %s\n", (unsigned long long)bytes, error.c_str());
  }
  state.counters["sim_us"] = simulated_us;
}

// What one forwarded rank's call moves: its input to the root and the output back.
void BM_Copy(benchmark::State& state) {
  const uint64_t bytes = uint64_t(state.range(0));
  std::vector<uint8_t> input = Input(bytes, 0), at_root(bytes), output(bytes), back(bytes);
  for (auto _ : state) {
    std::memcpy(at_root.data(), input.data(), bytes);
    std::memcpy(back.data(), output.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

class ClusterReporter : public bench::RatioReporter {
 public:
  explicit ClusterReporter(OutputOptions options) : RatioReporter(options, "sim_us") {}

 protected:
  void PrintRatios() override {
    std::printf(
        "\nall_reduce fp32 of 2 ranks on 2 trn2.3xlarge instances, per collective (host time):\n");
    std::printf("  %-7s %10s %13s %15s %17s %16s %13s\n", "size", "local us", "forwarded us",
                "forwarded/local", "payload GB/s fwd", "memcpy GB/s", "fwd/memcpy");
    for (int64_t bytes : kSizes) {
      const std::string suffix =
          "/" + std::to_string(bytes) + "/iterations:" + std::to_string(kIterations) + "/real_time";
      const double local = Items("Local" + suffix);
      const double forwarded = Items("Forwarded" + suffix);
      const double copy = Items("Copy/" + std::to_string(bytes));
      if (local <= 0 || forwarded <= 0 || copy <= 0) continue;
      // A forwarded call moves 2 x bytes (input up, output down).
      const double payload = 2.0 * double(bytes) * forwarded;
      const double memcpy_rate = 2.0 * double(bytes) * copy;
      std::printf("  %-7s %10.1f %13.1f %15.2f %17.2f %16.2f %13.3f\n", SizeName(bytes).c_str(),
                  1e6 / local, 1e6 / forwarded, local / forwarded, payload / 1e9, memcpy_rate / 1e9,
                  payload / memcpy_rate);
    }
    std::printf(
        "  (simulated duration of the same collective: %.3f us at %s, the same both "
        "ways)\n",
        Mean("Forwarded", kSizes[0]), SizeName(kSizes[0]).c_str());
  }

 private:
  static std::string SizeName(int64_t bytes) {
    if (bytes >= (1 << 20)) return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes >> 10) + " KiB";
  }
};

}  // namespace
}  // namespace trnsim::neurond

int main(int argc, char** argv) {
  using namespace trnsim::neurond;  // NOLINT: registration only
  auto* local = benchmark::RegisterBenchmark("Local", BM_Local);
  auto* forwarded = benchmark::RegisterBenchmark("Forwarded", BM_Forwarded);
  auto* copy = benchmark::RegisterBenchmark("Copy", BM_Copy);
  for (int64_t bytes : kSizes) {
    local->Arg(bytes);
    forwarded->Arg(bytes);
    copy->Arg(bytes);
  }
  local->Iterations(kIterations)->UseRealTime();
  forwarded->Iterations(kIterations)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ClusterReporter reporter(benchmark::ConsoleReporter::OO_Defaults);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
