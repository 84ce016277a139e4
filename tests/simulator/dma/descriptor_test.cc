// Tests of simulator/dma/descriptor: every op's semantics and rounding, access patterns
// (strided, zero and negative steps, SBUF endpoints), bounds errors, overlap, ShapeOf, Find.
#include "simulator/dma/descriptor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "simulator/isa/limits.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::dma {
namespace {

using isa::Dtype;

Endpoint Ep(uint32_t var, uint64_t offset, std::vector<int64_t> steps, std::vector<uint64_t> sizes,
            Dtype dtype) {
  Endpoint e;
  e.var_id = var;
  e.offset = offset;
  e.steps = std::move(steps);
  e.sizes = std::move(sizes);
  e.dtype = dtype;
  return e;
}

// A contiguous run of `n` elements of `dtype` at `offset`.
Endpoint Contig(uint32_t var, uint64_t offset, uint64_t n, Dtype dtype) {
  int esz = isa::DtypeSize(dtype);
  return Ep(var, offset, {esz}, {n * uint64_t(esz)}, dtype);
}

Descriptor Desc(Op op, std::vector<Endpoint> sources, Endpoint dest) {
  Descriptor d;
  d.id = 7;
  d.op = op;
  d.sources = std::move(sources);
  d.dest = std::move(dest);
  return d;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

class DmaDescriptor : public ::testing::Test {
 protected:
  reference::CoreState state{isa::LimitsFor(Trainium2Spec())};
  reference::VectorHbm hbm;
  Status Exec(const Descriptor& d) { return Execute(d, state, hbm); }
};

TEST_F(DmaDescriptor, CopySameDtypeMovesBits) {
  uint32_t snan = 0x7f800001;  // a signalling NaN survives a same-dtype copy
  hbm.vars[1] = Bytes<uint32_t>({Bits(1.5f), snan, Bits(-0.0f), 42});
  hbm.vars[2] = std::vector<uint8_t>(16, 0xEE);
  ASSERT_TRUE(
      Exec(Desc(Op::kCopy, {Contig(1, 0, 4, Dtype::kFloat32)}, Contig(2, 0, 4, Dtype::kFloat32)))
          .ok());
  EXPECT_EQ(hbm.vars[2], hbm.vars[1]);
}

TEST_F(DmaDescriptor, MultiMebibyteCopyAcrossShapes) {
  // 8 MiB as [2048 rows x 4 KiB] into [512 rows x 16 KiB]: same bytes, different runs.
  const uint64_t n = uint64_t{8} << 20;
  std::vector<uint8_t> src(n);
  for (uint64_t i = 0; i < n; ++i) src[i] = uint8_t(i * 2654435761u >> 13);
  hbm.vars[1] = src;
  hbm.vars[2] = std::vector<uint8_t>(n);
  Descriptor d = Desc(Op::kCopy, {Ep(1, 0, {1, 4096}, {4096, 2048}, Dtype::kUint8)},
                      Ep(2, 0, {1, 16384}, {16384, 512}, Dtype::kUint8));
  ASSERT_TRUE(Exec(d).ok());
  EXPECT_TRUE(hbm.vars[2] == src);
}

// Neither side one run, no overlap: the copy goes run to run (descriptor.cc, CopyRunToRun).
// Source runs of 6 bytes every 10 into destination runs of 4 bytes every 7, and into single
// bytes every 3 (element runs), must place the packed source bytes in order and touch nothing
// between the runs.
TEST_F(DmaDescriptor, StridedToStridedCopyPlacesBytesInOrder) {
  std::vector<uint8_t> src(400);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 37 + 11);
  hbm.vars[1] = src;
  std::vector<uint8_t> packed;  // the 240 source bytes in pattern order
  for (int r = 0; r < 40; ++r)
    for (int k = 0; k < 6; ++k) packed.push_back(src[size_t(r * 10 + k)]);
  const Endpoint from = Ep(1, 0, {1, 10}, {6, 40}, Dtype::kUint8);

  hbm.vars[2] = std::vector<uint8_t>(60 * 7, 0xEE);
  ASSERT_TRUE(Exec(Desc(Op::kCopy, {from}, Ep(2, 0, {1, 7}, {4, 60}, Dtype::kUint8))).ok());
  for (size_t i = 0; i < hbm.vars[2].size(); ++i) {
    const size_t run = i / 7, k = i % 7;
    EXPECT_EQ(hbm.vars[2][i], k < 4 ? packed[run * 4 + k] : 0xEE) << i;
  }

  hbm.vars[3] = std::vector<uint8_t>(240 * 3, 0xEE);
  ASSERT_TRUE(Exec(Desc(Op::kCopy, {from}, Ep(3, 0, {3}, {240}, Dtype::kUint8))).ok());
  for (size_t i = 0; i < hbm.vars[3].size(); ++i)
    EXPECT_EQ(hbm.vars[3][i], i % 3 == 0 ? packed[i / 3] : 0xEE) << i;
}

TEST_F(DmaDescriptor, CastFp32ToBf16RoundsToNearestEven) {
  // 1 + 2^-8 is a tie -> even (1.0); 1 + 3·2^-8 is a tie -> even (0x3f82); just above a tie
  // rounds up.
  hbm.vars[1] = Bytes<uint32_t>({0x3f808000, 0x3f818000, 0x3f808001, 0x7f7fffff});
  hbm.vars[2] = std::vector<uint8_t>(8);
  ASSERT_TRUE(
      Exec(Desc(Op::kCast, {Contig(1, 0, 4, Dtype::kFloat32)}, Contig(2, 0, 4, Dtype::kBfloat16)))
          .ok());
  EXPECT_EQ(As<uint16_t>(hbm.vars[2]), (std::vector<uint16_t>{0x3f80, 0x3f82, 0x3f81, 0x7f80}));
}

TEST_F(DmaDescriptor, CopyBf16ToFp32IsExact) {
  hbm.vars[1] = Bytes<uint16_t>({0x4049, 0xc000, 0x0001});  // 3.140625, -2, a subnormal
  hbm.vars[2] = std::vector<uint8_t>(12);
  ASSERT_TRUE(
      Exec(Desc(Op::kCopy, {Contig(1, 0, 3, Dtype::kBfloat16)}, Contig(2, 0, 3, Dtype::kFloat32)))
          .ok());
  EXPECT_EQ(As<uint32_t>(hbm.vars[2]), (std::vector<uint32_t>{0x40490000, 0xc0000000, 0x00010000}));
}

TEST_F(DmaDescriptor, CastToFp8OverflowsToInfinity) {
  // docs/numerics.md §2/§7: fp8 is IEEE-style, |x| >= max + ulp/2 is ±inf, no saturation.
  hbm.vars[1] = Bytes<float>({240.0f, 300.0f, -300.0f, 0.001953125f, 247.0f, 248.0f});
  hbm.vars[2] = std::vector<uint8_t>(6);
  ASSERT_TRUE(
      Exec(Desc(Op::kCast, {Contig(1, 0, 6, Dtype::kFloat32)}, Contig(2, 0, 6, Dtype::kFloat8E4)))
          .ok());
  // 247 rounds down to the max (240, 0x77); 248 is the tie at max + ulp/2 -> inf.
  EXPECT_EQ(hbm.vars[2], (std::vector<uint8_t>{0x77, 0x78, 0xf8, 0x01, 0x77, 0x78}));
}

TEST_F(DmaDescriptor, CastFloatToIntegerRoundsAndSaturates) {
  hbm.vars[1] = Bytes<float>({2.5f, 3.5f, -2.5f, 300.0f, -1e30f, std::nanf("")});
  hbm.vars[2] = std::vector<uint8_t>(6);
  ASSERT_TRUE(
      Exec(Desc(Op::kCast, {Contig(1, 0, 6, Dtype::kFloat32)}, Contig(2, 0, 6, Dtype::kInt8)))
          .ok());
  EXPECT_EQ(As<int8_t>(hbm.vars[2]), (std::vector<int8_t>{2, 4, -2, 127, -128, 0}));
}

TEST_F(DmaDescriptor, AddThreeSourcesLeftToRightInFp32) {
  // (1e8 + -1e8) + 1 = 1; a different order would lose the 1.
  hbm.vars[1] = Bytes<float>({1e8f, 1.0f});
  hbm.vars[2] = Bytes<float>({-1e8f, 2.0f});
  hbm.vars[3] = Bytes<float>({1.0f, 3.0f});
  hbm.vars[4] = std::vector<uint8_t>(4);
  Descriptor d = Desc(Op::kAdd,
                      {Contig(1, 0, 2, Dtype::kFloat32), Contig(2, 0, 2, Dtype::kFloat32),
                       Contig(3, 0, 2, Dtype::kFloat32)},
                      Contig(4, 0, 2, Dtype::kBfloat16));
  ASSERT_TRUE(Exec(d).ok());
  EXPECT_EQ(As<uint16_t>(hbm.vars[4]), (std::vector<uint16_t>{0x3f80, 0x40c0}));  // 1, 6
}

TEST_F(DmaDescriptor, AddWithOneSourceAccumulatesIntoDestination) {
  hbm.vars[1] = Bytes<float>({1.0f, -4.0f});
  hbm.vars[2] = Bytes<float>({10.0f, 0.5f});
  ASSERT_TRUE(
      Exec(Desc(Op::kAdd, {Contig(1, 0, 2, Dtype::kFloat32)}, Contig(2, 0, 2, Dtype::kFloat32)))
          .ok());
  EXPECT_EQ(As<float>(hbm.vars[2]), (std::vector<float>{11.0f, -3.5f}));
}

TEST_F(DmaDescriptor, IntegerAddIsExactAndWrapsOnStore) {
  hbm.vars[1] = Bytes<int32_t>({std::numeric_limits<int32_t>::max(), 200, 16777217});
  hbm.vars[2] = Bytes<int32_t>({1, 100, 2});
  hbm.vars[3] = std::vector<uint8_t>(12);
  hbm.vars[4] = std::vector<uint8_t>(3);
  Descriptor to32 = Desc(Op::kAdd, {Contig(1, 0, 3, Dtype::kInt32), Contig(2, 0, 3, Dtype::kInt32)},
                         Contig(3, 0, 3, Dtype::kInt32));
  ASSERT_TRUE(Exec(to32).ok());
  // 2^24 + 1 + 2 is exact (fp32 would give 16777218).
  EXPECT_EQ(As<int32_t>(hbm.vars[3]),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 300, 16777219}));
  Descriptor to8 = to32;
  to8.dest = Contig(4, 0, 3, Dtype::kUint8);
  ASSERT_TRUE(Exec(to8).ok());
  EXPECT_EQ(hbm.vars[4], (std::vector<uint8_t>{0x00, 44, 0x03}));  // low 8 bits
}

