// The PE fast path's matrix kernel (pe_gemm.h).
//
// Why hand-written kernels rather than a BLAS: the contract is the reference's order — each output
// element summed sequentially over k from +0.0f — and a BLAS promises no order (OpenBLAS and
// Eigen split k into partial sums and fuse or not as they were built). The kernels below keep an
// MR x NR block of accumulators in registers for the whole k sequence, one column of B and one
// broadcast element of A per step, and are compiled three times: for AVX-512F, for AVX2 + FMA
// (function target attributes, so the library itself still runs on any x86-64) and portably (GCC
// vector extensions, SSE2 in the default build). The top-level -ffp-contract=off keeps
// `acc + a * b` unfused; the fused variants say _fmadd_ explicitly.
//
// Block shapes: AVX-512 has 32 zmm registers, 8 rows x 2 vectors = 16 accumulators hide the FMA
// latency (4 cycles, 2 ports) with room for the B vectors and the broadcast; AVX2 and SSE2 have 16
// registers, 6 x 2 = 12 accumulators. M = 128 and N = 512, what compilers issue, split evenly.
#include "simulator/core/pe_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "simulator/core/host_workers.h"

namespace trnsim::simulator::core {
namespace {

// AVX-512's block: kAvx512Rows x kAvx512Vectors accumulators of 16 lanes.
constexpr int kAvx512Rows = 8, kAvx512Vectors = 2;

// ---- the micro-kernels: c[r * ldc + j] = sum over kk of a[kk][r] * b[kk][j], r < MR, j < NR -----
// (`c[..] + sum` when accumulating). `a` is packed [kk][MR], `b` [kk][NR], both zero-padded past
// the real rows and columns.

// Rounded steps (PeSum::kRounded): p = a·b is exact (scaled operands); where |p| < `limit` (the
// scaled image of 2^-127) it is rounded to the scaled 2^-149 grid by adding and subtracting
// `magic` (1.5 times the scaled 2^-126: its ulp is that grid step, and with |p| below half of it
// the sum keeps magic's exponent); larger products have no bits below the grid. The AVX kernels
// use intrinsics: GCC lowers vector-extension float comparisons of 64-byte vectors to scalar code.
//
// Every kernel takes the rounded form's constants; the other forms ignore them.
struct Constants {
  float magic = 0, limit = 0;
  // The lane-constant rounded form (Step::kLaneRounded): per output column (kNr of them), the
  // constant added and subtracted after each product — `magic` where every product of the column
  // lies below `limit`, 0 where none needs rounding (then p + 0 - 0 = p, as the reference).
  const float* lane_magic = nullptr;
};

// The kernels' inner step. kMulAdd, kFused and kRounded are PeSum's forms; kLaneRounded is the
// rounded form without the per-product test (Constants::lane_magic), for tiles that allow it.
enum class Step { kMulAdd, kFused, kRounded, kLaneRounded };

template <Step kSum>
[[gnu::target("avx512f")]] void MicroAvx512(bool accumulate, uint32_t kk_count, const float* a,
                                            const float* b, size_t ldc, float* c, Constants k) {
  constexpr int kMr = kAvx512Rows, kNv = kAvx512Vectors, kNr = 16 * kNv;
  const __m512 cv = _mm512_set1_ps(k.magic), lim = _mm512_set1_ps(k.limit);
  __m512 lane[kNv];
  if constexpr (kSum == Step::kLaneRounded) {
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) lane[v] = _mm512_loadu_ps(k.lane_magic + 16 * v);
  }
  __m512 acc[kMr][kNv];
#pragma GCC unroll 16
  for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) acc[r][v] = _mm512_setzero_ps();
  for (uint32_t kk = 0; kk < kk_count; ++kk) {
    __m512 bv[kNv];
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) bv[v] = _mm512_loadu_ps(b + size_t(kk) * kNr + 16 * v);
#pragma GCC unroll 16
    for (int r = 0; r < kMr; ++r) {
      const __m512 av = _mm512_set1_ps(a[size_t(kk) * kMr + r]);
#pragma GCC unroll 4
      for (int v = 0; v < kNv; ++v) {
        if constexpr (kSum == Step::kFused) {
          acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
        } else if constexpr (kSum == Step::kMulAdd) {
          acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_mul_ps(av, bv[v]));
        } else if constexpr (kSum == Step::kLaneRounded) {
          // p is exact (scaled operands), so one rounding of p + lane is the magic add.
          const __m512 t = _mm512_fmadd_ps(av, bv[v], lane[v]);
          acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_sub_ps(t, lane[v]));
        } else {  // kRounded
          const __m512 p = _mm512_mul_ps(av, bv[v]);
          const __mmask16 small = _mm512_cmp_ps_mask(_mm512_abs_ps(p), lim, _CMP_LT_OQ);
          acc[r][v] =
              _mm512_add_ps(acc[r][v], _mm512_mask_sub_ps(p, small, _mm512_add_ps(p, cv), cv));
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < kMr; ++r) {
    float* row = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) {
      if (accumulate) acc[r][v] = _mm512_add_ps(_mm512_loadu_ps(row + 16 * v), acc[r][v]);
      _mm512_storeu_ps(row + 16 * v, acc[r][v]);
    }
  }
}

