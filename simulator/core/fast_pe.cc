// The PE fast path (fast_pe.h).
//
// Why a hand-written kernel rather than Eigen: the contract is the reference's rounding — each
// output element summed sequentially over k from +0.0f, one fp32 multiply then one fp32 add per
// step. Eigen's GEMM (GEBP) splits k into peeled partial sums and uses pmadd, which becomes a
// fused multiply-add whenever the build enables FMA, so its answers differ in the last bit. An
// Eigen outer-product update per k keeps the order but reloads and stores the whole C block
// every k step (two memory operations per two flops). The kernel below keeps an MR x NR block of
// accumulators in registers for the whole k sequence instead; GCC vector extensions make it
// portable (SSE2 or AVX, whatever the build targets), and -ffp-contract=off (top-level
// CMakeLists.txt) guarantees that `acc + a * b` is never fused. Lane-wise IEEE arithmetic is
// identical at every vector width, so results do not depend on the host's SIMD.
//
// Conversions go through numerics::ConvertToFp32 / ConvertFromFp32 on whole runs: those are the
// very functions Operand::ReadF32 / WriteF32 apply one element at a time, so every element
// converts identically (NaN payloads included) and only the per-element call overhead goes.
#include "simulator/core/fast_pe.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "simulator/core/row_view.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::simulator::core {
namespace {

using isa::AccessPattern;
using isa::Dtype;
using isa::Instruction;
using isa::Memory;
using isa::Opcode;
using reference::CoreState;
using reference::Stationary;

// The reference interpreter's own ceiling on an operand's elements.
constexpr uint64_t kMaxPeElements = uint64_t{1} << 31;

bool IsFp32Class(Dtype d) { return d == Dtype::kFloat32 || d == Dtype::kFloat32r; }

// `n` elements of `dtype` to fp32. bf16 is a 16-bit shift, fp32 a copy — exactly what
// numerics::ConvertToFp32 does for them (NaN payloads move unchanged), written so the compiler
// emits vector code; every other dtype goes through numerics itself.
void ToFp32(Dtype dtype, const uint8_t* in, float* out, uint64_t n) {
  if (dtype == Dtype::kBfloat16) {
    typedef uint16_t Half8 __attribute__((vector_size(16)));
    typedef uint32_t Word8 __attribute__((vector_size(32)));
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      Half8 h;
      std::memcpy(&h, in + 2 * i, sizeof(h));
      const Word8 w = __builtin_convertvector(h, Word8) << 16;
      std::memcpy(out + i, &w, sizeof(w));
    }
    numerics::ConvertToFp32(dtype, in + 2 * i, out + i, n - i);
  } else {
    numerics::ConvertToFp32(dtype, in, out, n);  // fp32: memcpy
  }
}

// Row-major [rows][free] fp32 copy of the operand.
void GatherF32(const RowView& v, float* out) {
  PrefetchRow(v, 0);
  for (uint32_t r = 0; r < v.rows; ++r) {
    PrefetchRow(v, r + 1);
    for (size_t i = 0; i < v.runs.size(); ++i)
      ToFp32(v.dtype, v.Run(r, i), out + r * v.free + i * v.run, v.run);
  }
}

// Writes row-major [rows][free] fp32 values, in element order (a later element wins on overlap).
void ScatterF32(const RowView& v, const float* in) {
  for (uint32_t r = 0; r < v.rows; ++r)
    for (size_t i = 0; i < v.runs.size(); ++i)
      numerics::ConvertFromFp32(in + r * v.free + i * v.run, v.dtype, v.Run(r, i), v.run);
}

// Raw element bits, zero-extended, row-major.
template <typename T>
void GatherBitsOf(const RowView& v, uint32_t* out) {
  for (uint32_t r = 0; r < v.rows; ++r)
    for (size_t i = 0; i < v.runs.size(); ++i) {
      const uint8_t* p = v.Run(r, i);
      uint32_t* o = out + r * v.free + i * v.run;
      for (uint64_t e = 0; e < v.run; ++e) {
        T bits;
        std::memcpy(&bits, p + e * sizeof(T), sizeof(T));  // little-endian host
        o[e] = bits;
      }
    }
}

void GatherBits(const RowView& v, uint32_t* out) {
  if (v.esize == 1) return GatherBitsOf<uint8_t>(v, out);
  if (v.esize == 2) return GatherBitsOf<uint16_t>(v, out);
  return GatherBitsOf<uint32_t>(v, out);  // MakeRowView admits float dtypes only: 1, 2 or 4 bytes
}