TEST_F(DmaDescriptor, FmaIsFusedInFp32) {
  // src·scale = 1 + 2^-11 + 2^-24 exactly; unfused it would round to 1 + 2^-11 and give 0.
  const float a = 1.0f + std::ldexp(1.0f, -12);
  hbm.vars[1] = Bytes<float>({a, 2.0f});
  hbm.vars[2] = Bytes<float>({-(1.0f + std::ldexp(1.0f, -11)), 1.0f});
  Descriptor d =
      Desc(Op::kFma, {Contig(1, 0, 2, Dtype::kFloat32)}, Contig(2, 0, 2, Dtype::kFloat32));
  d.scale = a;
  ASSERT_TRUE(Exec(d).ok());
  std::vector<float> out = As<float>(hbm.vars[2]);
  EXPECT_EQ(out[0], std::ldexp(1.0f, -24));
  EXPECT_EQ(out[1], 1.0f + 2.0f * a);
}

TEST_F(DmaDescriptor, FmaOnIntegersWithIntegralScaleIsExact) {
  hbm.vars[1] = Bytes<int32_t>({3, -4});
  hbm.vars[2] = Bytes<int32_t>({16777216, 10});
  Descriptor d = Desc(Op::kFma, {Contig(1, 0, 2, Dtype::kInt32)}, Contig(2, 0, 2, Dtype::kInt32));
  d.scale = 3;
  ASSERT_TRUE(Exec(d).ok());
  EXPECT_EQ(As<int32_t>(hbm.vars[2]), (std::vector<int32_t>{16777225, -2}));
}