template <Step kSum>
[[gnu::target("avx2,fma")]] void MicroAvx2(bool accumulate, uint32_t kk_count, const float* a,
                                           const float* b, size_t ldc, float* c, Constants k) {
  constexpr int kMr = 6, kNv = 2, kNr = 16;
  const __m256 cv = _mm256_set1_ps(k.magic), lim = _mm256_set1_ps(k.limit);
  __m256 lane[kNv];
  if constexpr (kSum == Step::kLaneRounded) {
    lane[0] = _mm256_loadu_ps(k.lane_magic);
    lane[1] = _mm256_loadu_ps(k.lane_magic + 8);
  }
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 acc[kMr][kNv];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (uint32_t kk = 0; kk < kk_count; ++kk) {
    const __m256 bv[kNv] = {_mm256_loadu_ps(b + size_t(kk) * kNr),
                            _mm256_loadu_ps(b + size_t(kk) * kNr + 8)};
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + size_t(kk) * kMr + r);
#pragma GCC unroll 2
      for (int v = 0; v < kNv; ++v) {
        if constexpr (kSum == Step::kFused) {
          acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
        } else if constexpr (kSum == Step::kMulAdd) {
          acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_mul_ps(av, bv[v]));
        } else if constexpr (kSum == Step::kLaneRounded) {
          const __m256 t = _mm256_fmadd_ps(av, bv[v], lane[v]);
          acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_sub_ps(t, lane[v]));
        } else {  // kRounded
          const __m256 p = _mm256_mul_ps(av, bv[v]);
          const __m256 small = _mm256_cmp_ps(_mm256_and_ps(p, abs_mask), lim, _CMP_LT_OQ);
          const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(p, cv), cv);
          acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_blendv_ps(p, rounded, small));
        }
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) {
      float* at = c + r * ldc + 8 * v;
      if (accumulate) acc[r][v] = _mm256_add_ps(_mm256_loadu_ps(at), acc[r][v]);
      _mm256_storeu_ps(at, acc[r][v]);
    }
}

// Portable: GCC vector extensions at the build's own width (SSE2 on a default x86-64 build).
typedef float Vec4 __attribute__((vector_size(16)));

