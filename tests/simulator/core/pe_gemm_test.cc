// The PE kernel (simulator/core/pe_gemm.h) on every ISA this host runs, against a scalar loop with
// the reference interpreter's rounding, bit for bit; and PlanPe: whatever it chooses — fused,
// scaled, or rounded by hand — the answer is still the reference's; where it must not fuse, the
// fused form really differs, so the check is needed.
#include "simulator/core/pe_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "simulator/core/host_workers.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::simulator::core {
namespace {

using isa::Dtype;

// The reference's order: from +0.0f, k ascending, multiply rounded then add rounded.
std::vector<float> ScalarGemm(uint32_t kk, uint32_t m, uint64_t n, const std::vector<float>& a,
                              const std::vector<float>& b) {
  std::vector<float> out(m * n);
  for (uint32_t r = 0; r < m; ++r)
    for (uint64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < kk; ++k) {
        const float p = a[size_t(k) * m + r] * b[k * n + j];
        acc = acc + p;
      }
      out[r * n + j] = acc;
    }
  return out;
}

// `n` values of `dtype` (converted there and back), each sign · mantissa · 2^e with e uniform in
// [lo, hi]; a sixteenth of them zeros.
std::vector<float> Values(std::mt19937& rng, Dtype dtype, size_t n, int lo, int hi) {
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> exp(lo, hi);
  std::vector<float> v(n);
  for (float& x : v)
    x = rng() % 16 == 0 ? 0.0f : std::ldexp(rng() % 2 ? mant(rng) : -mant(rng), exp(rng));
  std::vector<uint8_t> raw(n * isa::DtypeSize(dtype));
  numerics::ConvertFromFp32(v.data(), dtype, raw.data(), n);
  numerics::ConvertToFp32(dtype, raw.data(), v.data(), n);
  return v;
}

bool SameBits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

TEST(PeGemmTest, EveryIsaMatchesTheScalarLoopBitForBit) {
  std::mt19937 rng(20261203);
  for (PeGemmIsa isa : SupportedPeGemmIsas()) {
    for (int iter = 0; iter < 16; ++iter) {
      const uint32_t kk = 1 + rng() % 256, m = 1 + rng() % 128;
      const uint64_t n = 1 + rng() % 512;
      // fp32 operands over a wide range, subnormals and overflow included: multiply-then-add.
      const std::vector<float> a = Values(rng, Dtype::kFloat32, size_t(kk) * m, -140, 60);
      const std::vector<float> b = Values(rng, Dtype::kFloat32, kk * n, -140, 60);
      std::vector<float> out(m * n);
      PeGemmOn(isa, PePlan{}, kk, m, n, a.data(), b.data(), PeOutput{out.data(), n});
      EXPECT_TRUE(SameBits(out, ScalarGemm(kk, m, n, a, b)))
          << PeGemmIsaName(isa) << " iter " << iter << " K=" << kk << " M=" << m << " N=" << n;
      // Accumulating into rows a wider stride apart: each element becomes old + sum.
      const size_t stride = n + rng() % 40;
      const std::vector<float> old = Values(rng, Dtype::kFloat32, m * stride, -140, 60);
      std::vector<float> acc = old;
      PeGemmOn(isa, PePlan{}, kk, m, n, a.data(), b.data(), PeOutput{acc.data(), stride, true});
      std::vector<float> want = old;
      for (uint32_t r = 0; r < m; ++r)
        for (uint64_t j = 0; j < n; ++j)
          want[r * stride + j] = old[r * stride + j] + out[r * n + j];
      EXPECT_TRUE(SameBits(acc, want)) << PeGemmIsaName(isa) << " iter " << iter << " accumulate";
    }
  }
}

// What fast_pe.cc does with a plan: scale copies of the operands, run the kernel, unscale.
std::vector<float> RunPlanned(PeGemmIsa isa, const PePlan& plan, uint32_t kk, uint32_t m,
                              uint64_t n, std::vector<float> a, std::vector<float> b) {
  ScaleExact(a, plan.scale_a);
  ScaleExact(b, plan.scale_b);
  std::vector<float> out(m * n);
  PeGemmOn(isa, plan, kk, m, n, a.data(), b.data(), PeOutput{out.data(), n});
  UnscaleExact(out, plan.scale_a + plan.scale_b);
  return out;
}

