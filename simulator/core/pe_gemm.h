// The PE fast path's matrix kernel: out = aᵀ·b with the reference interpreter's rounding, on the
// widest vector unit the host has (AVX-512, AVX2 + FMA, or the portable SSE2 build), chosen once
// at run time.
//
// Contract: for a [kk_count][m_count] and b [kk_count][n] (row-major fp32),
//   out[m][j] = (((+0.0f + a[0][m]·b[0][j]) + a[1][m]·b[1][j]) + ...)   kk ascending,
// every step either
//   PeSum::kMulAdd — one fp32 multiply, rounded, then one fp32 add, rounded (the reference), or
//   PeSum::kFused  — one fused multiply-add, rounded once;
//   PeSum::kRounded — on operands PlanPe scaled: the exact product, rounded to the scaled image of
//                    the 2^-149 grid where the unscaled multiply would round it, then one add;
// then, if asked, out = out + sum (PeOutput).
// The two give the same bits whenever every product a·b is exact in fp32 — PlanPe says when, and
// how to scale the operands so the kernel never meets a subnormal (x86 takes a ~100-cycle
// microcode assist for a multiply or fused multiply-add whose input or output is subnormal).
//
// Results do not depend on the ISA chosen: lane-wise IEEE arithmetic is the same at every width
// (tests/simulator/core/pe_gemm_test.cc runs every ISA the host has against a scalar loop).
//
// Thread safety: reentrant; scratch is thread-local. PeGemm may run pieces of one call on the
// shared HostWorkers pool's threads (each with its own scratch) and returns when all are done.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "simulator/isa/dtype.h"

namespace trnsim::simulator::core {

class HostWorkers;

enum class PeSum { kMulAdd, kFused, kRounded };

enum class PeGemmIsa { kPortable, kAvx2, kAvx512 };

// What one operand's values span: the largest and smallest biased fp32 exponent fields among its
// nonzero elements (0 = subnormal), and whether any is inf or NaN. Measured on the fp32 copy.
struct OperandRange {
  uint32_t max_exponent = 0;
  uint32_t min_exponent = 255;  // 255: no nonzero element
  bool non_finite = false;
};
OperandRange MeasureRange(std::span<const float> values);

// How to run one product exactly and fast. kMulAdd with no scaling is the reference itself.
// kFused is chosen only when every product a·b is exact in fp32 (then a fused step gives the
// multiply-then-add bits); kRounded when some products fall below the 2^-149 grid (the multiply
// rounds them to it; the kernel does the same rounding by hand). The operands are first
// multiplied by 2^scale_a and 2^scale_b (exact) so that no operand, product or partial sum is
// subnormal in the kernel — the reference's subnormal arithmetic, fixed-point on the 2^-149 grid,
// is then exact in the scaled domain — and the result is multiplied back by
// 2^-(scale_a + scale_b) with UnscaleExact. Only fp32 operands (products of 48 bits) and NaN/inf
// keep kMulAdd.
//
// A rounded plan is refined per output tile inside the kernel: rows of a are grouped by their
// magnitude, and a tile where no product needs rounding runs fused; one where each column's
// products either all need no rounding or all lie below the scaled 2^-127 (so the magic-constant
// rounding needs no per-product test) runs a lane-constant form; only the rest run the masked
// rounded step. `a_bits` and `b_bits` are the operands' explicit significand bits (PlanPe sets
// them from the dtypes; 23 is always safe): an element's lowest bit is at least 2^(e - bits).
struct PePlan {
  PeSum sum = PeSum::kMulAdd;
  int scale_a = 0, scale_b = 0;
  int a_bits = 23, b_bits = 23;
};
PePlan PlanPe(isa::Dtype a_dtype, const OperandRange& a, isa::Dtype b_dtype, const OperandRange& b,
              uint32_t kk_count);

// v[i] *= 2^e for e >= 0, exactly: the caller (PlanPe) guarantees normal, finite results.
void ScaleExact(std::span<float> v, int e);
// v[i] *= 2^-e for e >= 0 where each v[i]·2^-e is an fp32 value (PlanPe's invariant), subnormal
// results included, by integer arithmetic on the bits (no host floating-point assist).
void UnscaleExact(std::span<float> v, int e);

// Where the m_count x n result goes: row m at data + m·row_stride. With `accumulate` each element
// becomes `element + sum` (the existing value first, one rounding), otherwise `sum`. Every element
// is read (when accumulating) and written once; the rows must not overlap a or b or each other.
struct PeOutput {
  float* data;
  size_t row_stride;
  bool accumulate = false;
};

// a and b are the operands as the plan scaled them. A product of at least kPeParallelMacs
// multiply-adds (k·m·n) is split over HostWorkers::Shared() (TRNSIM_PE_THREADS): whole output
// column blocks per thread, every element summed exactly as on one thread, so the bits are the
// same whatever the thread count.
inline constexpr uint64_t kPeParallelMacs = uint64_t{1} << 21;
void PeGemm(const PePlan& plan, uint32_t kk_count, uint32_t m_count, uint64_t n, const float* a,
            const float* b, PeOutput out);

// The same on a chosen ISA and pool (for tests and benches); the host must support the ISA.
// Null `workers`: the calling thread alone, whatever the size.
void PeGemmOn(PeGemmIsa isa, const PePlan& plan, uint32_t kk_count, uint32_t m_count, uint64_t n,
              const float* a, const float* b, PeOutput out, HostWorkers* workers = nullptr);

// The last step of a scaled plan, fused: for the m_count x n row-major `scaled` result (PeGemm
// into a plain buffer), each x = scaled·2^-e (UnscaleExact's arithmetic; e >= 0) goes to `out`
// as PeOutput says (`element + x` when accumulating, else x). `out` must not overlap `scaled`.
void UnscaleInto(const float* scaled, uint32_t m_count, uint64_t n, int e, PeOutput out);

// The ISA PeGemm uses on this host, and every ISA this host can run.
PeGemmIsa SelectedPeGemmIsa();
std::vector<PeGemmIsa> SupportedPeGemmIsas();
std::string_view PeGemmIsaName(PeGemmIsa isa);

}  // namespace trnsim::simulator::core