// No fused form here: by the contract kFused asks only for bits multiply-then-add also gives.
template <Step kSum>
void MicroPortable(bool accumulate, uint32_t kk_count, const float* a, const float* b, size_t ldc,
                   float* c, Constants k) {
  constexpr int kMr = 6, kNv = 2, kNr = 8;
  typedef int32_t Int4 __attribute__((vector_size(16)));
  const Vec4 cv = {k.magic, k.magic, k.magic, k.magic};
  const Vec4 lim = {k.limit, k.limit, k.limit, k.limit};
  Vec4 lane[kNv] = {};
  if constexpr (kSum == Step::kLaneRounded) std::memcpy(lane, k.lane_magic, sizeof(lane));
  Vec4 acc[kMr][kNv];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = Vec4{};  // +0.0f
  for (uint32_t kk = 0; kk < kk_count; ++kk) {
    Vec4 bv[kNv];
    std::memcpy(&bv, b + size_t(kk) * kNr, sizeof(bv));
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      const float x = a[size_t(kk) * kMr + r];
      const Vec4 av = {x, x, x, x};
#pragma GCC unroll 2
      for (int v = 0; v < kNv; ++v) {
        const Vec4 p = av * bv[v];  // stationary first, as the reference multiplies
        if constexpr (kSum == Step::kRounded) {
          const Int4 small = (p < lim) & (p > -lim);
          acc[r][v] = acc[r][v] + (small ? (p + cv) - cv : p);
        } else if constexpr (kSum == Step::kLaneRounded) {
          acc[r][v] = acc[r][v] + ((p + lane[v]) - lane[v]);  // p exact: as the fused magic add
        } else {
          acc[r][v] = acc[r][v] + p;
        }
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    if (accumulate) {
      Vec4 old[kNv];
      std::memcpy(old, c + r * ldc, sizeof(old));
      acc[r][0] = old[0] + acc[r][0];
      acc[r][1] = old[1] + acc[r][1];
    }
    std::memcpy(c + r * ldc, acc[r], sizeof(acc[r]));
  }
}

// ---- blocking ------------------------------------------------------------------------------

struct Scratch {
  std::vector<float> packed_a, packed_b;
  // BlockedRounded: a's rows (exponent ranges, their order) and each row block's range.
  std::vector<int32_t> row_min, row_max, block_min, block_max;
  std::vector<uint32_t> row_order;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The calling thread's buffer for one packed column block of `floats` floats.
float* ThreadPackedB(size_t floats) {
  std::vector<float>& packed_b = ThreadScratch().packed_b;
  packed_b.resize(floats);
  return packed_b.data();
}

// Columns [j0, j0 + len) of b ([kk_count][n] row-major) into pb, [kk][kNr], zero past len.
template <int kNr>
void PackColumnBlock(const float* b, uint64_t n, uint64_t j0, uint64_t len, uint32_t kk_count,
                     float* pb) {
  if (len == kNr) {
    for (uint32_t kk = 0; kk < kk_count; ++kk)  // a constant size: inlined vector moves
      std::memcpy(pb + size_t(kk) * kNr, b + kk * n + j0, kNr * sizeof(float));
    return;
  }
  for (uint32_t kk = 0; kk < kk_count; ++kk) {
    std::memcpy(pb + size_t(kk) * kNr, b + kk * n + j0, len * sizeof(float));
    std::fill(pb + size_t(kk) * kNr + len, pb + size_t(kk + 1) * kNr, 0.0f);
  }
}

// columns(jb_begin, jb_end) over [0, n_blocks): on the calling thread, or with `workers` in runs
// of whole column blocks. A few pieces per thread: a thread the host deschedules holds up at most
// one small piece.
template <typename Columns>
void ForColumnBlocks(uint64_t n_blocks, HostWorkers* workers, const Columns& columns) {
  if (workers == nullptr || workers->threads() <= 1 || n_blocks < 2) return columns(0, n_blocks);
  const uint64_t pieces = std::min<uint64_t>(n_blocks, 4 * uint64_t(workers->threads()));
  workers->ParallelFor(uint32_t(pieces), [&](uint32_t piece) {
    columns(n_blocks * piece / pieces, n_blocks * (piece + 1) / pieces);
  });
}

// Column blocks outermost: each block of B is packed just before use and stays in L1 for every row
// block; A is packed once, [block][kk][kMr]. Whole blocks are stored straight into `out`, edge
// blocks through a tile. With `workers`, runs of whole column blocks are pieces of a ParallelFor:
// each output element is still one micro-kernel's sum over kk in order, so the split changes no
// bit, and each thread packs its own B (thread-local scratch) while sharing the packed A.
// `micro(accumulate, kk_count, packed_a, packed_b, ldc, c, constants)` computes one block.
template <int kMr, int kNr, typename Micro>
void Blocked(const Micro& micro, Constants constants, uint32_t kk_count, uint32_t m_count,
             uint64_t n, const float* a, const float* b, PeOutput out, HostWorkers* workers) {
  Scratch& sc = ThreadScratch();
  const uint64_t n_blocks = (n + kNr - 1) / kNr;
  const uint32_t m_blocks = (m_count + kMr - 1) / kMr;
  const size_t a_block = size_t(kk_count) * kMr;
  sc.packed_a.resize(m_blocks * a_block);
  float* pa = sc.packed_a.data();
  for (uint32_t mb = 0; mb < m_blocks; ++mb) {
    const uint32_t m0 = mb * kMr, rows = std::min<uint32_t>(kMr, m_count - m0);
    for (uint32_t kk = 0; kk < kk_count; ++kk, pa += kMr) {
      const float* from = a + size_t(kk) * m_count + m0;
      if (rows == kMr) {
        std::memcpy(pa, from, kMr * sizeof(float));  // a constant size: inlined vector moves
      } else {
        std::memcpy(pa, from, rows * sizeof(float));
        std::fill(pa + rows, pa + kMr, 0.0f);
      }
    }
  }
  const float* packed_a = sc.packed_a.data();
  // Column blocks [jb_begin, jb_end) on the calling thread.
  auto columns = [&](uint64_t jb_begin, uint64_t jb_end) {
    float* pb = ThreadPackedB(size_t(kk_count) * kNr);
    alignas(64) float tile[kMr * kNr];
    for (uint64_t jb = jb_begin; jb < jb_end; ++jb) {
      const uint64_t j0 = jb * kNr, len = std::min<uint64_t>(kNr, n - j0);
      PackColumnBlock<kNr>(b, n, j0, len, kk_count, pb);
      for (uint32_t mb = 0; mb < m_blocks; ++mb) {
        const uint32_t m0 = mb * kMr, rows = std::min<uint32_t>(kMr, m_count - m0);
        const float* block_a = packed_a + mb * a_block;
        float* c = out.data + m0 * out.row_stride + j0;
        if (rows == kMr && len == kNr) {
          micro(out.accumulate, kk_count, block_a, pb, out.row_stride, c, constants);
          continue;
        }
        micro(false, kk_count, block_a, pb, kNr, tile, constants);
        for (uint32_t r = 0; r < rows; ++r)
          for (uint64_t j = 0; j < len; ++j) {
            float& o = c[r * out.row_stride + j];
            o = out.accumulate ? o + tile[r * kNr + j] : tile[r * kNr + j];
          }
      }
    }
  };
  ForColumnBlocks(n_blocks, workers, columns);
}

// For each of `count` lanes i, the biased exponent fields of x[r * stride + i] over rows r <
// `rows`: the smallest among nonzero elements (255 when all are ±0) and the largest (0 when all
// are ±0). The operands of a rounded plan are normal or ±0, so a field bounds an element's
// magnitude and, with its dtype's significand bits, its lowest bit. Written once with 16-lane
// vectors and compiled for each ISA (the AVX-512 and AVX2 copies below, and MeasureRange's
// clones, inline it).
typedef int32_t Int16 __attribute__((vector_size(64)));
[[gnu::always_inline]] inline void ReduceExponentsBody(const float* x, uint32_t rows, size_t count,
                                                       size_t stride, int32_t* min_e,
                                                       int32_t* max_e) {
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    Int16 lo = Int16{} + 255, hi = Int16{};
    for (uint32_t r = 0; r < rows; ++r) {
      Int16 bits;
      std::memcpy(&bits, x + size_t(r) * stride + i, sizeof(bits));
      const Int16 e = (bits >> 23) & 0xff;
      const Int16 zero = (bits & 0x7fffffff) == 0;  // all-ones lanes where ±0
      hi = hi > e ? hi : e;
      const Int16 e_or_255 = e | (zero & 255);
      lo = lo < e_or_255 ? lo : e_or_255;
    }
    std::memcpy(min_e + i, &lo, sizeof(lo));
    std::memcpy(max_e + i, &hi, sizeof(hi));
  }
  for (; i < count; ++i) {
    int32_t lo = 255, hi = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      uint32_t bits;
      std::memcpy(&bits, x + size_t(r) * stride + i, sizeof(bits));
      const int32_t e = int32_t((bits >> 23) & 0xffu);
      hi = std::max(hi, e);
      if ((bits & 0x7fffffffu) != 0) lo = std::min(lo, e);
    }
    min_e[i] = lo;
    max_e[i] = hi;
  }
}
void ReduceExponents(const float* x, uint32_t rows, size_t count, size_t stride, int32_t* min_e,
                     int32_t* max_e) {
  ReduceExponentsBody(x, rows, count, stride, min_e, max_e);
}
[[gnu::target("avx2")]] void ReduceExponentsAvx2(const float* x, uint32_t rows, size_t count,
                                                 size_t stride, int32_t* min_e, int32_t* max_e) {
  ReduceExponentsBody(x, rows, count, stride, min_e, max_e);
}
[[gnu::target("avx512f")]] void ReduceExponentsAvx512(const float* x, uint32_t rows, size_t count,
                                                      size_t stride, int32_t* min_e,
                                                      int32_t* max_e) {
  ReduceExponentsBody(x, rows, count, stride, min_e, max_e);
}
using ReduceFn = void (*)(const float*, uint32_t, size_t, size_t, int32_t*, int32_t*);