TEST(PeGemmTest, PlannedRunsMatchTheReferenceIntoTheSubnormalRange) {
  std::mt19937 rng(7);
  const Dtype kDtypes[] = {Dtype::kBfloat16, Dtype::kFloat16, Dtype::kFloat8E4, Dtype::kFloat8E5,
                           Dtype::kFloat8E3};
  for (PeGemmIsa isa : SupportedPeGemmIsas()) {
    int fused = 0, scaled = 0, rounded = 0;
    for (int iter = 0; iter < 80; ++iter) {
      // Every third case bf16 x bf16 with exponents from -78 to -56: products and sums subnormal
      // in fp32, exact (the scaled fused form) or below the 2^-149 grid (the rounded form); the
      // rest any dtypes, any window from ordinary (-8, 2) down to where products need rounding.
      const bool subnormal_window = iter % 3 == 0;
      const Dtype da = subnormal_window ? Dtype::kBfloat16 : kDtypes[rng() % 5];
      const Dtype db = subnormal_window ? Dtype::kBfloat16 : kDtypes[rng() % 5];
      const uint32_t kk = 1 + rng() % 128, m = 1 + rng() % 64;
      const uint64_t n = 1 + rng() % 300;
      const int lo = subnormal_window ? -78 + int(rng() % 19) : -int(rng() % 72);
      const int hi = lo + int(rng() % (subnormal_window ? 4 : 10));
      const std::vector<float> a = Values(rng, da, size_t(kk) * m, lo, hi);
      const std::vector<float> b = Values(rng, db, kk * n, lo, hi);
      const PePlan plan = PlanPe(da, MeasureRange(a), db, MeasureRange(b), kk);
      if (plan.sum == PeSum::kMulAdd) continue;
      if (plan.sum == PeSum::kRounded) ++rounded;
      if (plan.sum == PeSum::kFused) ++fused;
      if (plan.sum == PeSum::kFused && plan.scale_a + plan.scale_b > 0) ++scaled;
      EXPECT_TRUE(SameBits(RunPlanned(isa, plan, kk, m, n, a, b), ScalarGemm(kk, m, n, a, b)))
          << PeGemmIsaName(isa) << " iter " << iter << " " << isa::DtypeShortName(da) << " x "
          << isa::DtypeShortName(db) << " exponents [" << lo << ", " << hi << "] scale "
          << plan.scale_a << " + " << plan.scale_b;
    }
    EXPECT_GT(fused, 30) << "too few cases exercised the fused form";
    EXPECT_GT(scaled, 5) << "too few cases exercised the scaled form";
    EXPECT_GT(rounded, 5) << "too few cases exercised the rounded form";
  }
}

