// Float format conversions against an independent slow reference: every narrow bit pattern
// decodes and round-trips; fp32 -> narrow RNE is checked against "enumerate the representable
// values, pick the nearest, ties to the even encoding" on edge cases and millions of random
// values; stochastic rounding is deterministic and unbiased.
#include "simulator/numerics/float_formats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace trnsim::numerics {
namespace {

struct Case {
  const char* name;
  FloatFormat format;
  double max_finite;
  double min_subnormal;
};
const Case kCases[] = {
    {"bf16", kBf16Format, 3.3895313892515355e38, 9.183549615799121e-41},
    {"fp16", kFp16Format, 65504.0, 5.960464477539063e-08},
    {"fp8e3", kFp8E3Format, 15.5, 0.015625},
    {"fp8e4", kFp8E4Format, 240.0, 0.001953125},
    {"fp8e5", kFp8E5Format, 57344.0, 1.52587890625e-05},
};

int Bias(FloatFormat f) { return (1 << (f.exp_bits - 1)) - 1; }
uint32_t InfCode(FloatFormat f) { return ((1u << f.exp_bits) - 1) << f.man_bits; }
uint32_t SignBit(FloatFormat f) { return 1u << (f.exp_bits + f.man_bits); }

// Independent decode of a non-negative, non-NaN code as a double from its fields.
double RefValue(FloatFormat f, uint32_t code) {
  if (code == InfCode(f)) return std::ldexp(1.0, (1 << f.exp_bits) - 1 - Bias(f));  // 2^(emax+1)
  const uint32_t exp = code >> f.man_bits;
  const uint32_t frac = code & ((1u << f.man_bits) - 1);
  if (exp == 0) return std::ldexp(static_cast<double>(frac), 1 - Bias(f) - f.man_bits);
  return std::ldexp(1.0 + std::ldexp(static_cast<double>(frac), -f.man_bits),
                    static_cast<int>(exp) - Bias(f));
}

// All non-negative codes 0..inf in value order; inf stands at 2^(emax+1), which is exactly where
// IEEE rounding "with unbounded exponent" would place the next value, so nearest-even on this
// table also decides overflow.
class Reference {
 public:
  explicit Reference(FloatFormat f) : f_(f) {
    for (uint32_t c = 0; c <= InfCode(f); ++c) values_.push_back(RefValue(f, c));
  }
  uint32_t Round(float v) const {
    const uint32_t sign = std::signbit(v) ? SignBit(f_) : 0;
    const double a = std::fabs(static_cast<double>(v));
    const auto it = std::lower_bound(values_.begin(), values_.end(), a);
    if (it == values_.end()) return sign | InfCode(f_);
    const uint32_t hi = static_cast<uint32_t>(it - values_.begin());
    if (*it == a || hi == 0) return sign | hi;
    const uint32_t lo = hi - 1;
    const double dlo = a - values_[lo], dhi = values_[hi] - a;
    if (dlo < dhi) return sign | lo;
    if (dhi < dlo) return sign | hi;
    return sign | ((lo & 1) == 0 ? lo : hi);
  }
  const std::vector<double>& values() const { return values_; }

 private:
  FloatFormat f_;
  std::vector<double> values_;
};

float F(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(NumericsFormatsTest, EveryPatternDecodesAndRoundTrips) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const FloatFormat f = c.format;
    const uint32_t patterns = 1u << (1 + f.exp_bits + f.man_bits);
    for (uint32_t b = 0; b < patterns; ++b) {
      const float v = DecodeFloat(f, b);
      const uint32_t mag = b & (SignBit(f) - 1);
      ASSERT_EQ(std::signbit(v), (b & SignBit(f)) != 0) << b;
      if (mag > InfCode(f)) {  // NaN: stays NaN, keeps its payload, comes back quiet
        ASSERT_TRUE(std::isnan(v)) << b;
        ASSERT_EQ(EncodeFloatRne(f, v), b | (1u << (f.man_bits - 1))) << b;
        continue;
      }
      const double expect = mag == InfCode(f) ? INFINITY : RefValue(f, mag);
      ASSERT_EQ(std::fabs(static_cast<double>(v)), expect) << b;
      ASSERT_EQ(EncodeFloatRne(f, v), b) << b;
      ASSERT_EQ(EncodeFloatStochastic(f, v, 0xdeadbeef), b) << b;  // exact values stay exact
    }
  }
}

