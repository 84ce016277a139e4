// Bulk span conversions: every (src, dst) dtype pair agrees with the scalar functions element by
// element, same-dtype copies are bit exact, and stochastic rounding of a span uses the documented
// per-element counter across chunk boundaries.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "simulator/numerics/float_formats.h"

namespace trnsim::numerics {
namespace {

using isa::Dtype;

const Dtype kAll[] = {Dtype::kUint64,   Dtype::kInt8,     Dtype::kUint8,    Dtype::kInt16,
                      Dtype::kUint16,   Dtype::kBfloat16, Dtype::kFloat16,  Dtype::kInt32,
                      Dtype::kUint32,   Dtype::kFloat32,  Dtype::kFloat32r, Dtype::kInt64,
                      Dtype::kFloat8E3, Dtype::kFloat8E4, Dtype::kFloat8E5};

template <typename T>
T Get(const std::vector<uint8_t>& buf, size_t i) {
  T v;
  std::memcpy(&v, buf.data() + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
void Put(std::vector<uint8_t>& buf, size_t i, T v) {
  std::memcpy(buf.data() + i * sizeof(T), &v, sizeof(T));
}

// Scalar reference: element i of `buf` as fp32.
float ScalarLoad(Dtype d, const std::vector<uint8_t>& buf, size_t i) {
  switch (d) {
    case Dtype::kInt8:
      return static_cast<float>(Get<int8_t>(buf, i));
    case Dtype::kUint8:
      return static_cast<float>(Get<uint8_t>(buf, i));
    case Dtype::kInt16:
      return static_cast<float>(Get<int16_t>(buf, i));
    case Dtype::kUint16:
      return static_cast<float>(Get<uint16_t>(buf, i));
    case Dtype::kInt32:
      return static_cast<float>(Get<int32_t>(buf, i));
    case Dtype::kUint32:
      return static_cast<float>(Get<uint32_t>(buf, i));
    case Dtype::kInt64:
      return static_cast<float>(Get<int64_t>(buf, i));
    case Dtype::kUint64:
      return static_cast<float>(Get<uint64_t>(buf, i));
    case Dtype::kFloat32:
    case Dtype::kFloat32r:
      return Get<float>(buf, i);
    case Dtype::kBfloat16:
      return Bf16ToFp32(Get<uint16_t>(buf, i));
    case Dtype::kFloat16:
      return Fp16ToFp32(Get<uint16_t>(buf, i));
    case Dtype::kFloat8E3:
      return Fp8E3ToFp32(buf[i]);
    case Dtype::kFloat8E4:
      return Fp8E4ToFp32(buf[i]);
    case Dtype::kFloat8E5:
      return Fp8E5ToFp32(buf[i]);
    default:
      ADD_FAILURE();
      return 0;
  }
}

// Scalar reference: fp32 -> element i of `buf`.
void ScalarStore(Dtype d, std::vector<uint8_t>& buf, size_t i, float v) {
  switch (d) {
    case Dtype::kInt8:
      return Put(buf, i, Fp32ToInt8(v));
    case Dtype::kUint8:
      return Put(buf, i, Fp32ToUint8(v));
    case Dtype::kInt16:
      return Put(buf, i, Fp32ToInt16(v));
    case Dtype::kUint16:
      return Put(buf, i, Fp32ToUint16(v));
    case Dtype::kInt32:
      return Put(buf, i, Fp32ToInt32(v));
    case Dtype::kUint32:
      return Put(buf, i, Fp32ToUint32(v));
    case Dtype::kInt64:
      return Put(buf, i, Fp32ToInt64(v));
    case Dtype::kUint64:
      return Put(buf, i, Fp32ToUint64(v));
    case Dtype::kFloat32:
    case Dtype::kFloat32r:
      return Put(buf, i, v);
    case Dtype::kBfloat16:
      return Put(buf, i, Fp32ToBf16(v));
    case Dtype::kFloat16:
      return Put(buf, i, Fp32ToFp16(v));
    case Dtype::kFloat8E3:
      return Put(buf, i, Fp32ToFp8E3(v));
    case Dtype::kFloat8E4:
      return Put(buf, i, Fp32ToFp8E4(v));
    case Dtype::kFloat8E5:
      return Put(buf, i, Fp32ToFp8E5(v));
    default:
      ADD_FAILURE();
  }
}

// Random bytes, so every dtype sees arbitrary bit patterns (NaNs, infs, extremes) — plus a run of
// small values so integers and fp8 see in-range data too.
std::vector<uint8_t> RandomInput(Dtype d, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> buf(n * isa::DtypeSize(d));
  for (uint8_t& b : buf) b = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> small(-300.0f, 300.0f);
  for (size_t i = 0; i < n / 2; ++i) ScalarStore(d, buf, i, small(rng));
  return buf;
}

TEST(NumericsConvertTest, EveryDtypePairMatchesScalarPath) {
  constexpr size_t kN = 1500;  // crosses the bulk path's chunk boundary
  for (Dtype src : kAll) {
    const std::vector<uint8_t> in = RandomInput(src, kN, static_cast<uint32_t>(src));
    for (Dtype dst : kAll) {
      std::vector<uint8_t> out(kN * isa::DtypeSize(dst));
      ConvertElements(src, in.data(), dst, out.data(), kN);
      std::vector<uint8_t> expect(out.size());
      const bool same = src == dst || (isa::DtypeSize(src) == 4 && isa::DtypeSize(dst) == 4 &&
                                       isa::IsFloat(src) && isa::IsFloat(dst));
      if (same) {
        expect = in;  // bit-exact copy, NaN payloads included
      } else {
        for (size_t i = 0; i < kN; ++i) ScalarStore(dst, expect, i, ScalarLoad(src, in, i));
      }
      ASSERT_EQ(out, expect) << isa::DtypeShortName(src) << " -> " << isa::DtypeShortName(dst);
    }
  }
}

TEST(NumericsConvertTest, ToAndFromFp32) {
  const float in[] = {1.0f, -2.5f, 1e-8f, 70000.0f, INFINITY};
  uint16_t half[5];
  ConvertFromFp32(in, Dtype::kFloat16, half, 5);
  EXPECT_EQ(half[0], 0x3c00);
  EXPECT_EQ(half[1], 0xc100);
  EXPECT_EQ(half[2], 0x0000);  // 1e-8 < half the smallest fp16 subnormal (2^-25)
  EXPECT_EQ(half[3], 0x7c00);
  EXPECT_EQ(half[4], 0x7c00);
  float back[5];
  ConvertToFp32(Dtype::kFloat16, half, back, 5);
  EXPECT_EQ(back[1], -2.5f);
  EXPECT_TRUE(std::isinf(back[3]));
  int8_t i8[5];
  ConvertFromFp32(in, Dtype::kInt8, i8, 5);
  EXPECT_EQ(i8[1], -2);
  EXPECT_EQ(i8[3], 127);
  EXPECT_EQ(i8[4], 127);
}

TEST(NumericsConvertTest, StochasticSpanUsesElementCounter) {
  constexpr size_t kN = 1300;
  std::vector<float> in(kN);
  for (size_t i = 0; i < kN; ++i) in[i] = 1.0f + static_cast<float>(i) * 0x1p-20f;
  Rounding r;
  r.mode = Rounding::Mode::kStochastic;
  r.seed = 99;
  r.first_index = 1000;
  for (Dtype dst : {Dtype::kBfloat16, Dtype::kFloat16}) {
    std::vector<uint16_t> out(kN), again(kN);
    ConvertElements(Dtype::kFloat32, in.data(), dst, out.data(), kN, r);
    ConvertFromFp32(in.data(), dst, again.data(), kN, r);
    EXPECT_EQ(out, again);
    const FloatFormat f = dst == Dtype::kBfloat16 ? kBf16Format : kFp16Format;
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(out[i], EncodeFloatStochastic(f, in[i], StochasticBits(99, 1000 + i))) << i;
    }
  }
  std::vector<uint8_t> e4(kN);
  ConvertFromFp32(in.data(), Dtype::kFloat8E4, e4.data(), kN, r);
  for (size_t i = 0; i < kN; ++i) {
    ASSERT_EQ(e4[i], EncodeFloatStochastic(kFp8E4Format, in[i], StochasticBits(99, 1000 + i)));
  }
}

}  // namespace
}  // namespace trnsim::numerics