// One tile's form (BlockedRounded): from its row block's exponent range and each column's,
// lane_magic[j] for every column and whether all columns are exact / each exact or small.
// `exact_from` and `small_to` are BlockedRounded's bounds on ea + eb. Four columns a step.
template <int kNr>
void ClassifyTile(int32_t block_min, int32_t block_max, const int32_t* col_min,
                  const int32_t* col_max, int exact_from, int small_to, float magic,
                  float* lane_magic, bool* all_exact, bool* each_exact_or_small) {
  static_assert(kNr % 4 == 0);
  // Masks only (all-ones lanes for true), in the SSE2 width every x86-64 build has: GCC lowers
  // wider vector selects to scalar code here.
  typedef int32_t Int4 __attribute__((vector_size(16)));
  int32_t magic_bits;
  std::memcpy(&magic_bits, &magic, 4);
  const Int4 magic_lanes = Int4{} + magic_bits;
  const Int4 block_zero = Int4{} + (block_min == 255 ? -1 : 0);
  Int4 any_inexact = Int4{}, any_neither = Int4{};
  for (int j = 0; j < kNr; j += 4) {
    Int4 cmin, cmax;
    std::memcpy(&cmin, col_min + j, sizeof(cmin));
    std::memcpy(&cmax, col_max + j, sizeof(cmax));
    // Every product ±0 where the block or the column has no nonzero element.
    const Int4 exact = block_zero | (cmin == 255) | (cmin + block_min >= exact_from);
    const Int4 small = cmax + block_max <= small_to;
    any_inexact |= ~exact;
    any_neither |= ~(exact | small);
    const Int4 lanes = ~exact & magic_lanes;
    std::memcpy(lane_magic + j, &lanes, sizeof(lanes));
  }
  const Int4 inexact = any_inexact, neither = any_neither;
  *all_exact = (inexact[0] | inexact[1] | inexact[2] | inexact[3]) == 0;
  *each_exact_or_small = (neither[0] | neither[1] | neither[2] | neither[3]) == 0;
}

