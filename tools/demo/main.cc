// trnsim-demo: prints the emulated instance and round-trips data through emulated HBM using
// only libnrt's public C API (plus trnsim's spec tables for --instances).
//
//   trnsim-demo              the instance selected by TRNSIM_INSTANCE / NEURON_* variables
//   trnsim-demo --instances  every instance type trnsim emulates
//   trnsim-demo --env        every environment variable trnsim reads
//   trnsim-demo --version    trnsim's version (of the libnrt it runs with)
//   trnsim-demo --help       this usage
#include <nrt/nrt.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_version.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/env.h"
#include "simulator/spec/instance_spec.h"
#include "tools/cli/libnrt_version_text.h"

namespace {

constexpr char kUsage[] =
    "trnsim-demo: show the emulated instance and move data through its device memory\n"
    "usage: trnsim-demo [--instances | --env | --version | --help]\n"
    "  (no option)   the instance TRNSIM_INSTANCE / NEURON_* select, and a 64 MiB round trip\n"
    "  --instances   every instance type trnsim emulates\n"
    "  --env         every environment variable trnsim reads\n"
    "  --version     trnsim's version\n"
    "  --help        this text\n";

int Fail(const char* what, NRT_STATUS status) {
  std::fprintf(stderr, "trnsim-demo: %s failed: %s (%d)\n", what, nrt_get_status_as_str(status),
               static_cast<int>(status));
  return 1;
}

int ListInstances() {
  std::printf("%-16s %5s %6s %9s  %s\n", "INSTANCE TYPE", "CHIPS", "CORES", "HBM", "DESCRIPTION");
  for (const auto& spec : trnsim::simulator::InstanceSpecs()) {
    std::printf("%-16s %5d %6d %6llu GiB  %s\n", spec.type_name.c_str(), spec.chip_count,
                spec.PhysicalCores(),
                static_cast<unsigned long long>(spec.DeviceMemoryBytes() >> 30),
                spec.description.c_str());
  }
  return 0;
}

int ListEnvironment() {
  for (const auto& info : trnsim::EnvTable()) {
    std::printf("%s (default: %s)\n    %s\n", info.name,
                *info.default_value ? info.default_value : "unset", info.doc);
  }
  return 0;
}

// Writes a pattern into a device tensor on `vnc`, copies it to a second tensor on the same
// core, reads it back, and checks every byte. Returns the bytes verified or -1.
long long RoundTrip(int vnc, size_t bytes, double* seconds, nrt_vnc_memory_stats_t* stats) {
  nrt_tensor_t* a = nullptr;
  nrt_tensor_t* b = nullptr;
  NRT_STATUS s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, bytes, "demo_a", &a);
  if (s != NRT_SUCCESS) return Fail("nrt_tensor_allocate", s), -1;
  s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, bytes, "demo_b", &b);
  if (s != NRT_SUCCESS) return nrt_tensor_free(&a), Fail("nrt_tensor_allocate", s), -1;

  std::vector<uint8_t> out(bytes), in(bytes);
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(i * 131 + vnc);
  auto start = std::chrono::steady_clock::now();
  bool ok = nrt_tensor_write(a, out.data(), 0, bytes) == NRT_SUCCESS &&
            nrt_tensor_copy(a, 0, b, 0, bytes) == NRT_SUCCESS &&
            nrt_tensor_read(b, in.data(), 0, bytes) == NRT_SUCCESS;
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t written = 0;
  ok = ok && nrt_get_vnc_memory_stats(vnc, stats, sizeof(*stats), &written) == NRT_SUCCESS;
  nrt_tensor_free(&a);
  nrt_tensor_free(&b);
  if (!ok || std::memcmp(out.data(), in.data(), bytes) != 0) return -1;
  return static_cast<long long>(bytes);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--instances")) return ListInstances();
    if (!std::strcmp(argv[i], "--env")) return ListEnvironment();
    if (!std::strcmp(argv[i], "--version")) {
      std::printf("%s\n", trnsim::cli::LibnrtVersionText("trnsim-demo").c_str());
      return 0;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "trnsim-demo: unknown option '%s'\n%s", argv[i], kUsage);
    return 2;
  }

  nrt_version_t version;
  NRT_STATUS s = nrt_get_version(&version, sizeof(version));
  if (s != NRT_SUCCESS) return Fail("nrt_get_version", s);
  s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (s != NRT_SUCCESS) return Fail("nrt_init", s);

  nrt_instance_info_t info;
  uint32_t total = 0, visible = 0;
  if ((s = nrt_get_instance_info(&info, sizeof(info))) != NRT_SUCCESS) {
    return Fail("nrt_get_instance_info", s);
  }
  if ((s = nrt_get_total_vnc_count(&total)) != NRT_SUCCESS) return Fail("total count", s);
  if ((s = nrt_get_visible_vnc_count(&visible)) != NRT_SUCCESS) return Fail("visible count", s);

  trnsim::Environment env = trnsim::Environment::FromProcess();
  auto spec = trnsim::simulator::FindInstanceSpec(env.Get(trnsim::EnvVar::kInstance));
  if (!spec.ok()) return Fail("instance lookup", NRT_INVALID);
  const auto& chip = *(*spec)->chip;
  uint32_t per_chip = total / static_cast<uint32_t>((*spec)->chip_count);

  std::printf("%s\n", version.rt_detail);
  std::printf("instance-type: %s (emulated)\n", (*spec)->type_name.c_str());
  std::printf("  %s\n", (*spec)->description.c_str());
  std::printf("  family %u, size %u, arch %s, revision %s\n", info.family, info.size,
              info.arch_name, info.device_revision);
  std::printf("logical-neuroncore-config: %u\n", chip.physical_cores / per_chip);
  std::printf("logical cores: %u in the instance, %u visible to this process\n\n", total,
              visible);
  std::printf("%-8s %-14s %-10s %s\n", "DEVICE", "LOGICAL CORES", "HBM", "STACKS");
  for (int d = 0; d < (*spec)->chip_count; ++d) {
    std::printf("%-8d %3u-%-10u %4llu GiB   %d x %llu GiB\n", d, d * per_chip,
                (d + 1) * per_chip - 1, static_cast<unsigned long long>(chip.HbmBytes() >> 30),
                chip.hbm_stacks,
                static_cast<unsigned long long>(chip.hbm_bytes_per_stack >> 30));
  }

  std::printf("\nround trip host -> HBM -> HBM -> host (64 MiB) on the first and last core:\n");
  const size_t kBytes = 64u << 20;
  int result = 0;
  for (uint32_t vnc : {0u, visible - 1}) {
    double seconds = 0;
    nrt_vnc_memory_stats_t stats = {};
    long long moved = RoundTrip(static_cast<int>(vnc), kBytes, &seconds, &stats);
    if (moved < 0) {
      std::printf("  vnc %-3u FAILED: data did not survive the round trip\n", vnc);
      result = 1;
      continue;
    }
    std::printf("  vnc %-3u ok: %lld bytes verified, %.2f GB/s host-side; HBM in use %zu MiB "
                "of %zu GiB\n",
                vnc, moved, 3.0 * static_cast<double>(moved) / seconds / 1e9, stats.bytes_used >> 20,
                stats.bytes_limit >> 30);
    if (visible == 1) break;
  }
  nrt_close();
  return result;
}
