#include "simulator/core/fast_dma.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "simulator/memory/staging_bytes.h"

namespace trnsim::simulator::core {

namespace {

// An access pattern resolved to memory: where row r's element (i0..i3) lives.
struct Side {
  uint8_t* mem = nullptr;
  int64_t base = 0;       // bytes: offset
  int64_t row_pitch = 0;  // bytes between rows (partition pitch on chip, partition_stride in HBM)
  int esize = 0;
  const isa::AccessPattern* ap = nullptr;
  uint64_t rows = 0, free = 0;
  const uint8_t* first = nullptr;  // the bytes [first, last) span every element
  const uint8_t* last = nullptr;
};

// Transfers whose destination has more contiguous runs than this are staged instead of copied
// run to run (the run list would cost more than the staging).
constexpr uint64_t kMaxListedRuns = 1 << 16;

// Binds `ap` with the reference's bounds rule (operand.cc); false when the fast path cannot or
// must not take it.
bool Bind(const isa::AccessPattern& ap, reference::CoreState& s, reference::HbmView& hbm,
          Side& side) {
  if (ap.offset_reg != isa::kNoRegister || ap.num_dims < 1 || ap.num_dims > isa::kMaxFreeDims)
    return false;
  side.ap = &ap;
  side.esize = isa::DtypeSize(ap.dtype);
  side.rows = ap.num_partitions;
  side.free = ap.FreeElements();
  if (side.esize == 0 || side.rows == 0 || side.free == 0) return false;
  if (ap.offset > (int64_t{1} << 48) || ap.offset < -(int64_t{1} << 48)) return false;
  side.base = ap.offset;
  int64_t lo = ap.offset, hi = ap.offset;
  for (int d = 0; d < ap.num_dims; ++d) {
    const int64_t span = int64_t(ap.sizes[d] - 1) * ap.strides[d] * side.esize;
    (span < 0 ? lo : hi) += span;
  }
  int64_t limit = 0;
  switch (ap.memory) {
    case isa::Memory::kSbuf:
    case isa::Memory::kPsum: {
      const bool sbuf = ap.memory == isa::Memory::kSbuf;
      limit = sbuf ? s.limits.sbuf_bytes_per_partition : s.limits.psum_bytes_per_partition;
      if (ap.start_partition + side.rows > uint64_t(s.limits.partitions)) return false;
      side.mem = (sbuf ? s.sbuf.data() : s.psum.data()) + size_t(ap.start_partition) * limit;
      side.row_pitch = limit;
      break;
    }
    case isa::Memory::kHbm: {
      auto var = hbm.Var(ap.var_id);
      if (!var.ok()) return false;
      const int64_t row_span = int64_t(side.rows - 1) * ap.partition_stride * side.esize;
      (row_span < 0 ? lo : hi) += row_span;
      limit = int64_t(var->size());
      side.mem = var->data();
      side.row_pitch = int64_t(ap.partition_stride) * side.esize;
      break;
    }
    default:
      return false;
  }
  if (lo < 0 || hi + side.esize > limit) return false;
  // Rows run forwards or backwards (a negative HBM partition_stride); lo/hi cover that above
  // for HBM, and SBUF/PSUM rows go forwards by the partition pitch.
  const int64_t row_extra =
      ap.memory == isa::Memory::kHbm ? 0 : int64_t(side.rows - 1) * side.row_pitch;
  side.first = side.mem + lo;
  side.last = side.mem + hi + side.esize + row_extra;
  return true;
}

bool Overlap(const Side& a, const Side& b) {
  return std::less<const uint8_t*>()(a.first, b.last) &&
         std::less<const uint8_t*>()(b.first, a.last);
}

// Calls run(byte_address, bytes) for each contiguous innermost run of `side`, in element order.
template <typename F>
void ForEachRun(const Side& side, F&& run) {
  const isa::AccessPattern& ap = *side.ap;
  const int inner = ap.num_dims - 1;
  const bool contiguous = ap.strides[inner] == 1;
  std::array<uint16_t, isa::kMaxFreeDims> size{1, 1, 1, 1};
  std::array<int64_t, isa::kMaxFreeDims> step{0, 0, 0, 0};
  // Left-align the outer dims into 3 slots (the innermost is handled as a run).
  for (int d = 0; d < inner; ++d) {
    size[size_t(3 - inner + d)] = ap.sizes[d];
    step[size_t(3 - inner + d)] = int64_t(ap.strides[d]) * side.esize;
  }
  const uint64_t n = ap.sizes[inner];
  const int64_t inner_step = int64_t(ap.strides[inner]) * side.esize;
  for (uint64_t r = 0; r < side.rows; ++r) {
    uint8_t* row = side.mem + int64_t(r) * side.row_pitch + side.base;
    for (uint16_t a = 0; a < size[0]; ++a)
      for (uint16_t b = 0; b < size[1]; ++b)
        for (uint16_t c = 0; c < size[2]; ++c) {
          uint8_t* p = row + a * step[0] + b * step[1] + c * step[2];
          if (contiguous) {
            run(p, n * uint64_t(side.esize));
          } else {
            for (uint64_t i = 0; i < n; ++i) run(p + int64_t(i) * inner_step, uint64_t(side.esize));
          }
        }
  }
}

}  // namespace

StatusOr<bool> TryFastDmaCopy(const isa::Instruction& inst, reference::CoreState& state,
                              reference::HbmView& hbm) {
  if (inst.opcode != isa::Opcode::kDmaCopy) return false;
  const isa::AccessPattern& dst = inst.ap[0];
  const isa::AccessPattern& src = inst.ap[1];
  if (dst.dtype != src.dtype) return false;
  Side d, s;
  if (!Bind(dst, state, hbm, d) || !Bind(src, state, hbm, s)) return false;
  if (d.rows * d.free != s.rows * s.free) return false;
  // Runs the destination is made of (ForEachRun: one per row and outer index when contiguous).
  const uint64_t dst_runs = d.rows * d.free / dst.sizes[dst.num_dims - 1];
  const bool contiguous = src.strides[src.num_dims - 1] == 1 && dst.strides[dst.num_dims - 1] == 1;
  if (contiguous && dst_runs <= kMaxListedRuns && !Overlap(d, s)) {
    // Straight from source runs to destination runs, no staging: the destination's runs are
    // listed (reused per thread), then the source's are walked against them.
    thread_local std::vector<std::pair<uint8_t*, uint64_t>> runs;
    runs.clear();
    ForEachRun(d, [&](uint8_t* p, uint64_t bytes) { runs.emplace_back(p, bytes); });
    size_t k = 0;
    uint64_t at = 0;  // bytes of runs[k] written
    ForEachRun(s, [&](const uint8_t* p, uint64_t bytes) {
      while (bytes > 0) {
        const uint64_t n = std::min(bytes, runs[k].second - at);
        std::memcpy(runs[k].first + at, p, n);
        p += n;
        bytes -= n;
        at += n;
        if (at == runs[k].second) {
          ++k;
          at = 0;
        }
      }
    });
    return true;
  }
  // Gather the source, then scatter: overlapping operands act as a copy of the source. The
  // staging bytes are reused across calls and never zero-filled (all of them are written).
  StagingBytes staged(s.rows * s.free * uint64_t(s.esize));
  uint8_t* out = staged.data();
  ForEachRun(s, [&](const uint8_t* p, uint64_t bytes) {
    std::memcpy(out, p, bytes);
    out += bytes;
  });
  const uint8_t* in = staged.data();
  ForEachRun(d, [&](uint8_t* p, uint64_t bytes) {
    std::memcpy(p, in, bytes);
    in += bytes;
  });
  return true;
}

}  // namespace trnsim::simulator::core