// dst[j] = src[j] (or dst[j] + src[j] when accumulating) for j < len, eight lanes at a time.
template <int kNr>
void StoreRow(float* dst, const float* src, size_t len, bool accumulate) {
  if (!accumulate) {
    if (len == kNr) {
      std::memcpy(dst, src, kNr * sizeof(float));  // a constant size: inlined vector moves
    } else {
      std::memcpy(dst, src, len * sizeof(float));
    }
    return;
  }
  typedef float Vec8 __attribute__((vector_size(32)));
  size_t j = 0;
  for (; j + 8 <= len; j += 8) {
    Vec8 x, y;
    std::memcpy(&x, dst + j, sizeof(x));
    std::memcpy(&y, src + j, sizeof(y));
    x = x + y;  // the existing value first, as PeOutput says
    std::memcpy(dst + j, &x, sizeof(x));
  }
  for (; j < len; ++j) dst[j] = dst[j] + src[j];
}

// A rounded plan (PeSum::kRounded), refined tile by tile (pe_gemm.h, PePlan). a's rows are put in
// order of magnitude (largest exponent first) and packed in that order, so rows that need
// rounding with some columns share blocks. For each kMr x kNr tile and each of its columns,
// from the exponent ranges of the block's rows and of the column (over every kk):
//   exact — every product's lowest bit is on the scaled 2^-149 grid: the multiply would not
//           round it;
//   small — every product is below `limit`, where the magic add and subtract rounds it.
// A tile whose columns are all exact runs `fused` (as PeSum::kFused); one whose columns are each
// exact or small runs `lane` with Constants::lane_magic = 0 or magic per column (no per-product
// test); any other runs `mixed`, the masked rounded step. Every form gives the reference's bits
// for the products it is given, so the choice changes only the speed. Tiles go through a
// scratch tile, then row by row to their rows of `out`. Threads as in Blocked.
template <int kMr, int kNr, typename Micro>
void BlockedRounded(Micro fused, Micro lane, Micro mixed, ReduceFn reduce, const PePlan& plan,
                    Constants constants, uint32_t kk_count, uint32_t m_count, uint64_t n,
                    const float* a, const float* b, PeOutput out, HostWorkers* workers) {
  // With biased fields ea and eb: |a·b| < 2^(ea + eb - 252), and its lowest bit is at least
  // 2^(ea + eb - 254 - a_bits - b_bits). Exact: that bit >= 2^(scale - 149). Small: the bound
  // <= 2^(scale - 127), the limit.
  const int scale = plan.scale_a + plan.scale_b;
  const int exact_from = scale + 105 + plan.a_bits + plan.b_bits;
  const int small_to = scale + 125;
  Scratch& sc = ThreadScratch();
  sc.row_min.resize(m_count);
  sc.row_max.resize(m_count);
  sc.row_order.resize(m_count);
  reduce(a, kk_count, m_count, m_count, sc.row_min.data(), sc.row_max.data());
  std::iota(sc.row_order.begin(), sc.row_order.end(), 0u);
  std::stable_sort(sc.row_order.begin(), sc.row_order.end(), [&sc](uint32_t x, uint32_t y) {
    return sc.row_max[x] != sc.row_max[y] ? sc.row_max[x] > sc.row_max[y]
                                          : sc.row_min[x] > sc.row_min[y];
  });
  const uint64_t n_blocks = (n + kNr - 1) / kNr;
  const uint32_t m_blocks = (m_count + kMr - 1) / kMr;
  const size_t a_block = size_t(kk_count) * kMr;
  sc.packed_a.assign(m_blocks * a_block, 0.0f);
  sc.block_min.assign(m_blocks, 255);
  sc.block_max.assign(m_blocks, 0);
  for (uint32_t mb = 0; mb < m_blocks; ++mb) {
    const uint32_t m0 = mb * kMr, rows = std::min<uint32_t>(kMr, m_count - m0);
    float* pa = sc.packed_a.data() + mb * a_block;
    for (uint32_t r = 0; r < rows; ++r) {
      const uint32_t row = sc.row_order[m0 + r];
      sc.block_min[mb] = std::min(sc.block_min[mb], sc.row_min[row]);
      sc.block_max[mb] = std::max(sc.block_max[mb], sc.row_max[row]);
      for (uint32_t kk = 0; kk < kk_count; ++kk)
        pa[size_t(kk) * kMr + r] = a[size_t(kk) * m_count + row];
    }
  }
  const float* packed_a = sc.packed_a.data();
  const int32_t* block_min = sc.block_min.data();
  const int32_t* block_max = sc.block_max.data();
  const uint32_t* row_order = sc.row_order.data();
  auto columns = [&](uint64_t jb_begin, uint64_t jb_end) {
    float* pb = ThreadPackedB(size_t(kk_count) * kNr);
    alignas(64) float tile[kMr * kNr];
    alignas(64) float lane_magic[kNr];
    alignas(64) int32_t col_min[kNr], col_max[kNr];
    Constants k = constants;
    k.lane_magic = lane_magic;
    for (uint64_t jb = jb_begin; jb < jb_end; ++jb) {
      const uint64_t j0 = jb * kNr, len = std::min<uint64_t>(kNr, n - j0);
      PackColumnBlock<kNr>(b, n, j0, len, kk_count, pb);
      reduce(pb, kk_count, kNr, kNr, col_min, col_max);
      for (uint32_t mb = 0; mb < m_blocks; ++mb) {
        const uint32_t m0 = mb * kMr, rows = std::min<uint32_t>(kMr, m_count - m0);
        bool all_exact, each_exact_or_small;
        ClassifyTile<kNr>(block_min[mb], block_max[mb], col_min, col_max, exact_from, small_to,
                          constants.magic, lane_magic, &all_exact, &each_exact_or_small);
        const Micro micro = all_exact ? fused : each_exact_or_small ? lane : mixed;
        micro(false, kk_count, packed_a + mb * a_block, pb, kNr, tile, k);
        for (uint32_t r = 0; r < rows; ++r) {
          StoreRow<kNr>(out.data + row_order[m0 + r] * out.row_stride + j0, tile + r * kNr, len,
                        out.accumulate);
        }
      }
    }
  };
  ForColumnBlocks(n_blocks, workers, columns);
}

