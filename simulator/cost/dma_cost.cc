#include "simulator/cost/dma_cost.h"

#include <algorithm>

// The model is documented in dma_cost.h and docs/calibration.md §DMA. Integer picoseconds with
// 128-bit intermediates, rounded up, so costs are deterministic on every host.

namespace trnsim::simulator::cost {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Time to move `bytes` at `bytes_per_s`, rounded up to a whole picosecond.
DurationPs BytesToPs(uint64_t bytes, uint64_t bytes_per_s) {
  const unsigned __int128 num = static_cast<unsigned __int128>(bytes) * kPsPerSecond;
  return static_cast<DurationPs>((num + bytes_per_s - 1) / bytes_per_s);
}

}  // namespace

double DmaChunkEfficiency(uint64_t chunk_bytes, const CostSpec& spec) {
  if (chunk_bytes == 0) return 0.0;
  return static_cast<double>(chunk_bytes) /
         static_cast<double>(chunk_bytes + spec.dma_chunk_overhead_bytes);
}

DurationPs DmaCost(const DmaTransfer& t, const CostSpec& spec) {
  const uint64_t all = static_cast<uint64_t>(spec.dma_engines_per_core);
  uint64_t engines = t.engines <= 0 ? all : std::min<uint64_t>(t.engines, all);
  const uint64_t chunk = t.chunk_bytes == 0 ? std::max<uint64_t>(t.bytes, 1) : t.chunk_bytes;
  const uint64_t chunks = t.bytes == 0 ? 0 : CeilDiv(t.bytes, chunk);
  const uint64_t descriptors = std::max<uint64_t>(t.descriptors, 1);
  // A transfer never keeps more engines busy than it has chunks or descriptors to hand out.
  engines = std::max<uint64_t>(1, std::min(engines, std::max(chunks, descriptors)));

  const uint64_t bytes_e = CeilDiv(t.bytes, engines);
  const uint64_t chunks_e = CeilDiv(chunks, engines);
  const uint64_t descriptors_e = CeilDiv(descriptors, engines);
  const DurationPs engine_ps =
      BytesToPs(bytes_e + chunks_e * spec.dma_chunk_overhead_bytes, spec.dma_engine_bytes_per_s) +
      descriptors_e * spec.dma_descriptor_overhead_ps;

  DurationPs hbm_ps = 0;
  if (t.hbm_sides > 0 && spec.cores_sharing_hbm_bandwidth > 0)
    hbm_ps = BytesToPs(t.bytes * static_cast<uint64_t>(t.hbm_sides), spec.HbmBytesPerSPerCore());
  return spec.dma_start_latency_ps + std::max(engine_ps, hbm_ps);
}

}  // namespace trnsim::simulator::cost
