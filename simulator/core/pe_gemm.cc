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

namespace trnsim::simulator::core {
namespace {

// AVX-512's block: kAvx512Rows x kAvx512Vectors accumulators of 16 lanes.
constexpr int kAvx512Rows = 8, kAvx512Vectors = 2;

// ---- the micro-kernels: c[r * ldc + j] = sum over kk of a[kk][r] * b[kk][j], r < MR, j < NR -----
// (`c[..] + sum` when accumulating). `a` is packed [kk][MR], `b` [kk][NR], both zero-padded past
// the real rows and columns.

template <bool kFused>
[[gnu::target("avx512f")]] void MicroAvx512(bool accumulate, uint32_t kk_count, const float* a,
                                            const float* b, size_t ldc, float* c) {
  constexpr int kMr = kAvx512Rows, kNv = kAvx512Vectors, kNr = 16 * kNv;
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
        if constexpr (kFused)
          acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
        else
          acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_mul_ps(av, bv[v]));
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

template <bool kFused>
[[gnu::target("avx2,fma")]] void MicroAvx2(bool accumulate, uint32_t kk_count, const float* a,
                                           const float* b, size_t ldc, float* c) {
  constexpr int kMr = 6, kNr = 16;
  __m256 acc[kMr][2];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (uint32_t kk = 0; kk < kk_count; ++kk) {
    const __m256 b0 = _mm256_loadu_ps(b + size_t(kk) * kNr);
    const __m256 b1 = _mm256_loadu_ps(b + size_t(kk) * kNr + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + size_t(kk) * kMr + r);
      if constexpr (kFused) {
        acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
      } else {
        acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_mul_ps(av, b0));
        acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_mul_ps(av, b1));
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    float* row = c + r * ldc;
    if (accumulate) {
      acc[r][0] = _mm256_add_ps(_mm256_loadu_ps(row), acc[r][0]);
      acc[r][1] = _mm256_add_ps(_mm256_loadu_ps(row + 8), acc[r][1]);
    }
    _mm256_storeu_ps(row, acc[r][0]);
    _mm256_storeu_ps(row + 8, acc[r][1]);
  }
}

// Portable: GCC vector extensions at the build's own width (SSE2 on a default x86-64 build).
typedef float Vec4 __attribute__((vector_size(16)));

void MicroPortable(bool accumulate, uint32_t kk_count, const float* a, const float* b, size_t ldc,
                   float* c) {
  constexpr int kMr = 6, kNv = 2, kNr = 8;
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
      acc[r][0] = acc[r][0] + av * bv[0];  // stationary first, as the reference multiplies
      acc[r][1] = acc[r][1] + av * bv[1];
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

using MicroKernel = void (*)(bool, uint32_t, const float*, const float*, size_t, float*);

// Column blocks outermost: each block of B is packed just before use and stays in L1 for every row
// block; A is packed once, [block][kk][kMr]. Whole blocks are stored straight into `out`, edge
// blocks through a tile.
template <int kMr, int kNr>
void Blocked(MicroKernel micro, uint32_t kk_count, uint32_t m_count, uint64_t n, const float* a,
             const float* b, PeOutput out) {
  Scratch& sc = ThreadScratch();
  const uint64_t n_blocks = (n + kNr - 1) / kNr;
  const uint32_t m_blocks = (m_count + kMr - 1) / kMr;
  const size_t a_block = size_t(kk_count) * kMr;
  sc.packed_a.resize(m_blocks * a_block);
  float* pa = sc.packed_a.data();
  for (uint32_t mb = 0; mb < m_blocks; ++mb) {
    const uint32_t m0 = mb * kMr, rows = std::min<uint32_t>(kMr, m_count - m0);
    for (uint32_t kk = 0; kk < kk_count; ++kk)
      for (uint32_t r = 0; r < kMr; ++r) *pa++ = r < rows ? a[size_t(kk) * m_count + m0 + r] : 0.0f;
  }
  sc.packed_b.resize(size_t(kk_count) * kNr);
  float* pb = sc.packed_b.data();
  alignas(64) float tile[kMr * kNr];
  for (uint64_t jb = 0; jb < n_blocks; ++jb) {
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
      const float* block_a = sc.packed_a.data() + mb * a_block;
      float* c = out.data + m0 * out.row_stride + j0;
      if (rows == kMr && len == kNr) {
        micro(out.accumulate, kk_count, block_a, pb, out.row_stride, c);
        continue;
      }
      micro(false, kk_count, block_a, pb, kNr, tile);
      for (uint32_t r = 0; r < rows; ++r)
        for (uint64_t j = 0; j < len; ++j) {
          float& o = c[r * out.row_stride + j];
          o = out.accumulate ? o + tile[r * kNr + j] : tile[r * kNr + j];
        }
    }
  }
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
  // Every product, and every partial sum, is a multiple of 2^g. Below 2^-149 a product would be
  // rounded by the multiply, which a fused step does not do.
  const int g = finest(a, ma) + finest(b, mb);
  if (g < -149) return reference;
  // Scale so that each operand's smallest element and the 2^g grid are normal (>= 2^-126).
  int sa = std::max(0, -126 - smallest(a, ma)), sb = std::max(0, -126 - smallest(b, mb));
  sa += std::max(0, -126 - g - sa - sb);
  // Largest magnitudes after scaling: below 2^top_a and 2^top_b. Products below 2^128 are finite;
  // when scaled, every partial sum must stay finite too (k of them), as it would unscaled.
  const int top_a = int(a.max_exponent) - 126 + sa, top_b = int(b.max_exponent) - 126 + sb;
  int sum_bits = 0;
  if (sa + sb > 0)
    while ((uint64_t{1} << sum_bits) < kk_count) ++sum_bits;
  if (top_a > 128 || top_b > 128 || top_a + top_b + sum_bits > 128) return reference;
  return PePlan{PeSum::kFused, sa, sb};
}

void ScaleExact(std::span<float> v, int e) {
  if (e == 0) return;
  const float factor = std::ldexp(1.0f, e);
  for (float& x : v) x = x * factor;
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void UnscaleExact(std::span<float> v, int e) {
  if (e == 0) return;
  typedef int32_t Int16 __attribute__((vector_size(64)));    // exponents and shifts
  typedef uint32_t Word16 __attribute__((vector_size(64)));  // the bits (no signed overflow)
  // 16 elements at a time; the tail through a zero-padded block.
  for (size_t i = 0; i < v.size(); i += 16) {
    const size_t count = std::min<size_t>(16, v.size() - i);
    Word16 bits = {};
    std::memcpy(&bits, v.data() + i, count * sizeof(float));
    const Int16 exponent = Int16((bits >> 23) & 0xffu);
    const Int16 biased = exponent - e;  // the result's exponent field, if it is normal
    const Word16 normal = bits - (uint32_t(e) << 23);
    // Subnormal result: the significand with its implicit bit, shifted right 1 - biased places
    // (the bits shifted out are zero: the value is exact); 31+ places leave nothing.
    Int16 shift = 1 - biased;
    shift = shift < 31 ? shift : 31;
    const Word16 significand = (bits & 0x7fffffu) | 0x800000u;
    const Word16 subnormal = (bits & 0x80000000u) | (significand >> Word16(shift));
    const Word16 scaled = biased >= 1 ? normal : subnormal;
    bits = exponent == 0 ? bits : scaled;  // ±0 stays (a scaled operand is never subnormal)
    std::memcpy(v.data() + i, &bits, count * sizeof(float));
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

void PeGemmOn(PeGemmIsa isa, PeSum sum, uint32_t kk_count, uint32_t m_count, uint64_t n,
              const float* a, const float* b, PeOutput out) {
  const bool fused = sum == PeSum::kFused;
  switch (isa) {
    case PeGemmIsa::kAvx512:
      return Blocked<kAvx512Rows, 16 * kAvx512Vectors>(
          fused ? MicroAvx512<true> : MicroAvx512<false>, kk_count, m_count, n, a, b, out);
    case PeGemmIsa::kAvx2:
      return Blocked<6, 16>(fused ? MicroAvx2<true> : MicroAvx2<false>, kk_count, m_count, n, a, b,
                            out);
    case PeGemmIsa::kPortable:
      break;
  }
  // No fused form: by the contract kFused asks only for bits that multiply-then-add also gives.
  Blocked<6, 8>(MicroPortable, kk_count, m_count, n, a, b, out);
}

void PeGemm(PeSum sum, uint32_t kk_count, uint32_t m_count, uint64_t n, const float* a,
            const float* b, PeOutput out) {
  PeGemmOn(SelectedPeGemmIsa(), sum, kk_count, m_count, n, a, b, out);
}

}  // namespace trnsim::simulator::core