// Explicit significand bits of a float dtype; 23 (never exact) for fp32 and anything else.
int MantissaBits(isa::Dtype d) {
  switch (d) {
    case isa::Dtype::kBfloat16:
      return 7;
    case isa::Dtype::kFloat16:
      return 10;
    case isa::Dtype::kFloat8E3:
      return 4;
    case isa::Dtype::kFloat8E4:
      return 3;
    case isa::Dtype::kFloat8E5:
      return 2;
    default:
      return 23;
  }
}

}  // namespace

// One pass over the operand; cloned for AVX-512 and AVX2 (16 lanes as one, two or four registers).
[[gnu::target_clones("avx512f", "avx2", "default")]] OperandRange MeasureRange(
    std::span<const float> values) {
  // The values as rows of 16 lanes (ReduceExponentsBody), then the last partial row; each lane's
  // range folded into one.
  OperandRange r;
  auto fold = [&r](const int32_t* lo, const int32_t* hi, size_t lanes) {
    for (size_t l = 0; l < lanes; ++l) {
      r.max_exponent = std::max(r.max_exponent, uint32_t(hi[l]));
      r.min_exponent = std::min(r.min_exponent, uint32_t(lo[l]));
    }
  };
  alignas(64) int32_t lo[16], hi[16];
  constexpr size_t kRowsPerPass = size_t{1} << 20;  // rows is 32-bit
  const size_t rows = values.size() / 16;
  for (size_t row = 0; row < rows; row += kRowsPerPass) {
    ReduceExponentsBody(values.data() + row * 16, uint32_t(std::min(kRowsPerPass, rows - row)), 16,
                        16, lo, hi);
    fold(lo, hi, 16);
  }
  const size_t rest = values.size() - rows * 16;
  ReduceExponentsBody(values.data() + rows * 16, 1, rest, 0, lo, hi);
  fold(lo, hi, rest);
  r.non_finite = r.max_exponent == 255;
  return r;
}