void ScatterBits(const RowView& v, const uint32_t* in) {
  for (uint32_t r = 0; r < v.rows; ++r)
    for (size_t i = 0; i < v.runs.size(); ++i) {
      uint8_t* p = v.Run(r, i);
      const uint32_t* e_in = in + r * v.free + i * v.run;
      for (uint64_t e = 0; e < v.run; ++e) std::memcpy(p + e * v.esize, &e_in[e], v.esize);
    }
}

// reference pe.cc's Load: the stationary buffer takes the operand's values and bits.
void LoadStationary(const RowView& in, bool double_row, Stationary& st) {
  std::vector<float> value = std::move(st.value);  // keep the capacity, not the contents
  std::vector<uint32_t> bits = std::move(st.bits);
  st = Stationary{};
  st.loaded = true;
  st.dtype = in.dtype;
  st.k = in.rows;
  st.double_row = double_row;
  st.m = uint32_t(double_row ? in.free / 2 : in.free);
  value.resize(in.rows * in.free);
  bits.resize(in.rows * in.free);
  GatherF32(in, value.data());
  GatherBits(in, bits.data());
  st.value = std::move(value);
  st.bits = std::move(bits);
}

// ---- the kernel ----------------------------------------------------------------------------

#if defined(__AVX__)
typedef float Vec __attribute__((vector_size(32)));
#else
typedef float Vec __attribute__((vector_size(16)));
#endif
constexpr int kLanes = sizeof(Vec) / sizeof(float);
// An output block of kMr rows x kNv vectors: 12 accumulators, 2 moving vectors, 1 stationary
// vector and 1 product fill the 16 vector registers of SSE2/AVX without spilling.
constexpr int kMr = 6;
constexpr int kNv = 2;
constexpr int kNr = kNv * kLanes;

