// The PE fast path (fast_pe.h).
//
// The arithmetic is pe_gemm.h's kernel (its header says why it is hand-written and when it may
// fuse); this file is the instructions' semantics around it: operand views, conversions, the
// stationary buffer, accumulate, transpose.
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

#include "simulator/core/pe_gemm.h"
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

// bf16 to fp32 is a 16-bit shift — exactly what numerics::ConvertToFp32 does for it (NaN payloads
// move unchanged) — cloned for AVX-512 and AVX2 (16 lanes as one, two or four registers).
[[gnu::target_clones("avx512f", "avx2", "default")]] void Bf16ToFp32(const uint8_t* in, float* out,
                                                                     uint64_t n) {
  typedef uint16_t Half16 __attribute__((vector_size(32)));
  typedef uint32_t Word16 __attribute__((vector_size(64)));
  uint64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Half16 h;
    std::memcpy(&h, in + 2 * i, sizeof(h));
    const Word16 w = __builtin_convertvector(h, Word16) << 16;
    std::memcpy(out + i, &w, sizeof(w));
  }
  numerics::ConvertToFp32(isa::Dtype::kBfloat16, in + 2 * i, out + i, n - i);
}

// `n` elements of `dtype` to fp32: bf16 above, fp32 a copy, every other dtype through numerics.
void ToFp32(Dtype dtype, const uint8_t* in, float* out, uint64_t n) {
  if (dtype == Dtype::kBfloat16) return Bf16ToFp32(in, out, n);
  numerics::ConvertToFp32(dtype, in, out, n);  // fp32: memcpy
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

// The view's first row as fp32 elements when the PE kernel can write it directly: an fp32 dst
// whose rows are one run each, 4-byte aligned, a whole number of floats apart. Null otherwise.
float* DirectF32Rows(const RowView& v) {
  if (!IsFp32Class(v.dtype) || v.runs.size() != 1 || v.pitch % sizeof(float) != 0) return nullptr;
  uint8_t* first = v.Run(0, 0);
  if (reinterpret_cast<uintptr_t>(first) % alignof(float) != 0) return nullptr;
  return reinterpret_cast<float*>(first);
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

// 16-bit elements zero-extended to 32 bits, cloned for AVX-512 and AVX2 like Bf16ToFp32.
[[gnu::target_clones("avx512f", "avx2", "default")]] void Widen16(const uint8_t* in, uint32_t* out,
                                                                  uint64_t n) {
  typedef uint16_t Half16 __attribute__((vector_size(32)));
  typedef uint32_t Word16 __attribute__((vector_size(64)));
  uint64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Half16 h;
    std::memcpy(&h, in + 2 * i, sizeof(h));
    const Word16 w = __builtin_convertvector(h, Word16);
    std::memcpy(out + i, &w, sizeof(w));
  }
  for (; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, in + 2 * i, 2);  // little-endian host
    out[i] = h;
  }
}

void GatherBits(const RowView& v, uint32_t* out) {
  if (v.esize == 1) return GatherBitsOf<uint8_t>(v, out);
  if (v.esize == 2) {
    for (uint32_t r = 0; r < v.rows; ++r)
      for (size_t i = 0; i < v.runs.size(); ++i)
        Widen16(v.Run(r, i), out + r * v.free + i * v.run, v.run);
    return;
  }
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

struct Scratch {
  std::vector<float> moving, stationary, out, dst;
  std::vector<uint32_t> bits;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
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
  // With double_row, stationary row (k, j) pairs with moving row (k, j): both flatten to
  // kk = k * 2 + j over rows of m (stationary) and n (moving) elements, in the reference's order.
  const uint32_t kk = st.k * rows_per_k;
  // Exact products run fused, scaled clear of subnormals (pe_gemm.h); the range check costs one
  // pass over the operands, 1/m of the arithmetic.
  const PePlan plan =
      PlanPe(st.dtype, MeasureRange(st.value), mv.dtype, MeasureRange(sc.moving), kk);
  const float* a = st.value.data();
  if (plan.scale_a != 0) {
    sc.stationary.assign(st.value.begin(), st.value.end());
    ScaleExact(sc.stationary, plan.scale_a);
    a = sc.stationary.data();
  }
  ScaleExact(sc.moving, plan.scale_b);
  const int unscale = plan.scale_a + plan.scale_b;
  if (float* rows = DirectF32Rows(dst)) {
    // An fp32 dst of one aligned run per partition takes the result in place: each element is
    // read (when accumulating) just before it is written, and the moving operand is a copy, so
    // this is still every read before any write. A scaled plan's sums go through a buffer and are
    // unscaled on their way into the rows.
    const PeOutput into{rows, dst.pitch / sizeof(float), acc};
    if (unscale == 0) {
      PeGemm(plan, kk, st.m, n, a, sc.moving.data(), into);
    } else {
      sc.out.resize(st.m * n);
      PeGemm(plan, kk, st.m, n, a, sc.moving.data(), PeOutput{sc.out.data(), n, false});
      UnscaleInto(sc.out.data(), st.m, n, unscale, into);
    }
    return true;
  }
  if (acc) {
    sc.dst.resize(dst.rows * dst.free);
    GatherF32(dst, sc.dst.data());
  }
  sc.out.resize(st.m * n);
  PeGemm(plan, kk, st.m, n, a, sc.moving.data(), PeOutput{sc.out.data(), n, false});
  UnscaleExact(sc.out, unscale);
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
