// nccom_table: AWS nccom-test's result table (tools/neuron-sys-tools/nccom-test.rst: size(B),
// count(elems), type, time:avg(us), algbw(GB/s), busbw(GB/s), algorithm) for a collective over
// R ranks of an emulated instance, from trnsim's collective model. Sizes up to
// --functional-max run functionally: one host thread per rank with real data through the
// instance's CollectiveHub (the path a `collective` instruction takes), the time the hub
// stamps; larger sizes, too big for a small host, come from EstimateCollective (the same
// function the hub calls). The `path` column / JSON field says which. Simulated time only:
// deterministic, the same on every host. Used by bench/fidelity/cases/c09_collectives.py.
//
//   nccom_table [--instance trn2.48xlarge] [-r 16] [--ranks-per-chip 4] [-b 4] [-e 1073741824]
//               [-f 16] [--sizes 4,32,...] [-d fp32] [--op all_reduce]
//               [--functional-max 33554432] [--json]
//
// Ranks are placed as at LNC 2: --ranks-per-chip ranks on each chip (physical cores 0, 2, ...),
// chips in device order. The sizes are nccom-test's: the collective's size(B) (all_reduce,
// reduce_scatter: a rank's input; all_gather: its output), b, b*f, ... up to e.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "simulator/collective/collective_cost.h"
#include "simulator/collective/collective_hub.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {
namespace {

struct Options {
  std::string instance = "trn2.48xlarge";
  int ranks = 16;
  int ranks_per_chip = 4;
  uint64_t min_bytes = 4, max_bytes = 1ull << 30, factor = 16;
  std::string op = "all_reduce";
  uint64_t functional_max = 32ull << 20;
  std::vector<uint64_t> sizes;  // --sizes: these instead of b, b*f, ..., e
  bool json = false;
};

int Usage(const char* why) {
  std::fprintf(stderr, "nccom_table: %s (see the header of bench/simulator/nccom_table.cc)\n", why);
  return 2;
}

bool ParseKind(const std::string& name, CollectiveKind& kind) {
  for (int k = 0; k < kCollectiveKindCount; ++k) {
    if (name == CollectiveKindName(static_cast<CollectiveKind>(k))) {
      kind = static_cast<CollectiveKind>(k);
      return true;
    }
  }
  return false;
}

// The time the hub stamps on an fp32 all-reduce-family collective of `size` run by one
// thread per rank with real data, every rank arriving at 0; 0 on failure.
DurationPs RunThroughHub(const InstanceSpec& spec, const Options& o, CollectiveKind kind,
                         uint64_t size, const std::vector<RankPlacement>& placement) {
  const uint32_t g = static_cast<uint32_t>(o.ranks);
  uint64_t in = size, out = size;
  if (kind == CollectiveKind::kAllGather) in = size / g;
  if (kind == CollectiveKind::kReduceScatter) out = size / g;
  CollectiveHub hub(spec);
  std::vector<DurationPs> done(g, 0);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < g; ++r) {
    threads.emplace_back([&, r] {
      auto port = hub.Attach({"nccom_table", r, g, placement[r].chip, 0}, {});
      CollectiveCall c;
      c.kind = kind;
      c.op = kind == CollectiveKind::kAllGather ? isa::AluOp::kBypass : isa::AluOp::kAdd;
      c.dtype = isa::Dtype::kFloat32;
      c.input.assign(in, 0);
      auto* f = reinterpret_cast<float*>(c.input.data());
      for (uint64_t i = 0; i < in / 4; ++i) f[i] = float(r + 1);
      c.output_bytes = out;
      c.physical_core = placement[r].physical_core;
      auto outcome = port->Run(std::move(c));
      if (outcome.ok()) done[r] = outcome->complete_ps;
    });
  }
  for (std::thread& t : threads) t.join();
  for (DurationPs d : done) {
    if (d != done[0]) return 0;
  }
  return done[0];
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--json") {
      o.json = true;
    } else if (a == "--instance" && (v = next())) {
      o.instance = v;
    } else if (a == "-r" && (v = next())) {
      o.ranks = std::atoi(v);
    } else if (a == "--ranks-per-chip" && (v = next())) {
      o.ranks_per_chip = std::atoi(v);
    } else if (a == "-b" && (v = next())) {
      o.min_bytes = std::strtoull(v, nullptr, 10);
    } else if (a == "-e" && (v = next())) {
      o.max_bytes = std::strtoull(v, nullptr, 10);
    } else if (a == "-f" && (v = next())) {
      o.factor = std::strtoull(v, nullptr, 10);
    } else if (a == "-d" && (v = next())) {
      if (std::string(v) != "fp32") return Usage("only -d fp32 is supported");
    } else if (a == "--op" && (v = next())) {
      o.op = v;
    } else if (a == "--sizes" && (v = next())) {
      for (const char* p = v; *p != 0;) {
        char* end = nullptr;
        o.sizes.push_back(std::strtoull(p, &end, 10));
        if (end == p || (*end != ',' && *end != 0)) return Usage("bad --sizes list");
        p = *end == ',' ? end + 1 : end;
      }
    } else if (a == "--functional-max" && (v = next())) {
      o.functional_max = std::strtoull(v, nullptr, 10);
    } else {
      return Usage(("bad argument '" + a + "'").c_str());
    }
  }
  auto spec_or = FindInstanceSpec(o.instance);
  if (!spec_or.ok()) return Usage(spec_or.status().ToString().c_str());
  const InstanceSpec& spec = **spec_or;
  CollectiveKind kind;
  if (!ParseKind(o.op, kind) || kind == CollectiveKind::kAllToAll ||
      kind == CollectiveKind::kPermute) {
    return Usage("--op must be all_reduce, all_gather or reduce_scatter");
  }
  if (o.ranks < 2 || o.ranks_per_chip < 1 || o.ranks % o.ranks_per_chip != 0 ||
      o.ranks / o.ranks_per_chip > spec.chip_count ||
      2 * o.ranks_per_chip > spec.chip->physical_cores || o.min_bytes < 4 || o.factor < 2 ||
      o.min_bytes > o.max_bytes) {
    return Usage("bad ranks, placement or sizes");
  }
  if (o.sizes.empty()) {
    for (uint64_t size = o.min_bytes; size <= o.max_bytes; size *= o.factor) {
      o.sizes.push_back(size);
      if (size > o.max_bytes / o.factor) break;
    }
  }
  for (uint64_t size : o.sizes) {
    if (size < 4 || size % 4 != 0) return Usage("sizes must be whole fp32 elements");
  }
  std::vector<RankPlacement> placement;
  for (int r = 0; r < o.ranks; ++r) {
    placement.push_back({r / o.ranks_per_chip, 2 * (r % o.ranks_per_chip)});
  }
  const double g = o.ranks;
  const double bus_factor = kind == CollectiveKind::kAllReduce ? 2 * (g - 1) / g : (g - 1) / g;
  if (!o.json) {
    std::printf("%9s %15s %8s %15s %14s %14s %12s %11s\n", "size(B)", "count(elems)", "type",
                "time:avg(us)", "algbw(GB/s)", "busbw(GB/s)", "algorithm", "path");
  } else {
    std::printf("[");
  }
  double busbw_sum = 0;
  int rows = 0;
  for (uint64_t size : o.sizes) {
    const uint64_t in = kind == CollectiveKind::kAllGather ? size / o.ranks : size;
    auto cost = EstimateCollective(spec, kind, in, placement);
    if (!cost.ok()) return Usage(cost.status().ToString().c_str());
    DurationPs ps = cost->duration_ps;
    const uint64_t whole = kind == CollectiveKind::kAllReduce ? 4 : 4ull * o.ranks;
    const bool functional = size <= o.functional_max && size % whole == 0;
    if (functional) {
      ps = RunThroughHub(spec, o, kind, size, placement);
      if (ps == 0) {
        std::fprintf(stderr, "nccom_table: the %llu B collective failed through the hub\n",
                     static_cast<unsigned long long>(size));
        return 1;
      }
    }
    const double us = double(ps) / 1e6;
    // nccom-test's own rows are size / time in 1e9 B/s (536870912 B in 9689.51 us: 55.41).
    const double algbw = double(size) / (double(ps) / 1e12) / 1e9;
    const double busbw = algbw * bus_factor;
    busbw_sum += busbw;
    ++rows;
    const char* path = functional ? "hub" : "cost";
    if (o.json) {
      std::printf(
          "%s\n  {\"size\": %llu, \"count\": %llu, \"type\": \"fp32\", \"time_us\": %.6f, "
          "\"algbw\": %.4f, \"busbw\": %.4f, \"algorithm\": \"%s\", \"path\": \"%s\"}",
          rows > 1 ? "," : "", static_cast<unsigned long long>(size),
          static_cast<unsigned long long>(size / 4), us, algbw, busbw, cost->algorithm.c_str(),
          path);
    } else {
      std::printf("%9llu %15llu %8s %15.2f %14.2f %14.2f %12s %11s\n",
                  static_cast<unsigned long long>(size), static_cast<unsigned long long>(size / 4),
                  "fp32", us, algbw, busbw, cost->algorithm.c_str(), path);
    }
  }
  if (o.json) {
    std::printf("\n]\n");
  } else {
    std::printf("Avg bus bandwidth:\t%.4fGB/s\n", rows ? busbw_sum / rows : 0.0);
  }
  return 0;
}

}  // namespace
}  // namespace trnsim::simulator::collective

int main(int argc, char** argv) { return trnsim::simulator::collective::Main(argc, argv); }
