#include "simulator/core/dma_split.h"

#include <algorithm>

namespace trnsim::simulator::core {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

// Contiguous bytes per innermost run of an operand: its innermost free dim when unit-stride.
uint64_t RunBytes(const isa::AccessPattern& ap) {
  const uint64_t esize = uint64_t(isa::DtypeSize(ap.dtype));
  if (ap.num_dims == 0) return esize;
  const int inner = ap.num_dims - 1;
  return ap.strides[inner] == 1 ? uint64_t(ap.sizes[inner]) * esize : esize;
}

DmaSplit Empty(int engines) {
  DmaSplit s;
  s.engines.resize(size_t(std::max(1, engines)));
  return s;
}

// Bytes of an endpoint's pattern from its first to one past its last byte.
uint64_t Extent(const dma::Endpoint& e) {
  if (e.sizes.empty()) return 0;
  int64_t span = int64_t(e.sizes[0]);
  for (size_t i = 1; i < e.sizes.size() && i < e.steps.size(); ++i)
    if (e.sizes[i] > 0) span += int64_t(e.sizes[i] - 1) * std::max<int64_t>(0, e.steps[i]);
  return uint64_t(std::max<int64_t>(span, 0));
}

}  // namespace

DmaSplit SplitByPartitions(uint64_t first_partition, uint64_t partitions,
                           uint64_t bytes_per_partition, uint64_t element_bytes, int engines,
                           int partitions_per_engine) {
  DmaSplit s = Empty(engines);
  const uint64_t group = uint64_t(std::max(1, partitions_per_engine));
  const uint64_t run =
      element_bytes == 0 ? bytes_per_partition : std::min(element_bytes, bytes_per_partition);
  const uint64_t elements = bytes_per_partition == 0 ? 0 : CeilDiv(bytes_per_partition, run);
  for (uint64_t p = first_partition; p < first_partition + partitions; ++p) {
    DmaEngineShare& e = s.engines[(p / group) % s.engines.size()];
    e.bytes += bytes_per_partition;
    e.elements += elements;
  }
  s.bytes = partitions * bytes_per_partition;
  return s;
}

DmaSplit SplitEvenly(uint64_t bytes, uint64_t element_bytes, int engines) {
  DmaSplit s = Empty(engines);
  const uint64_t n = s.engines.size();
  const uint64_t run = element_bytes == 0 ? std::max<uint64_t>(bytes, 1) : element_bytes;
  for (uint64_t k = 0; k < n; ++k) {
    DmaEngineShare& e = s.engines[k];
    e.bytes = bytes / n + (k < bytes % n ? 1 : 0);
    e.elements = CeilDiv(e.bytes, run);
  }
  s.bytes = bytes;
  return s;
}

DmaSplit SplitCopy(const isa::AccessPattern& dst, const isa::AccessPattern& src, int engines,
                   int partitions_per_engine) {
  const uint64_t bytes = dst.Elements() * uint64_t(isa::DtypeSize(dst.dtype));
  const uint64_t run = std::min(RunBytes(dst), RunBytes(src));
  const isa::AccessPattern* sbuf = dst.on_chip() ? &dst : src.on_chip() ? &src : nullptr;
  DmaSplit s;
  if (sbuf == nullptr) {
    s = SplitEvenly(bytes, run, engines);
  } else {
    const uint64_t partitions = std::max<uint64_t>(1, sbuf->num_partitions);
    s = SplitByPartitions(sbuf->start_partition, partitions, bytes / partitions, run, engines,
                          partitions_per_engine);
    s.bytes = bytes;
  }
  s.hbm_read = src.memory == isa::Memory::kHbm;
  s.hbm_sides = (dst.memory == isa::Memory::kHbm) + (src.memory == isa::Memory::kHbm);
  return s;
}

DmaSplit SplitDescriptor(const dma::Descriptor& d, uint64_t sbuf_bytes_per_partition, int engines,
                         int partitions_per_engine) {
  const dma::TransferShape shape = dma::ShapeOf(d);
  const dma::Endpoint* sbuf = nullptr;
  if (d.dest.var_id == dma::kSbufVarId)
    sbuf = &d.dest;
  else if (!d.sources.empty() && d.sources[0].var_id == dma::kSbufVarId)
    sbuf = &d.sources[0];
  DmaSplit s;
  const uint64_t extent = sbuf ? Extent(*sbuf) : 0;
  if (sbuf == nullptr || sbuf_bytes_per_partition == 0 || extent == 0) {
    s = SplitEvenly(shape.bytes, shape.chunk_bytes, engines);
  } else {
    const uint64_t first = sbuf->offset / sbuf_bytes_per_partition;
    const uint64_t last = (sbuf->offset + extent - 1) / sbuf_bytes_per_partition;
    const uint64_t partitions = last - first + 1;
    s = SplitByPartitions(first, partitions, CeilDiv(shape.bytes, partitions), shape.chunk_bytes,
                          engines, partitions_per_engine);
    s.bytes = shape.bytes;
  }
  bool hbm_source = false;
  for (const dma::Endpoint& e : d.sources) hbm_source |= e.var_id != dma::kSbufVarId;
  s.hbm_read = hbm_source;
  s.hbm_sides = shape.hbm_sides;
  return s;
}

}  // namespace trnsim::simulator::core
