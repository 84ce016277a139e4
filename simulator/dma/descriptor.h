// DMA descriptors as the chip model executes them: a NEFF engine-JSON `dma` entry with every
// name resolved (variables to var_ids, queue sets to queue indices) by the runtime at load.
// dma_trigger (docs/isa.md §7.2) starts descriptors by id; the DMA engines move their bytes.
//
// Addressing (docs/neff.md "Access patterns"): an Endpoint moves elements of `dtype`; dimension 0
// has sizes[0] / element_size elements spaced steps[0] bytes apart, dimension i >= 1 repeats
// sizes[i] times at steps[i] bytes; element (k0, k1, ...) is at byte offset + Σ k_i·steps[i] of
// its memory. No steps/sizes: the contiguous bytes [offset, size of the memory).
// Memory: an HBM variable by var_id (reference::HbmView), or — var_id == kSbufVarId — the
// core's SBUF as one flat, partition-major byte space (byte b of partition p is at
// p * sbuf_bytes_per_partition + b): a NEFF `state-buffer` variable names the whole SBUF
// (docs/decisions.md, "DMA").
//
// Op semantics, element k of the destination against element k of the source(s) (element k is
// the k-th in pattern order, dimension 0 fastest; counts must match):
//   copy       dst = src (same dtype, fp32r counting as fp32: bits; else a cast)
//   cast       the same as copy
//   add        dst = src0 + src1 + ... (sources in order; with one source: dst = dst + src)
//   fma        dst = dst + src * scale
//   min, max   dst = min(src, constant), max(src, constant)
//   transpose  dst[j][i] = src[i][j] on transpose_rows x transpose_cols elements of
//              transpose_element_size bytes (bits moved unchanged); each side is the packed
//              bytes of its pattern, and both must hold exactly rows·cols·element_size bytes
// Arithmetic (docs/numerics.md):
//   - A cast is numerics::ConvertElements, as dma_copy: src -> fp32 -> dst, RNE to floats (fp8
//     overflow gives ±inf), RNE with saturation to integers (NaN -> 0).
//   - add/fma/min/max with every endpoint an integer dtype (and an integral scale/constant):
//     exact integer arithmetic on sign/zero-extended values, wrapping; the result is truncated
//     to the destination width, like the integer paths of docs/isa.md §6.1.
//   - Otherwise in fp32: inputs converted exactly (integers to the nearest fp32), add is a
//     left-to-right chain of fp32 adds, fma is fused (one rounding: fmaf(src, fp32(scale), dst)),
//     min/max are numerics::ApplyAlu minimum/maximum against fp32(constant) (NaN in, NaN out);
//     the fp32 result is stored with RNE (saturating for integer destinations).
// Every source (and the destination, for add with one source and fma) is read in full before
// the destination is written, so overlapping endpoints behave as if the sources were copied
// first. Same-dtype copies move whole contiguous runs with memcpy, source runs straight into
// destination runs when the two do not overlap; other transfers stage in reused, never
// zero-filled bytes (simulator/memory/staging_bytes.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/status.h"
#include "simulator/isa/dtype.h"
#include "simulator/isa/engine.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::dma {

inline constexpr uint32_t kSbufVarId = 0xFFFFFFFFu;

enum class Op { kCopy, kCast, kAdd, kFma, kMin, kMax, kTranspose };

struct Endpoint {
  uint32_t var_id = 0;  // an HBM variable, or kSbufVarId
  uint64_t offset = 0;
  std::vector<int64_t> steps;   // bytes, innermost first (<= 4)
  std::vector<uint64_t> sizes;  // sizes[0] in bytes, the others counts
  isa::Dtype dtype = isa::Dtype::kUint8;
};

struct Descriptor {
  int64_t id = 0;
  int queue = 0;  // the core's DMA queue (0 .. dma_queues-1) the transfer runs on
  Op op = Op::kCopy;
  std::vector<Endpoint> sources;  // 1 for most ops; up to 16 (CCE add)
  Endpoint dest;
  double scale = 1.0;     // fma
  double constant = 0.0;  // min/max
  uint32_t transpose_rows = 0, transpose_cols = 0, transpose_element_size = 0;
  // On completion: S[semaphore] += semaphore_increment, E[event] = 1 (docs/isa.md §7.2).
  std::optional<uint32_t> semaphore;
  uint32_t semaphore_increment = 1;
  std::optional<uint32_t> event;
};

// The descriptors of each engine's JSON, in id order.
struct DescriptorTable {
  std::vector<Descriptor> per_engine[isa::kEngineCount];
  // The descriptor `id` of `engine`, or nullptr.
  const Descriptor* Find(isa::Engine engine, int64_t id) const;
};

// What a descriptor moves, for the DMA engines (core/dma_split.h): payload bytes (destination
// side), contiguous chunk size (the destination's dim-0 run: sizes[0] when steps[0] is the element
// size, else one element), how many of its sides are HBM (sources and destination, capped at
// 2), and the HBM bytes read (HBM sources, plus the destination for add with one source and
// fma) and written. An endpoint without steps/sizes ("the rest of its memory") counts 0 bytes:
// its size is known only against the memory; BuildDescriptorTable never produces one.
struct TransferShape {
  uint64_t bytes = 0;
  uint64_t chunk_bytes = 0;
  int hbm_sides = 0;
  uint64_t hbm_read_bytes = 0;
  uint64_t hbm_write_bytes = 0;
};
TransferShape ShapeOf(const Descriptor& d);

// Performs the data movement of `d` against `state` (SBUF) and `hbm`. Out-of-bounds accesses,
// mismatched element counts and unknown var_ids are NRT_INVALID "execution error: ..." — never
// UB. Does not touch semaphores or events (the caller applies them on completion).
Status Execute(const Descriptor& d, reference::CoreState& state, reference::HbmView& hbm);

}  // namespace trnsim::simulator::dma