TEST_F(DmaDescriptor, MinMaxAgainstConstant) {
  hbm.vars[1] = Bytes<float>({-1.0f, 0.25f, 2.0f, std::nanf("")});
  hbm.vars[2] = std::vector<uint8_t>(16);
  hbm.vars[3] = std::vector<uint8_t>(16);
  Descriptor mn =
      Desc(Op::kMin, {Contig(1, 0, 4, Dtype::kFloat32)}, Contig(2, 0, 4, Dtype::kFloat32));
  mn.constant = 0.5;
  Descriptor mx = mn;
  mx.op = Op::kMax;
  mx.dest = Contig(3, 0, 4, Dtype::kFloat32);
  ASSERT_TRUE(Exec(mn).ok());
  ASSERT_TRUE(Exec(mx).ok());
  std::vector<float> lo = As<float>(hbm.vars[2]), hi = As<float>(hbm.vars[3]);
  EXPECT_EQ(lo[0], -1.0f);
  EXPECT_EQ(lo[1], 0.25f);
  EXPECT_EQ(lo[2], 0.5f);
  EXPECT_TRUE(std::isnan(lo[3]));
  EXPECT_EQ(hi[0], 0.5f);
  EXPECT_EQ(hi[1], 0.5f);
  EXPECT_EQ(hi[2], 2.0f);
  EXPECT_TRUE(std::isnan(hi[3]));

  hbm.vars[4] = Bytes<int32_t>({-5, 7});
  hbm.vars[5] = std::vector<uint8_t>(8);
  Descriptor imax =
      Desc(Op::kMax, {Contig(4, 0, 2, Dtype::kInt32)}, Contig(5, 0, 2, Dtype::kInt32));
  imax.constant = 3;
  ASSERT_TRUE(Exec(imax).ok());
  EXPECT_EQ(As<int32_t>(hbm.vars[5]), (std::vector<int32_t>{3, 7}));
}