TEST(NumericsFormatsTest, FormatConstants) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DecodeFloat(c.format, InfCode(c.format) - 1), c.max_finite);
    EXPECT_EQ(DecodeFloat(c.format, 1), c.min_subnormal);
    EXPECT_TRUE(std::isinf(DecodeFloat(c.format, InfCode(c.format))));
  }
  EXPECT_EQ(Fp8E4ToFp32(0x77), 240.0f);        // 0 1110 111
  EXPECT_TRUE(std::isinf(Fp8E4ToFp32(0x78)));  // 0 1111 000: inf (IEEE-style, not e4m3fn)
  EXPECT_TRUE(std::isnan(Fp8E4ToFp32(0x7f)));
  EXPECT_EQ(Fp8E3ToFp32(0x6f), 15.5f);
  EXPECT_EQ(Fp8E5ToFp32(0x7b), 57344.0f);
  EXPECT_EQ(Fp32ToBf16(1.0f), 0x3f80);
  EXPECT_EQ(Fp32ToFp16(1.0f), 0x3c00);
  EXPECT_EQ(Fp32ToFp16(65520.0f), 0x7c00);  // max + half ulp: tie to even -> inf
  EXPECT_EQ(Fp32ToFp16(65519.996f), 0x7bff);
  EXPECT_EQ(Fp32ToFp8E4(248.0f), 0x78);  // 240 + half ulp -> inf
  EXPECT_EQ(Fp32ToFp8E4(247.99998f), 0x77);
  EXPECT_EQ(Fp32ToFp8E4(-1e9f), 0xf8);
  EXPECT_EQ(Fp32ToFp8E5(NAN) & 0x7f, 0x7e);  // quiet NaN
}

// Edge inputs for one format: ±0, fp32 extremes, every representable value, every halfway point
// between neighbours and the floats either side of it, ±inf, NaN.
std::vector<float> EdgeInputs(const Reference& ref) {
  std::vector<float> in = {0.0f,          -0.0f,         F(1),
                           F(0x807fffff), F(0x00800000), std::numeric_limits<float>::max(),
                           INFINITY,      -INFINITY};
  const std::vector<double>& v = ref.values();
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    const float mid = static_cast<float>((v[i] + v[i + 1]) / 2);  // exact when representable
    for (float x : {static_cast<float>(v[i]), mid, std::nextafter(mid, 0.0f),
                    std::nextafter(mid, INFINITY), static_cast<float>(v[i] / 2)}) {
      in.push_back(x);
      in.push_back(-x);
    }
  }
  return in;
}