PePlan PlanPe(isa::Dtype a_dtype, const OperandRange& a, isa::Dtype b_dtype, const OperandRange& b,
              uint32_t kk_count) {
  const PePlan reference;                              // multiply then add, unscaled
  if (a.non_finite || b.non_finite) return reference;  // NaN payloads, inf arithmetic
  if (a.min_exponent == 255 || b.min_exponent == 255) return PePlan{PeSum::kFused};  // all ±0
  const int ma = MantissaBits(a_dtype), mb = MantissaBits(b_dtype);
  if (ma + mb + 2 > 24) return reference;  // the product's significand exceeds fp32's 24 bits
  // Exponent of each operand's finest bit (unbiased): a normal element e, m bits below it; an fp32
  // subnormal (only bf16 and fp32 have them) sits on 2^(-126 - m).
  auto finest = [](const OperandRange& r, int m) {
    return r.min_exponent == 0 ? -126 - m : int(r.min_exponent) - 127 - m;
  };
  auto smallest = [&](const OperandRange& r, int m) {  // exponent bound of the smallest nonzero
    return r.min_exponent == 0 ? finest(r, m) : int(r.min_exponent) - 127;
  };
  // Every product is a multiple of 2^g. Below 2^-149 a product would be rounded by the multiply,
  // which a fused step does not do: then the kernel rounds by hand (kRounded), on operands scaled
  // so that every product is exact and the scaled grid step 2^(scale - 149) is normal.
  const int g = finest(a, ma) + finest(b, mb);
  const PeSum sum = g < -149 ? PeSum::kRounded : PeSum::kFused;
  // Fused: the grid itself normal (then so is every product). Rounded: every product exact and
  // normal (its smallest factors' product >= 2^-126), and the grid step normal.
  const int need = sum == PeSum::kRounded
                       ? std::max({23, -149 - g, -126 - smallest(a, ma) - smallest(b, mb)})
                       : std::max(0, -126 - g);
  // Scale so that each operand's smallest element is normal (>= 2^-126), then to `need`.
  int sa = std::max(0, -126 - smallest(a, ma)), sb = std::max(0, -126 - smallest(b, mb));
  sa += std::max(0, need - sa - sb);
  // Largest magnitudes after scaling: below 2^top_a and 2^top_b. Products below 2^128 are finite;
  // when scaled, every partial sum must stay finite too (k of them), as it would unscaled.
  const int top_a = int(a.max_exponent) - 126 + sa, top_b = int(b.max_exponent) - 126 + sb;
  int sum_bits = 0;
  if (sa + sb > 0)
    while ((uint64_t{1} << sum_bits) < kk_count) ++sum_bits;
  if (top_a > 128 || top_b > 128 || top_a + top_b + sum_bits > 128) return reference;
  return PePlan{sum, sa, sb, ma, mb};
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void ScaleExact(std::span<float> v, int e) {
  if (e == 0) return;
  const float factor = std::ldexp(1.0f, e);
  for (float& x : v) x = x * factor;
}

namespace {

// One element: x·2^-e, x normal or ±0 and the result an fp32 value (PlanPe's invariant).
uint32_t UnscaleBits(uint32_t bits, int e) {
  const int exponent = int((bits >> 23) & 0xffu);
  if (exponent == 0) return bits;  // ±0 (a scaled operand is never subnormal)
  const int biased = exponent - e;
  if (biased >= 1) return bits - (uint32_t(e) << 23);
  // Subnormal: the significand with its implicit bit, shifted right 1 - biased places (the bits
  // shifted out are zero: the value is exact); 32+ places leave nothing.
  const int shift = 1 - biased;
  const uint32_t significand = (bits & 0x7fffffu) | 0x800000u;
  return (bits & 0x80000000u) | (shift < 32 ? significand >> shift : 0u);
}

// The same, 16 lanes at a time. (GCC 12's own avx512fintrin.h trips -Wmaybe-uninitialized on the
// shift intrinsics' undefined pass-through operand: silenced for this function only.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
[[gnu::target("avx512f")]] void UnscaleAvx512(float* v, size_t n, int e) {
  const __m512i exp_mask = _mm512_set1_epi32(0xff), e_vec = _mm512_set1_epi32(e);
  const __m512i one = _mm512_set1_epi32(1), e_field = _mm512_set1_epi32(int32_t(uint32_t(e) << 23));
  const __m512i sig_mask = _mm512_set1_epi32(0x7fffff), implicit = _mm512_set1_epi32(0x800000);
  const __m512i sign_mask = _mm512_set1_epi32(int32_t(0x80000000u));
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i bits = _mm512_loadu_si512(v + i);
    const __m512i exponent = _mm512_and_si512(_mm512_srli_epi32(bits, 23), exp_mask);
    const __m512i biased = _mm512_sub_epi32(exponent, e_vec);
    const __mmask16 zero = _mm512_cmpeq_epi32_mask(exponent, _mm512_setzero_si512());
    const __mmask16 normal = _mm512_cmpge_epi32_mask(biased, one);
    // vpsrlvd leaves 0 for shifts of 32 or more, as UnscaleBits does.
    const __m512i shift = _mm512_sub_epi32(one, biased);
    const __m512i significand = _mm512_or_si512(_mm512_and_si512(bits, sig_mask), implicit);
    __m512i out =
        _mm512_or_si512(_mm512_and_si512(bits, sign_mask), _mm512_srlv_epi32(significand, shift));
    out = _mm512_mask_sub_epi32(out, normal, bits, e_field);
    out = _mm512_mask_mov_epi32(out, zero, bits);
    _mm512_storeu_si512(v + i, out);
  }
  for (; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, v + i, 4);
    bits = UnscaleBits(bits, e);
    std::memcpy(v + i, &bits, 4);
  }
}
#pragma GCC diagnostic pop

}  // namespace

void UnscaleExact(std::span<float> v, int e) {
  if (e == 0) return;
  if (SelectedPeGemmIsa() == PeGemmIsa::kAvx512) return UnscaleAvx512(v.data(), v.size(), e);
  for (float& x : v) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bits = UnscaleBits(bits, e);
    std::memcpy(&x, &bits, 4);
  }
}

namespace {

// UnscaleInto's AVX-512 form: UnscaleAvx512's lanes, then the add or the store, row by row.
[[gnu::target("avx512f")]] void UnscaleIntoAvx512(const float* scaled, uint32_t m_count, uint64_t n,
                                                  int e, PeOutput out) {
  constexpr size_t kChunk = 256;  // unscaled on the stack, then added or stored
  alignas(64) float x[kChunk];
  for (uint32_t r = 0; r < m_count; ++r) {
    float* row = out.data + r * out.row_stride;
    for (uint64_t j0 = 0; j0 < n; j0 += kChunk) {
      const size_t len = std::min<uint64_t>(kChunk, n - j0);
      std::memcpy(x, scaled + r * n + j0, len * sizeof(float));
      UnscaleAvx512(x, len, e);
      size_t j = 0;
      for (; j + 16 <= len; j += 16) {
        __m512 v = _mm512_load_ps(x + j);
        if (out.accumulate) v = _mm512_add_ps(_mm512_loadu_ps(row + j0 + j), v);
        _mm512_storeu_ps(row + j0 + j, v);
      }
      for (; j < len; ++j) row[j0 + j] = out.accumulate ? row[j0 + j] + x[j] : x[j];
    }
  }
}

}  // namespace