TEST_F(DmaDescriptor, TransposeMovesBits) {
  // 2 x 3 of 4-byte elements -> 3 x 2.
  hbm.vars[1] = Bytes<uint32_t>({0, 1, 2, 10, 11, 12});
  hbm.vars[2] = std::vector<uint8_t>(24);
  Descriptor d =
      Desc(Op::kTranspose, {Contig(1, 0, 6, Dtype::kUint32)}, Contig(2, 0, 6, Dtype::kUint32));
  d.transpose_rows = 2;
  d.transpose_cols = 3;
  d.transpose_element_size = 4;
  ASSERT_TRUE(Exec(d).ok());
  EXPECT_EQ(As<uint32_t>(hbm.vars[2]), (std::vector<uint32_t>{0, 10, 1, 11, 2, 12}));

  d.transpose_cols = 4;  // 32 bytes, but the endpoints hold 24
  Status st = Exec(d);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("transpose"), std::string::npos) << st.message();
}

TEST_F(DmaDescriptor, StridedZeroAndNegativeSteps) {
  hbm.vars[1] = Bytes<uint16_t>({0, 1, 2, 3, 4, 5, 6, 7});
  hbm.vars[2] = std::vector<uint8_t>(16);
  // Every other element, backwards: offset at element 7, step -4 bytes.
  Descriptor rev =
      Desc(Op::kCopy, {Ep(1, 14, {-4}, {8}, Dtype::kUint16)}, Contig(2, 0, 4, Dtype::kUint16));
  ASSERT_TRUE(Exec(rev).ok());
  EXPECT_EQ(As<uint16_t>(hbm.vars[2]), (std::vector<uint16_t>{7, 5, 3, 1, 0, 0, 0, 0}));
  // Broadcast: [2 x 1 element, repeated 4 times with step 0] = 2, 3, 2, 3, ...
  Descriptor bcast =
      Desc(Op::kCopy, {Ep(1, 4, {2, 0}, {4, 4}, Dtype::kUint16)}, Contig(2, 0, 8, Dtype::kUint16));
  ASSERT_TRUE(Exec(bcast).ok());
  EXPECT_EQ(As<uint16_t>(hbm.vars[2]), (std::vector<uint16_t>{2, 3, 2, 3, 2, 3, 2, 3}));
  // Strided destination: write elements 0, 2, 4, 6 only.
  hbm.vars[3] = std::vector<uint8_t>(16, 0);
  Descriptor scatter =
      Desc(Op::kCopy, {Contig(1, 0, 4, Dtype::kUint16)}, Ep(3, 0, {4}, {8}, Dtype::kUint16));
  ASSERT_TRUE(Exec(scatter).ok());
  EXPECT_EQ(As<uint16_t>(hbm.vars[3]), (std::vector<uint16_t>{0, 0, 1, 0, 2, 0, 3, 0}));
}