void ExpectMatches(const Case& c, const Reference& ref, const std::vector<float>& in) {
  isa::Dtype dtype = c.format.exp_bits == 8    ? isa::Dtype::kBfloat16
                     : c.format.man_bits == 10 ? isa::Dtype::kFloat16
                     : c.format.exp_bits == 3  ? isa::Dtype::kFloat8E3
                     : c.format.exp_bits == 4  ? isa::Dtype::kFloat8E4
                                               : isa::Dtype::kFloat8E5;
  const int size = isa::DtypeSize(dtype);
  std::vector<uint8_t> bulk(in.size() * size);
  ConvertFromFp32(in.data(), dtype, bulk.data(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const uint32_t expect = ref.Round(in[i]);
    ASSERT_EQ(EncodeFloatRne(c.format, in[i]), expect) << c.name << " " << in[i];
    const uint32_t got = size == 1 ? bulk[i] : (bulk[2 * i] | (bulk[2 * i + 1] << 8));
    ASSERT_EQ(got, expect) << c.name << " bulk " << in[i];
  }
}

TEST(NumericsFormatsTest, RneMatchesReferenceOnEdgeCases) {
  for (const Case& c : kCases) {
    const Reference ref(c.format);
    ExpectMatches(c, ref, EdgeInputs(ref));
  }
}

TEST(NumericsFormatsTest, RneMatchesReferenceOnRandomValues) {
  std::mt19937_64 rng(20261130);
  for (const Case& c : kCases) {
    const Reference ref(c.format);
    std::vector<float> in;
    // Uniform bit patterns (all magnitudes), then values near the format's range.
    for (int i = 0; i < 1'000'000; ++i) {
      const float x = F(static_cast<uint32_t>(rng()));
      if (!std::isnan(x)) in.push_back(x);
    }
    const int emax = (1 << c.format.exp_bits) - 1 - Bias(c.format);
    const int emin = 1 - Bias(c.format) - c.format.man_bits - 2;
    std::uniform_int_distribution<int> exp(std::max(emin, -149), std::min(emax + 1, 127));
    for (int i = 0; i < 1'000'000; ++i) {
      const uint32_t r = static_cast<uint32_t>(rng());
      in.push_back(std::ldexp(F(0x3f800000u | (r & 0x7fffffu)), exp(rng)) * ((r >> 31) ? -1 : 1));
    }
    ExpectMatches(c, ref, in);
  }
}

TEST(NumericsFormatsTest, NanStaysNanAndQuiet) {
  const float snan = F(0xff800001u);  // signalling, payload only in the low bit
  for (const Case& c : kCases) {
    const uint32_t q = 1u << (c.format.man_bits - 1);
    const uint32_t got = EncodeFloatRne(c.format, snan);
    EXPECT_EQ(got, SignBit(c.format) | InfCode(c.format) | q) << c.name;
    EXPECT_EQ(EncodeFloatStochastic(c.format, F(0x7fc00000u), 123), InfCode(c.format) | q);
  }
  EXPECT_EQ(Fp32ToBf16(F(0x7fa12345u)), 0x7fe1);  // payload top bits kept, quiet bit set
}

TEST(NumericsFormatsTest, StochasticRoundingIsDeterministic) {
  EXPECT_EQ(StochasticBits(1, 0), StochasticBits(1, 0));
  EXPECT_NE(StochasticBits(1, 0), StochasticBits(1, 1));
  EXPECT_NE(StochasticBits(1, 0), StochasticBits(2, 0));
  // splitmix64 seeded with 0: first output 0xe220a8397b1dcdaf.
  EXPECT_EQ(StochasticBits(0, 0), 0xe220a839u);
}

TEST(NumericsFormatsTest, StochasticRoundingIsUnbiased) {
  const float inputs[] = {1.0f + 0x1p-9f + 0x1p-12f, -3.3f, 0.1f, 1e-3f, 200.1f, 1e-6f, 7.77f};
  for (const Case& c : kCases) {
    for (float x : inputs) {
      if (std::fabs(x) > c.max_finite) continue;
      const double target = x;
      const double ulp =
          std::max(c.min_subnormal, std::ldexp(1.0, std::ilogb(target) - c.format.man_bits));
      constexpr int kN = 200'000;
      double sum = 0;
      for (int i = 0; i < kN; ++i) {
        const double y =
            DecodeFloat(c.format, EncodeFloatStochastic(c.format, x, StochasticBits(42, i)));
        ASSERT_LT(std::fabs(y - target), ulp) << c.name << " " << x;  // a neighbour of x
        sum += y;
      }
      // Standard error is at most ulp/(2·sqrt(N)) ≈ 0.0011 ulp; allow 0.01 ulp.
      EXPECT_NEAR(sum / kN, target, 0.01 * ulp) << c.name << " " << x;
    }
  }
}

TEST(NumericsFormatsTest, IntegerConversionsRoundEvenAndSaturate) {
  EXPECT_EQ(Fp32ToInt8(2.5f), 2);
  EXPECT_EQ(Fp32ToInt8(3.5f), 4);
  EXPECT_EQ(Fp32ToInt8(-2.5f), -2);
  EXPECT_EQ(Fp32ToInt8(-2.6f), -3);
  EXPECT_EQ(Fp32ToInt8(127.5f), 127);
  EXPECT_EQ(Fp32ToInt8(-128.5f), -128);
  EXPECT_EQ(Fp32ToInt8(-1e30f), -128);
  EXPECT_EQ(Fp32ToInt8(NAN), 0);
  EXPECT_EQ(Fp32ToUint8(-0.4f), 0);
  EXPECT_EQ(Fp32ToUint8(-7.0f), 0);
  EXPECT_EQ(Fp32ToUint8(255.4f), 255);
  EXPECT_EQ(Fp32ToUint8(INFINITY), 255);
  EXPECT_EQ(Fp32ToInt16(-32768.4f), -32768);
  EXPECT_EQ(Fp32ToUint16(65535.5f), 65535);
  EXPECT_EQ(Fp32ToInt32(0x1p31f), INT32_MAX);
  EXPECT_EQ(Fp32ToInt32(-0x1p31f), INT32_MIN);
  EXPECT_EQ(Fp32ToInt32(0.5f), 0);
  EXPECT_EQ(Fp32ToInt32(1.5f), 2);
  EXPECT_EQ(Fp32ToInt32(16777216.0f), 16777216);
  EXPECT_EQ(Fp32ToUint32(0x1p32f), UINT32_MAX);
  EXPECT_EQ(Fp32ToUint32(4294967040.0f), 4294967040u);
  EXPECT_EQ(Fp32ToInt64(0x1p63f), INT64_MAX);
  EXPECT_EQ(Fp32ToInt64(-INFINITY), INT64_MIN);
  EXPECT_EQ(Fp32ToInt64(-0x1p62f), -(int64_t{1} << 62));
  EXPECT_EQ(Fp32ToUint64(1e30f), UINT64_MAX);
  EXPECT_EQ(Fp32ToUint64(NAN), 0u);
  // Random values against the libm reference (default rounding mode is nearest-even).
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
  for (int i = 0; i < 200'000; ++i) {
    const float x = i % 2 ? dist(rng) : std::round(dist(rng)) + 0.5f;
    const double r = std::nearbyint(static_cast<double>(x));
    ASSERT_EQ(Fp32ToInt16(x), static_cast<int16_t>(std::clamp(r, -32768.0, 32767.0))) << x;
    ASSERT_EQ(Fp32ToUint16(x), static_cast<uint16_t>(std::clamp(r, 0.0, 65535.0))) << x;
    ASSERT_EQ(Fp32ToInt32(x), static_cast<int32_t>(r)) << x;
  }
}

}  // namespace
}  // namespace trnsim::numerics