void UnscaleInto(const float* scaled, uint32_t m_count, uint64_t n, int e, PeOutput out) {
  if (SelectedPeGemmIsa() == PeGemmIsa::kAvx512)
    return UnscaleIntoAvx512(scaled, m_count, n, e, out);
  for (uint32_t r = 0; r < m_count; ++r) {
    float* row = out.data + r * out.row_stride;
    for (uint64_t j = 0; j < n; ++j) {
      uint32_t bits;
      std::memcpy(&bits, scaled + r * n + j, 4);
      bits = e == 0 ? bits : UnscaleBits(bits, e);
      float x;
      std::memcpy(&x, &bits, 4);
      row[j] = out.accumulate ? row[j] + x : x;
    }
  }
}

PeGemmIsa SelectedPeGemmIsa() {
  static const PeGemmIsa isa = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return PeGemmIsa::kAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return PeGemmIsa::kAvx2;
    return PeGemmIsa::kPortable;
  }();
  return isa;
}

std::vector<PeGemmIsa> SupportedPeGemmIsas() {
  std::vector<PeGemmIsa> isas = {PeGemmIsa::kPortable};
  if (SelectedPeGemmIsa() != PeGemmIsa::kPortable) isas.push_back(PeGemmIsa::kAvx2);
  if (SelectedPeGemmIsa() == PeGemmIsa::kAvx512) isas.push_back(PeGemmIsa::kAvx512);
  return isas;
}

std::string_view PeGemmIsaName(PeGemmIsa isa) {
  switch (isa) {
    case PeGemmIsa::kAvx512:
      return "avx512";
    case PeGemmIsa::kAvx2:
      return "avx2";
    case PeGemmIsa::kPortable:
      break;
  }
  return "portable";
}

void PeGemmOn(PeGemmIsa isa, const PePlan& plan, uint32_t kk_count, uint32_t m_count, uint64_t n,
              const float* a, const float* b, PeOutput out, HostWorkers* workers) {
  Constants k;
  if (plan.sum == PeSum::kRounded) {
    const int scale = plan.scale_a + plan.scale_b;
    k = Constants{std::ldexp(1.5f, scale - 126), std::ldexp(1.0f, scale - 127)};
  }
  auto pick = [&plan](auto mul_add, auto fused) {
    return plan.sum == PeSum::kFused ? fused : mul_add;
  };
  const bool rounded = plan.sum == PeSum::kRounded;
  switch (isa) {
    case PeGemmIsa::kAvx512: {
      constexpr int kNr = 16 * kAvx512Vectors;
      if (rounded) {
        return BlockedRounded<kAvx512Rows, kNr>(
            MicroAvx512<Step::kFused>, MicroAvx512<Step::kLaneRounded>, MicroAvx512<Step::kRounded>,
            ReduceExponentsAvx512, plan, k, kk_count, m_count, n, a, b, out, workers);
      }
      return Blocked<kAvx512Rows, kNr>(pick(MicroAvx512<Step::kMulAdd>, MicroAvx512<Step::kFused>),
                                       k, kk_count, m_count, n, a, b, out, workers);
    }
    case PeGemmIsa::kAvx2:
      if (rounded) {
        return BlockedRounded<6, 16>(MicroAvx2<Step::kFused>, MicroAvx2<Step::kLaneRounded>,
                                     MicroAvx2<Step::kRounded>, ReduceExponentsAvx2, plan, k,
                                     kk_count, m_count, n, a, b, out, workers);
      }
      return Blocked<6, 16>(pick(MicroAvx2<Step::kMulAdd>, MicroAvx2<Step::kFused>), k, kk_count,
                            m_count, n, a, b, out, workers);
    case PeGemmIsa::kPortable:
      break;
  }
  // No fused form here: by the contract kFused asks only for bits multiply-then-add also gives.
  if (rounded) {
    return BlockedRounded<6, 8>(MicroPortable<Step::kMulAdd>, MicroPortable<Step::kLaneRounded>,
                                MicroPortable<Step::kRounded>, ReduceExponents, plan, k, kk_count,
                                m_count, n, a, b, out, workers);
  }
  Blocked<6, 8>(MicroPortable<Step::kMulAdd>, k, kk_count, m_count, n, a, b, out, workers);
}

void PeGemm(const PePlan& plan, uint32_t kk_count, uint32_t m_count, uint64_t n, const float* a,
            const float* b, PeOutput out) {
  const bool large = uint64_t(kk_count) * m_count * n >= kPeParallelMacs;
  PeGemmOn(SelectedPeGemmIsa(), plan, kk_count, m_count, n, a, b, out,
           large ? &HostWorkers::Shared() : nullptr);
}

}  // namespace trnsim::simulator::core
