#include "simulator/core/fast_dma.h"

#include <array>
#include <cstring>
#include <vector>

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
};

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
  return lo >= 0 && hi + side.esize <= limit;
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
  // Gather the source, then scatter: overlapping operands act as a copy of the source.
  std::vector<uint8_t> staged(s.rows * s.free * uint64_t(s.esize));
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