TEST_F(DmaDescriptor, SbufEndpointIsFlatPartitionMajor) {
  const uint64_t bpp = state.limits.sbuf_bytes_per_partition;
  hbm.vars[1] = Bytes<float>({0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  // [3 partitions x 4 fp32] at partition 5, byte 64.
  Endpoint sbuf = Ep(kSbufVarId, 5 * bpp + 64, {4, int64_t(bpp)}, {16, 3}, Dtype::kFloat32);
  ASSERT_TRUE(Exec(Desc(Op::kCopy, {Contig(1, 0, 12, Dtype::kFloat32)}, sbuf)).ok());
  for (int p = 0; p < 3; ++p) {
    float v[4];
    std::memcpy(v, state.SbufAt(5 + p, 64), 16);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(v[j], float(10 * p + j)) << p << "," << j;
  }
  // And back, cast to bf16 on the way.
  hbm.vars[2] = std::vector<uint8_t>(24);
  ASSERT_TRUE(Exec(Desc(Op::kCast, {sbuf}, Contig(2, 0, 12, Dtype::kBfloat16))).ok());
  EXPECT_EQ(As<uint16_t>(hbm.vars[2])[5], 0x4130);  // 11.0
}

TEST_F(DmaDescriptor, OutOfBoundsAndBadPatternsAreInvalid) {
  hbm.vars[1] = std::vector<uint8_t>(16);
  hbm.vars[2] = std::vector<uint8_t>(16);
  auto expect_invalid = [&](const Descriptor& d, const std::string& needle) {
    Status st = Exec(d);
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << needle;
    EXPECT_NE(st.message().find("execution error: descriptor 7"), std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  };
  // One element past the end.
  expect_invalid(
      Desc(Op::kCopy, {Contig(1, 4, 4, Dtype::kFloat32)}, Contig(2, 0, 4, Dtype::kFloat32)),
      "source 0 touches bytes [4, 20)");
  // A negative step reaching below byte 0.
  expect_invalid(
      Desc(Op::kCopy, {Ep(1, 4, {-4}, {12}, Dtype::kFloat32)}, Contig(2, 0, 3, Dtype::kFloat32)),
      "touches bytes [-4, 8)");
  // A destination past the end of the SBUF.
  const uint64_t sbuf = state.sbuf.size();
  expect_invalid(Desc(Op::kCopy, {Contig(1, 0, 4, Dtype::kFloat32)},
                      Contig(kSbufVarId, sbuf - 8, 4, Dtype::kFloat32)),
                 "destination touches");
  expect_invalid(
      Desc(Op::kCopy, {Contig(9, 0, 4, Dtype::kFloat32)}, Contig(2, 0, 4, Dtype::kFloat32)),
      "unknown HBM var_id 9");
  expect_invalid(
      Desc(Op::kCopy, {Contig(1, 0, 4, Dtype::kFloat32)}, Contig(2, 0, 3, Dtype::kFloat32)),
      "4 elements, the destination 3");
  expect_invalid(
      Desc(Op::kCopy, {Ep(1, 0, {4}, {6}, Dtype::kFloat32)}, Contig(2, 0, 1, Dtype::kFloat32)),
      "not a whole number");
  expect_invalid(
      Desc(Op::kCopy, {Ep(1, 0, {4, 4}, {4}, Dtype::kFloat32)}, Contig(2, 0, 1, Dtype::kFloat32)),
      "same length");
  expect_invalid(
      Desc(Op::kCopy, {Ep(1, 17, {}, {}, Dtype::kUint8)}, Contig(2, 0, 1, Dtype::kUint8)),
      "past the end");
  // Huge counts whose extent would overflow 64 bits are refused, not wrapped.
  expect_invalid(
      Desc(Op::kCopy, {Ep(1, 0, {1, int64_t{1} << 40}, {1, uint64_t{1} << 30}, Dtype::kUint8)},
           Contig(2, 0, 1, Dtype::kUint8)),
      "touches bytes");
  // Nothing was written by any of the failures.
  EXPECT_EQ(hbm.vars[2], std::vector<uint8_t>(16));
}

TEST_F(DmaDescriptor, NoStepsMeansTheRestOfTheMemory) {
  hbm.vars[1] = Bytes<uint32_t>({1, 2, 3, 4});
  hbm.vars[2] = std::vector<uint8_t>(8);
  ASSERT_TRUE(
      Exec(Desc(Op::kCopy, {Ep(1, 8, {}, {}, Dtype::kUint32)}, Ep(2, 0, {}, {}, Dtype::kUint32)))
          .ok());
  EXPECT_EQ(As<uint32_t>(hbm.vars[2]), (std::vector<uint32_t>{3, 4}));
}

TEST_F(DmaDescriptor, OverlappingCopyReadsTheSourceFirst) {
  // Shift right by one element in place, contiguous (the memcpy path) and strided.
  hbm.vars[1] = Bytes<uint32_t>({1, 2, 3, 4, 5, 0});
  ASSERT_TRUE(
      Exec(Desc(Op::kCopy, {Contig(1, 0, 5, Dtype::kUint32)}, Contig(1, 4, 5, Dtype::kUint32)))
          .ok());
  EXPECT_EQ(As<uint32_t>(hbm.vars[1]), (std::vector<uint32_t>{1, 1, 2, 3, 4, 5}));
  // Reverse in place (negative step over the same bytes).
  ASSERT_TRUE(Exec(Desc(Op::kCopy, {Ep(1, 20, {-4}, {24}, Dtype::kUint32)},
                        Contig(1, 0, 6, Dtype::kUint32)))
                  .ok());
  EXPECT_EQ(As<uint32_t>(hbm.vars[1]), (std::vector<uint32_t>{5, 4, 3, 2, 1, 1}));
  // Overlapping arithmetic: x[i+1] += x[i] reads every old x first.
  hbm.vars[2] = Bytes<float>({1, 2, 3, 4});
  ASSERT_TRUE(
      Exec(Desc(Op::kAdd, {Contig(2, 0, 3, Dtype::kFloat32)}, Contig(2, 4, 3, Dtype::kFloat32)))
          .ok());
  EXPECT_EQ(As<float>(hbm.vars[2]), (std::vector<float>{1, 3, 5, 7}));
}

TEST_F(DmaDescriptor, ZeroElementsMoveNothing) {
  hbm.vars[1] = std::vector<uint8_t>(4, 9);
  hbm.vars[2] = std::vector<uint8_t>(4, 0);
  ASSERT_TRUE(Exec(Desc(Op::kCopy, {Ep(1, 4, {1}, {0}, Dtype::kUint8)},
                        Ep(2, 0, {1, 4}, {4, 0}, Dtype::kUint8)))
                  .ok());
  EXPECT_EQ(hbm.vars[2], std::vector<uint8_t>(4, 0));
}

TEST(DmaShape, CountsPayloadChunksAndHbmSides) {
  // HBM -> SBUF rows: [128 x 2048 bytes], dim 0 contiguous.
  Descriptor in = Desc(Op::kCopy, {Contig(1, 0, 65536, Dtype::kFloat32)},
                       Ep(kSbufVarId, 0, {4, 196608}, {2048, 128}, Dtype::kFloat32));
  TransferShape s = ShapeOf(in);
  EXPECT_EQ(s.bytes, 262144u);
  EXPECT_EQ(s.chunk_bytes, 2048u);
  EXPECT_EQ(s.hbm_sides, 1);
  EXPECT_EQ(s.hbm_read_bytes, 262144u);
  EXPECT_EQ(s.hbm_write_bytes, 0u);

  // SBUF -> HBM with a strided destination: one element per chunk; bf16 payload is the
  // destination's.
  Descriptor out = Desc(Op::kCast, {Contig(kSbufVarId, 0, 64, Dtype::kFloat32)},
                        Ep(2, 0, {8}, {128}, Dtype::kBfloat16));
  s = ShapeOf(out);
  EXPECT_EQ(s.bytes, 128u);
  EXPECT_EQ(s.chunk_bytes, 2u);
  EXPECT_EQ(s.hbm_sides, 1);
  EXPECT_EQ(s.hbm_read_bytes, 0u);
  EXPECT_EQ(s.hbm_write_bytes, 128u);

  // SBUF -> SBUF: no HBM.
  s = ShapeOf(Desc(Op::kCopy, {Contig(kSbufVarId, 0, 8, Dtype::kUint8)},
                   Contig(kSbufVarId, 64, 8, Dtype::kUint8)));
  EXPECT_EQ(s.hbm_sides, 0);
  EXPECT_EQ(s.chunk_bytes, 8u);

  // Three HBM sources into HBM: sides capped at 2; everything read once, written once.
  Descriptor add = Desc(Op::kAdd,
                        {Contig(1, 0, 4, Dtype::kFloat32), Contig(2, 0, 4, Dtype::kFloat32),
                         Contig(kSbufVarId, 0, 4, Dtype::kFloat32)},
                        Contig(3, 0, 4, Dtype::kFloat32));
  s = ShapeOf(add);
  EXPECT_EQ(s.hbm_sides, 2);
  EXPECT_EQ(s.hbm_read_bytes, 32u);
  EXPECT_EQ(s.hbm_write_bytes, 16u);

  // fma reads its HBM destination too.
  Descriptor fma =
      Desc(Op::kFma, {Contig(kSbufVarId, 0, 4, Dtype::kFloat32)}, Contig(3, 0, 4, Dtype::kFloat32));
  s = ShapeOf(fma);
  EXPECT_EQ(s.hbm_read_bytes, 16u);
  EXPECT_EQ(s.hbm_write_bytes, 16u);
}

TEST(DmaTable, FindByEngineAndId) {
  DescriptorTable t;
  for (int64_t id : {0, 3, 9}) {
    Descriptor d;
    d.id = id;
    d.queue = int(id);
    t.per_engine[int(isa::Engine::kSp)].push_back(d);
  }
  ASSERT_NE(t.Find(isa::Engine::kSp, 3), nullptr);
  EXPECT_EQ(t.Find(isa::Engine::kSp, 3)->queue, 3);
  EXPECT_EQ(t.Find(isa::Engine::kSp, 9)->queue, 9);
  EXPECT_EQ(t.Find(isa::Engine::kSp, 4), nullptr);
  EXPECT_EQ(t.Find(isa::Engine::kPe, 3), nullptr);
}

}  // namespace
}  // namespace trnsim::simulator::dma
