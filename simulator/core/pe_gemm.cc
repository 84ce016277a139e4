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
};

template <PeSum kSum>
[[gnu::target("avx512f")]] void MicroAvx512(bool accumulate, uint32_t kk_count, const float* a,
                                            const float* b, size_t ldc, float* c, Constants k) {
  constexpr int kMr = kAvx512Rows, kNv = kAvx512Vectors, kNr = 16 * kNv;
  const __m512 cv = _mm512_set1_ps(k.magic), lim = _mm512_set1_ps(k.limit);
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
        if constexpr (kSum == PeSum::kFused) {
          acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
        } else if constexpr (kSum == PeSum::kMulAdd) {
          acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_mul_ps(av, bv[v]));
        } else {  // kRounded (see RoundedStep)
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

template <PeSum kSum>
[[gnu::target("avx2,fma")]] void MicroAvx2(bool accumulate, uint32_t kk_count, const float* a,
                                           const float* b, size_t ldc, float* c, Constants k) {
  constexpr int kMr = 6, kNv = 2, kNr = 16;
  const __m256 cv = _mm256_set1_ps(k.magic), lim = _mm256_set1_ps(k.limit);
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
        if constexpr (kSum == PeSum::kFused) {
          acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
        } else if constexpr (kSum == PeSum::kMulAdd) {
          acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_mul_ps(av, bv[v]));
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
template <PeSum kSum>
void MicroPortable(bool accumulate, uint32_t kk_count, const float* a, const float* b, size_t ldc,
                   float* c, Constants k) {
  constexpr int kMr = 6, kNv = 2, kNr = 8;
  typedef int32_t Int4 __attribute__((vector_size(16)));
  const Vec4 cv = {k.magic, k.magic, k.magic, k.magic};
  const Vec4 lim = {k.limit, k.limit, k.limit, k.limit};
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
        if constexpr (kSum == PeSum::kRounded) {
          const Int4 small = (p < lim) & (p > -lim);
          acc[r][v] = acc[r][v] + (small ? (p + cv) - cv : p);
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
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
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
    std::vector<float>& packed_b = ThreadScratch().packed_b;
    packed_b.resize(size_t(kk_count) * kNr);
    float* pb = packed_b.data();
    alignas(64) float tile[kMr * kNr];
    for (uint64_t jb = jb_begin; jb < jb_end; ++jb) {
      const uint64_t j0 = jb * kNr, len = std::min<uint64_t>(kNr, n - j0);
      if (len == kNr) {
        for (uint32_t kk = 0; kk < kk_count; ++kk)  // a constant size: inlined vector moves
          std::memcpy(pb + size_t(kk) * kNr, b + kk * n + j0, kNr * sizeof(float));
      } else {
        for (uint32_t kk = 0; kk < kk_count; ++kk) {
          std::memcpy(pb + size_t(kk) * kNr, b + kk * n + j0, len * sizeof(float));
          std::fill(pb + size_t(kk) * kNr + len, pb + size_t(kk + 1) * kNr, 0.0f);
        }
      }
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
  if (workers == nullptr || workers->threads() <= 1 || n_blocks < 2) return columns(0, n_blocks);
  // A few pieces per thread: a thread the host deschedules holds up at most one small piece.
  const uint64_t pieces = std::min<uint64_t>(n_blocks, 4 * uint64_t(workers->threads()));
  workers->ParallelFor(uint32_t(pieces), [&](uint32_t piece) {
    columns(n_blocks * piece / pieces, n_blocks * (piece + 1) / pieces);
  });
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
  // Signed 32-bit lanes (exponent fields fit), so every ISA has the compares.
  typedef int32_t Int16 __attribute__((vector_size(64)));
  Int16 max_e = {}, min_e = Int16{} + 255;
  size_t i = 0;
  for (; i + 16 <= values.size(); i += 16) {
    Int16 bits;
    std::memcpy(&bits, values.data() + i, sizeof(bits));
    const Int16 e = (bits >> 23) & 0xff;
    const Int16 zero = (bits & 0x7fffffff) == 0;  // all-ones lanes where ±0
    max_e = max_e > e ? max_e : e;
    const Int16 e_or_255 = e | (zero & 255);  // a zero's field is 0: 255 leaves min_e alone
    min_e = min_e < e_or_255 ? min_e : e_or_255;
  }
  OperandRange r;
  for (int l = 0; l < 16; ++l) {
    r.max_exponent = std::max(r.max_exponent, uint32_t(max_e[l]));
    r.min_exponent = std::min(r.min_exponent, uint32_t(min_e[l]));
  }
  for (; i < values.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof(bits));
    const uint32_t e = (bits >> 23) & 0xffu;
    r.max_exponent = std::max(r.max_exponent, e);
    if ((bits & 0x7fffffffu) != 0) r.min_exponent = std::min(r.min_exponent, e);
  }
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
  return PePlan{sum, sa, sb};
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
  auto pick = [&plan](auto mul_add, auto fused, auto rounded) {
    return plan.sum == PeSum::kFused ? fused : plan.sum == PeSum::kRounded ? rounded : mul_add;
  };
  switch (isa) {
    case PeGemmIsa::kAvx512:
      return Blocked<kAvx512Rows, 16 * kAvx512Vectors>(
          pick(MicroAvx512<PeSum::kMulAdd>, MicroAvx512<PeSum::kFused>,
               MicroAvx512<PeSum::kRounded>),
          k, kk_count, m_count, n, a, b, out, workers);
    case PeGemmIsa::kAvx2:
      return Blocked<6, 16>(
          pick(MicroAvx2<PeSum::kMulAdd>, MicroAvx2<PeSum::kFused>, MicroAvx2<PeSum::kRounded>), k,
          kk_count, m_count, n, a, b, out, workers);
    case PeGemmIsa::kPortable:
      break;
  }
  Blocked<6, 8>(pick(MicroPortable<PeSum::kMulAdd>, MicroPortable<PeSum::kMulAdd>,
                     MicroPortable<PeSum::kRounded>),
                k, kk_count, m_count, n, a, b, out, workers);
}

void PeGemm(const PePlan& plan, uint32_t kk_count, uint32_t m_count, uint64_t n, const float* a,
            const float* b, PeOutput out) {
  const bool large = uint64_t(kk_count) * m_count * n >= kPeParallelMacs;
  PeGemmOn(SelectedPeGemmIsa(), plan, kk_count, m_count, n, a, b, out,
           large ? &HostWorkers::Shared() : nullptr);
}

}  // namespace trnsim::simulator::core