TEST(PeGemmTest, SubnormalButExactProductsRunScaledAndExact) {
  // ±{1, 1.5}·2^-70 · ±{1, 1.5}·2^-64: products around 2^-134, subnormal in fp32 yet exact (bf16's
  // 16-bit products end at 2^-148 at worst); their sums over k are subnormal too. The plan scales,
  // and the answer is the reference's.
  const uint32_t kk = 64, m = 8;
  const uint64_t n = 40;
  std::vector<float> a(kk * m), b(kk * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (i % 3 ? 1.5f : -1.0f) * 0x1p-70f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = (i % 5 ? 1.0f : -1.5f) * 0x1p-64f;
  const PePlan plan =
      PlanPe(Dtype::kBfloat16, MeasureRange(a), Dtype::kBfloat16, MeasureRange(b), kk);
  ASSERT_EQ(plan.sum, PeSum::kFused);
  EXPECT_GT(plan.scale_a + plan.scale_b, 0);
  const std::vector<float> want = ScalarGemm(kk, m, n, a, b);
  int subnormal = 0;
  for (float x : want) subnormal += std::fpclassify(x) == FP_SUBNORMAL;
  EXPECT_GT(subnormal, int(want.size()) / 2);
  for (PeGemmIsa isa : SupportedPeGemmIsas())
    EXPECT_TRUE(SameBits(RunPlanned(isa, plan, kk, m, n, a, b), want)) << PeGemmIsaName(isa);
}

TEST(PeGemmTest, UnscaleIsExactIntoTheSubnormalRange) {
  // Every fp32 value whose scaled form is normal (PlanPe's invariant), times 2^e and unscaled by e,
  // comes back bit for bit: normal, subnormal, ±0.
  std::vector<float> values = {
      0.0f, -0.0f, 1.0f, -3.5f, 0x1p-126f, 0x1.8p-140f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p100f};
  for (int e : {1, 23, 60, 120}) {
    std::vector<float> v;  // the admissible values, repeated past two 16-lane blocks
    for (int rep = 0; rep < 6; ++rep)
      for (float x : values)
        if (std::fabs(x) < std::ldexp(1.0f, 127 - e) &&
            (x == 0.0f || std::fabs(std::ldexp(x, e)) >= 0x1p-126f))
          v.push_back(rep % 2 ? -x : x);
    std::vector<float> scaled = v;
    for (float& x : scaled) x = std::ldexp(x, e);
    UnscaleExact(scaled, e);
    EXPECT_TRUE(SameBits(scaled, v)) << "e = " << e;
    EXPECT_GE(v.size(), 33u) << "e = " << e;
  }
}

TEST(PeGemmTest, UnscaleIntoMatchesUnscaleThenStoreOrAdd) {
  // Scaled sums (some of whose unscaled values are subnormal, some ±0) unscaled into rows a wider
  // stride apart, stored or added to what is there: the same bits as UnscaleExact then `old + x`.
  std::mt19937 rng(11);
  const int e = 40;
  for (uint64_t n : {1u, 15u, 16u, 37u, 300u}) {
    const uint32_t m = 5;
    const size_t stride = n + 3;
    std::vector<float> scaled = Values(rng, Dtype::kFloat32, m * n, -120 + e, 20);
    scaled[0] = -0.0f;
    const std::vector<float> old = Values(rng, Dtype::kFloat32, m * stride, -140, 20);
    std::vector<float> unscaled = scaled;
    UnscaleExact(unscaled, e);
    for (bool accumulate : {false, true}) {
      std::vector<float> got = old, want = old;
      UnscaleInto(scaled.data(), m, n, e, PeOutput{got.data(), stride, accumulate});
      for (uint32_t r = 0; r < m; ++r)
        for (uint64_t j = 0; j < n; ++j) {
          float& w = want[r * stride + j];
          w = accumulate ? w + unscaled[r * n + j] : unscaled[r * n + j];
        }
      EXPECT_TRUE(SameBits(got, want)) << "n = " << n << (accumulate ? " accumulate" : "");
    }
  }
}

TEST(PeGemmTest, RoundedFormIsExactAroundItsThreshold) {
  // The rounded form adds and subtracts its magic constant only where |p| is below the scaled
  // 2^-127 (pe_gemm.cc). Every bf16 significand of a at 2^-64, both signs, times every bf16
  // significand of b at 2^-66, 2^-65 and 2^-64: products from 2^-130 to 2^-126, on both sides of
  // that limit; then a second k step of products from 2^-130 down to 2^-154, most of them with
  // bits below the 2^-149 grid (ties included), and ±0, so the plan must round. Bit for bit the
  // scalar reference's. (bf16 products have 16 bits, so a limit set a few binades too high still
  // rounds exactly; one set too low leaves products between it and 2^-134 unrounded, which this
  // catches.)
  const uint32_t kk = 2, m = 256;
  const uint64_t n = 384;
  std::vector<float> a(kk * m), b(kk * n);
  for (uint32_t r = 0; r < m; ++r) {
    a[r] = (r < 128 ? 1.0f : -1.0f) * std::ldexp(1.0f + float(r % 128) / 128, -64);
    a[m + r] = r % 5 == 0 ? -0.0f : std::ldexp(1.0f + float(r % 127) / 128, -70 - int(r % 7));
  }
  for (uint64_t j = 0; j < n; ++j) {
    b[j] = std::ldexp(1.0f + float(j % 128) / 128, -66 + int(j / 128));
    b[n + j] = j % 9 == 0 ? -0.0f
                          : std::ldexp((j % 2 ? -1.0f : 1.0f) * (1 + float(j % 125) / 128),
                                       -60 - int(j % 17));
  }
  const PePlan plan =
      PlanPe(Dtype::kBfloat16, MeasureRange(a), Dtype::kBfloat16, MeasureRange(b), kk);
  ASSERT_EQ(plan.sum, PeSum::kRounded);
  const std::vector<float> want = ScalarGemm(kk, m, n, a, b);
  for (PeGemmIsa isa : SupportedPeGemmIsas())
    EXPECT_TRUE(SameBits(RunPlanned(isa, plan, kk, m, n, a, b), want)) << PeGemmIsaName(isa);
}

TEST(PeGemmTest, HostThreadsChangeNoBit) {
  // Products big enough to split (k·m·n above kPeParallelMacs), in every form — fp32 multiply-
  // then-add, bf16 fused, bf16 rounded below the 2^-149 grid — on every ISA: one thread, and pools
  // of 2 and 5 threads, give the same bits, and those are the scalar reference's. Edge blocks
  // (n and m not multiples of the block) included.
  std::mt19937 rng(21);
  HostWorkers two(2), five(5);
  struct Case {
    Dtype dtype;
    int lo, hi;
    PeSum form;  // what PlanPe must choose for these operands
  };
  const Case kCases[] = {{Dtype::kFloat32, -20, 20, PeSum::kMulAdd},
                         {Dtype::kBfloat16, -8, 1, PeSum::kFused},
                         {Dtype::kBfloat16, -78, -70, PeSum::kRounded}};
  for (const Case& c : kCases) {
    const uint32_t kk = 128, m = 127;
    const uint64_t n = 600;
    ASSERT_GE(uint64_t(kk) * m * n, kPeParallelMacs);
    std::vector<float> a = Values(rng, c.dtype, size_t(kk) * m, c.lo, c.hi);
    std::vector<float> b = Values(rng, c.dtype, kk * n, c.lo, c.hi);
    const PePlan plan = PlanPe(c.dtype, MeasureRange(a), c.dtype, MeasureRange(b), kk);
    ASSERT_EQ(plan.sum, c.form) << isa::DtypeShortName(c.dtype) << " [" << c.lo << ", " << c.hi
                                << "]";
    const std::vector<float> want = ScalarGemm(kk, m, n, a, b);
    ScaleExact(a, plan.scale_a);
    ScaleExact(b, plan.scale_b);
    for (PeGemmIsa isa : SupportedPeGemmIsas())
      for (HostWorkers* workers : {static_cast<HostWorkers*>(nullptr), &two, &five}) {
        std::vector<float> out(m * n);
        PeGemmOn(isa, plan, kk, m, n, a.data(), b.data(), PeOutput{out.data(), n}, workers);
        UnscaleExact(out, plan.scale_a + plan.scale_b);
        EXPECT_TRUE(SameBits(out, want))
            << PeGemmIsaName(isa) << " " << isa::DtypeShortName(c.dtype) << " form "
            << int(plan.sum) << " threads " << (workers ? workers->threads() : 1);
      }
  }
}

TEST(PeGemmTest, RoundedPlansMatchTheReferenceTileByTile) {
  // A rounded plan picks a form per output tile (pe_gemm.h, PePlan): fused where no product needs
  // rounding, the lane-constant form where each column's products all need none or all lie below
  // the scaled 2^-127, the masked step elsewhere. Operands with rows and columns of two kinds —
  // ordinary bf16 values around 1, and tiny ones around 2^-72 whose products with each other fall
  // below the 2^-149 grid — in a random pattern, so tiles of every kind occur, and a third case
  // where tiny and ordinary values share rows and columns (every tile masked). Some rows and
  // columns are all ±0. Every ISA, one thread and two, plain and accumulating: the reference's
  // bits. And the check has teeth: in the first two cases the fused form alone gives other bits.
  std::mt19937 rng(1203);
  HostWorkers two(2);
  const uint32_t kk = 96, m = 77;
  const uint64_t n = 333;
  for (int pattern = 0; pattern < 3; ++pattern) {
    std::vector<int> row_kind(m), col_kind(n);  // 0 ordinary, 1 tiny, 2 all zero
    for (int& k : row_kind) k = rng() % 11 == 0 ? 2 : int(rng() % 2);
    for (int& k : col_kind) k = rng() % 13 == 0 ? 2 : int(rng() % 2);
    auto value = [&](int kind) {
      if (pattern == 2) kind = int(rng() % 2);  // mixed within rows and columns
      const std::vector<float> one = Values(rng, Dtype::kBfloat16, 1, -3, 0);
      return kind == 2 ? 0.0f : kind == 1 ? std::ldexp(one[0], -72) : one[0];
    };
    std::vector<float> a(size_t(kk) * m), b(kk * n);
    for (uint32_t k = 0; k < kk; ++k) {
      for (uint32_t r = 0; r < m; ++r) a[size_t(k) * m + r] = value(row_kind[r]);
      for (uint64_t j = 0; j < n; ++j) b[k * n + j] = value(col_kind[j]);
    }
    const PePlan plan =
        PlanPe(Dtype::kBfloat16, MeasureRange(a), Dtype::kBfloat16, MeasureRange(b), kk);
    ASSERT_EQ(plan.sum, PeSum::kRounded) << "pattern " << pattern;
    const std::vector<float> want = ScalarGemm(kk, m, n, a, b);
    std::vector<float> sa = a, sb = b;
    ScaleExact(sa, plan.scale_a);
    ScaleExact(sb, plan.scale_b);
    const std::vector<float> old = Values(rng, Dtype::kFloat32, m * n, -20, 4);
    for (PeGemmIsa isa : SupportedPeGemmIsas()) {
      for (HostWorkers* workers : {static_cast<HostWorkers*>(nullptr), &two}) {
        std::vector<float> out(m * n);
        PeGemmOn(isa, plan, kk, m, n, sa.data(), sb.data(), PeOutput{out.data(), n}, workers);
        UnscaleExact(out, plan.scale_a + plan.scale_b);
        EXPECT_TRUE(SameBits(out, want)) << PeGemmIsaName(isa) << " pattern " << pattern;
        // Accumulating: scaled operands, so the kernel's sums go to a scratch result first and
        // are unscaled into the rows (UnscaleInto), as fast_pe.cc does.
        std::vector<float> scaled(m * n), acc = old, expect = old;
        PeGemmOn(isa, plan, kk, m, n, sa.data(), sb.data(), PeOutput{scaled.data(), n}, workers);
        UnscaleInto(scaled.data(), m, n, plan.scale_a + plan.scale_b,
                    PeOutput{acc.data(), n, true});
        for (size_t i = 0; i < expect.size(); ++i) expect[i] = old[i] + want[i];
        EXPECT_TRUE(SameBits(acc, expect)) << PeGemmIsaName(isa) << " pattern " << pattern;
      }
      // (In the third case every sum has ordinary products, which hide the tiny ones' rounding.)
      if (isa != PeGemmIsa::kPortable && pattern < 2) {
        std::vector<float> fused(m * n);
        PePlan fused_plan = plan;
        fused_plan.sum = PeSum::kFused;
        PeGemmOn(isa, fused_plan, kk, m, n, sa.data(), sb.data(), PeOutput{fused.data(), n});
        UnscaleExact(fused, plan.scale_a + plan.scale_b);
        EXPECT_FALSE(SameBits(fused, want)) << PeGemmIsaName(isa) << " pattern " << pattern;
      }
    }
  }
}

// One output element, a·b over k = 2, on the host's own kernel in both forms.
float Dot2(PeSum sum, float a0, float b0, float a1, float b1) {
  const float a[2] = {a0, a1}, b[2] = {b0, b1};
  float out = 0;
  PeGemm(PePlan{sum}, 2, 1, 1, a, b, PeOutput{&out, 1});
  return out;
}

TEST(PeGemmTest, ProductsBelowTheGridAreRoundedNotFused) {
  // 2^-75 · 2^-74 = 2^-149, one subnormal step; then 2^-75 · 2^-75 = 2^-150, half a step: the
  // multiply rounds it to 0 (a tie, to even), a fused step adds it unrounded and the tie goes to
  // 2^-148. The plan must not fuse these operands; its rounded form gives the reference's 2^-149.
  const float a0 = 0x1p-75f, b0 = 0x1p-74f, a1 = 0x1p-75f, b1 = 0x1p-75f;
  const OperandRange ra = MeasureRange(std::vector<float>{a0, a1});
  const OperandRange rb = MeasureRange(std::vector<float>{b0, b1});
  const PePlan plan = PlanPe(Dtype::kBfloat16, ra, Dtype::kBfloat16, rb, 2);
  EXPECT_EQ(plan.sum, PeSum::kRounded);
  EXPECT_EQ(Dot2(PeSum::kMulAdd, a0, b0, a1, b1), 0x1p-149f);
  if (SelectedPeGemmIsa() != PeGemmIsa::kPortable) {
    EXPECT_EQ(Dot2(PeSum::kFused, a0, b0, a1, b1), 0x1p-148f);
  }
  for (PeGemmIsa isa : SupportedPeGemmIsas()) {
    const std::vector<float> out = RunPlanned(isa, plan, 2, 1, 1, {a0, a1}, {b0, b1});
    EXPECT_EQ(out[0], 0x1p-149f) << PeGemmIsaName(isa);
  }
}

TEST(PeGemmTest, ProductsAtOrAboveTwoToThe128AreNotExact) {
  // -1.5·2^127 then 2^128: multiply-then-add overflows the second product to inf; a fused step
  // would land on 2^126. The check must refuse.
  const float a0 = -1.5f * 0x1p64f, b0 = 0x1p63f, a1 = 0x1p64f, b1 = 0x1p64f;
  const OperandRange ra = MeasureRange(std::vector<float>{a0, a1});
  const OperandRange rb = MeasureRange(std::vector<float>{b0, b1});
  EXPECT_EQ(PlanPe(Dtype::kBfloat16, ra, Dtype::kBfloat16, rb, 2).sum, PeSum::kMulAdd);
  EXPECT_TRUE(std::isinf(Dot2(PeSum::kMulAdd, a0, b0, a1, b1)));
  if (SelectedPeGemmIsa() != PeGemmIsa::kPortable) {
    EXPECT_EQ(Dot2(PeSum::kFused, a0, b0, a1, b1), 0x1p126f);
  }
}

TEST(PeGemmTest, RangeSeesSubnormalsInfinitiesAndAllZeros) {
  const OperandRange zeros = MeasureRange(std::vector<float>(13, -0.0f));
  EXPECT_EQ(zeros.min_exponent, 255u);
  EXPECT_FALSE(zeros.non_finite);
  std::vector<float> v(21, 1.0f);
  v[19] = std::ldexp(1.0f, -140);  // subnormal, in the scalar tail
  const OperandRange sub = MeasureRange(v);
  EXPECT_EQ(sub.min_exponent, 0u);
  EXPECT_EQ(sub.max_exponent, 127u);
  // 1 next to 2^-140: too wide a range to scale clear of subnormals, so the reference arithmetic.
  EXPECT_EQ(PlanPe(Dtype::kBfloat16, sub, Dtype::kBfloat16, sub, 4).sum, PeSum::kMulAdd);
  v[19] = 1.0f;
  v[3] = INFINITY;  // in the vector part
  EXPECT_TRUE(MeasureRange(v).non_finite);
  v[3] = NAN;
  EXPECT_TRUE(MeasureRange(v).non_finite);
  // fp32 significands never multiply exactly; all-zero operands always do.
  const OperandRange ones = MeasureRange(std::vector<float>(4, 1.0f));
  EXPECT_EQ(PlanPe(Dtype::kFloat32, ones, Dtype::kBfloat16, ones, 4).sum, PeSum::kMulAdd);
  EXPECT_EQ(PlanPe(Dtype::kFloat32, zeros, Dtype::kBfloat16, ones, 4).sum, PeSum::kFused);
  const PePlan plain = PlanPe(Dtype::kBfloat16, ones, Dtype::kBfloat16, ones, 4);
  EXPECT_EQ(plain.sum, PeSum::kFused);
  EXPECT_EQ(plain.scale_a + plain.scale_b, 0);
}

}  // namespace
}  // namespace trnsim::simulator::core
