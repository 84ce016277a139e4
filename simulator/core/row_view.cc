#include "simulator/core/row_view.h"

#include <utility>

namespace trnsim::simulator::core {

bool MakeRowView(const isa::AccessPattern& ap, reference::CoreState& s, uint64_t max_elements,
                 RowView& v) {
  using isa::Memory;
  if (ap.memory != Memory::kSbuf && ap.memory != Memory::kPsum) return false;
  if (ap.offset_reg != isa::kNoRegister || !isa::IsFloat(ap.dtype)) return false;
  if (ap.num_dims < 1 || ap.num_dims > isa::kMaxFreeDims || ap.num_partitions == 0) return false;
  v.esize = isa::DtypeSize(ap.dtype);
  v.dtype = ap.dtype;
  v.rows = ap.num_partitions;
  v.first_partition = ap.start_partition;
  v.free = ap.FreeElements();
  if (v.free == 0 || v.elements() > max_elements) return false;
  const bool sbuf = ap.memory == Memory::kSbuf;
  const int64_t limit =
      sbuf ? s.limits.sbuf_bytes_per_partition : s.limits.psum_bytes_per_partition;
  if (uint64_t(ap.start_partition) + v.rows > uint64_t(s.limits.partitions)) return false;
  if (ap.offset > (int64_t{1} << 48) || ap.offset < -(int64_t{1} << 48)) return false;
  int64_t lo = ap.offset, hi = ap.offset;
  for (int d = 0; d < ap.num_dims; ++d) {
    const int64_t span = int64_t(ap.sizes[d] - 1) * ap.strides[d] * v.esize;
    (span < 0 ? lo : hi) += span;
  }
  if (lo < 0 || hi + v.esize > limit) return false;
  // Size-1 dims move nothing; the innermost remaining one must be unit-stride, and outer dims
  // whose stride continues the run merge into it.
  int dims[isa::kMaxFreeDims];
  int n = 0;
  for (int d = 0; d < ap.num_dims; ++d)
    if (ap.sizes[d] > 1) dims[n++] = d;
  v.run = 1;
  while (n > 0 && ap.strides[dims[n - 1]] == int64_t(v.run)) v.run *= ap.sizes[dims[--n]];
  if (n > 0 && v.run == 1) return false;  // innermost free stride is not 1
  if (v.free / v.run > kMaxRuns) return false;
  // The remaining outer dims, enumerated row-major (the element order of docs/isa.md §4).
  v.runs.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    const int d = dims[i];
    std::vector<int64_t> next;
    next.reserve(v.runs.size() * ap.sizes[d]);
    for (int64_t base : v.runs)
      for (int64_t j = 0; j < ap.sizes[d]; ++j) next.push_back(base + j * ap.strides[d] * v.esize);
    v.runs = std::move(next);
  }
  uint8_t* mem = sbuf ? s.sbuf.data() : s.psum.data();
  v.pitch = uint64_t(limit);
  v.row0 = mem + ap.start_partition * v.pitch + ap.offset;
  return true;
}

void PrefetchRow(const RowView& v, uint32_t r) {
  if (r >= v.rows || v.run * v.esize < 64) return;
  for (size_t i = 0; i < v.runs.size(); ++i)
    for (uint64_t b = 0; b < v.run * v.esize; b += 64) __builtin_prefetch(v.Run(r, i) + b);
}

}  // namespace trnsim::simulator::core