inline Vec LoadVec(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// c[r][j] = sum over kk of a[kk][r] * b[kk][j], kk ascending from +0.0f. `a` is packed
// [kk][kMr][kLanes] with each stationary value pre-broadcast (no shuffles in the loop), `b` is
// [kk][kNr]. The loops over r and v are unrolled so the accumulators live in registers.
void MicroKernel(uint32_t kk_count, const float* a, const float* b, float* c) {
  Vec acc[kMr][kNv];
#pragma GCC unroll 8
  for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < kNv; ++v) acc[r][v] = Vec{};  // +0.0f
  for (uint32_t kk = 0; kk < kk_count; ++kk) {
    Vec bv[kNv];
#pragma GCC unroll 8
    for (int v = 0; v < kNv; ++v) bv[v] = LoadVec(b + size_t(kk) * kNr + v * kLanes);
#pragma GCC unroll 8
    for (int r = 0; r < kMr; ++r) {
      const Vec av = LoadVec(a + (size_t(kk) * kMr + r) * kLanes);
#pragma GCC unroll 8
      for (int v = 0; v < kNv; ++v) acc[r][v] = acc[r][v] + av * bv[v];  // stationary first
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < kNv; ++v) std::memcpy(c + (r * kNv + v) * kLanes, &acc[r][v], sizeof(Vec));
}

struct Scratch {
  std::vector<float> moving, packed_a, packed_b, out, dst;
  std::vector<uint32_t> bits;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// out[m][j] = sum_kk a[kk][m] * b[kk][j] for a [kk_count][m_count], b [kk_count][n].
void Gemm(uint32_t kk_count, uint32_t m_count, uint64_t n, const float* a, const float* b,
          float* out, Scratch& sc) {
  const uint64_t n_blocks = (n + kNr - 1) / kNr;
  const uint32_t m_blocks = (m_count + kMr - 1) / kMr;
  // B packed per column block: [block][kk][kNr], zero-padded past n.
  sc.packed_b.assign(n_blocks * kk_count * kNr, 0.0f);
  for (uint64_t jb = 0; jb < n_blocks; ++jb) {
    const uint64_t j0 = jb * kNr, len = std::min<uint64_t>(kNr, n - j0);
    float* dst = sc.packed_b.data() + jb * kk_count * kNr;
    for (uint32_t kk = 0; kk < kk_count; ++kk)
      std::memcpy(dst + size_t(kk) * kNr, b + kk * n + j0, len * sizeof(float));
  }
  sc.packed_a.resize(size_t(kk_count) * kMr * kLanes);
  alignas(64) float tile[kMr * kNr];
  for (uint32_t mb = 0; mb < m_blocks; ++mb) {
    const uint32_t m0 = mb * kMr, rows = std::min<uint32_t>(kMr, m_count - m0);
    float* pa = sc.packed_a.data();
    for (uint32_t kk = 0; kk < kk_count; ++kk)
      for (uint32_t r = 0; r < kMr; ++r, pa += kLanes)
        std::fill(pa, pa + kLanes, r < rows ? a[size_t(kk) * m_count + m0 + r] : 0.0f);
    for (uint64_t jb = 0; jb < n_blocks; ++jb) {
      const uint64_t j0 = jb * kNr, len = std::min<uint64_t>(kNr, n - j0);
      MicroKernel(kk_count, sc.packed_a.data(), sc.packed_b.data() + jb * kk_count * kNr, tile);
      for (uint32_t r = 0; r < rows; ++r)
        std::memcpy(out + (m0 + r) * n + j0, tile + r * kNr, len * sizeof(float));
    }
  }
}

// ---- the instructions ----------------------------------------------------------------------

bool MultiplyMoving(const Instruction& inst, CoreState& s) {
  const Stationary& st = s.stationary;
  RowView dst, mv;
  if (!st.loaded || !MakeRowView(inst.ap[0], s, kMaxPeElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxPeElements, mv))
    return false;
  const bool dr = inst.has_flag(isa::kFlagDoubleRow);
  const uint32_t rows_per_k = dr ? 2 : 1;
  if (mv.rows != st.k || dr != st.double_row) return false;
  if (IsFp32Class(mv.dtype) != IsFp32Class(st.dtype)) return false;
  const uint64_t n = mv.free / rows_per_k;
  if (dst.rows != st.m || dst.free != n) return false;
  Scratch& sc = ThreadScratch();
  if (inst.has_flag(isa::kFlagTranspose)) {
    if (n != st.k) return false;
    const bool raw = dst.dtype == st.dtype;
    if (raw)
      sc.bits.resize(st.m * n);
    else
      sc.out.resize(st.m * n);
    for (uint32_t m = 0; m < st.m; ++m)
      for (uint32_t k = 0; k < st.k; ++k) {
        const uint64_t from = uint64_t(k) * st.m + m, to = uint64_t(m) * n + k;
        if (raw)
          sc.bits[to] = st.bits[from];
        else
          sc.out[to] = st.value[from];
      }
    if (raw)
      ScatterBits(dst, sc.bits.data());
    else
      ScatterF32(dst, sc.out.data());
    return true;
  }
  // Every read (moving, and dst when accumulating) before any write, as in the reference.
  sc.moving.resize(mv.rows * mv.free);
  GatherF32(mv, sc.moving.data());
  const bool acc = inst.has_flag(isa::kFlagAccumulate);
  if (acc) {
    sc.dst.resize(dst.rows * dst.free);
    GatherF32(dst, sc.dst.data());
  }
  // With double_row, stationary row (k, j) pairs with moving row (k, j): both flatten to
  // kk = k * 2 + j over rows of m (stationary) and n (moving) elements, in the reference's order.
  sc.out.resize(st.m * n);
  Gemm(st.k * rows_per_k, st.m, n, st.value.data(), sc.moving.data(), sc.out.data(), sc);
  if (acc)
    for (size_t i = 0; i < sc.out.size(); ++i) sc.out[i] = sc.dst[i] + sc.out[i];
  ScatterF32(dst, sc.out.data());
  return true;
}

bool NcTranspose(const Instruction& inst, CoreState& s) {
  RowView dst, in;
  if (!MakeRowView(inst.ap[0], s, kMaxPeElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxPeElements, in))
    return false;
  if (dst.rows != in.free || dst.free != in.rows || dst.esize != in.esize) return false;
  Scratch& sc = ThreadScratch();
  std::vector<uint32_t>& bits = sc.bits;
  bits.resize(in.rows * in.free);
  GatherBits(in, bits.data());
  std::vector<uint32_t> t(bits.size());
  for (uint64_t p = 0; p < in.rows; ++p)
    for (uint64_t f = 0; f < in.free; ++f) t[f * in.rows + p] = bits[p * in.free + f];
  ScatterBits(dst, t.data());
  // The reference loads the stationary buffer after writing dst, re-reading `in` from memory.
  LoadStationary(in, false, s.stationary);
  return true;
}

}  // namespace

StatusOr<bool> TryFastPe(isa::Engine engine, const Instruction& inst, CoreState& s,
                         reference::HbmView& hbm) {
  if (engine != isa::Engine::kPe) return false;
  switch (inst.opcode) {
    case Opcode::kLoadStationary: {
      RowView in;
      if (!MakeRowView(inst.ap[1], s, kMaxPeElements, in)) return false;
      LoadStationary(in, inst.has_flag(isa::kFlagDoubleRow), s.stationary);
      return true;
    }
    case Opcode::kMultiplyMoving:
      return MultiplyMoving(inst, s);
    case Opcode::kNcTranspose:
      return NcTranspose(inst, s);
    default:
      return false;
  }
}

}  // namespace trnsim::simulator::core
