// Reference interpreter: hand-computed small programs, one or more per datapath opcode.
#include <cmath>
#include <limits>

#include "interp_test_util.h"
#include "simulator/numerics/activation.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::reference::testing {
namespace {

using numerics::Bf16ToFp32;
using numerics::Fp32ToBf16;
using V = std::vector<float>;

std::vector<uint16_t> Bf16(const V& v) {
  std::vector<uint16_t> o;
  for (float f : v) o.push_back(Fp32ToBf16(f));
  return o;
}

TEST(interp_Pe, Matmul4x4Bf16ThenAccumulate) {
  Harness h;
  const V s[4] = {{1, 2, 3, 4}, {0, 1, 0, 0}, {0, 0, 2, 0}, {1, 0, 0, 1}};   // S[k][m]
  const V mv[4] = {{1, 0, 0, 1}, {0, 1, 0, 0}, {0, 0, 1, 0}, {2, 0, 0, 0}};  // Mv[k][n]
  for (int k = 0; k < 4; ++k) {
    h.Put(k, 0, Bf16(s[k]));
    h.Put(k, 64, Bf16(mv[k]));
  }
  ASSERT_TRUE(h.RunOn("pe",
                      "load_stationary stationary=sbuf[p0:4, 0 + [4 x 1]] bf16\n"
                      "multiply_moving dst=psum[p0:4, bank1 + [4 x 1]] fp32 moving=sbuf[p0:4, 64 + "
                      "[4 x 1]] bf16 first")
                  .ok());
  const V want[4] = {{3, 0, 0, 1}, {2, 1, 0, 2}, {3, 0, 2, 3}, {6, 0, 0, 4}};
  for (int m = 0; m < 4; ++m) EXPECT_EQ(h.GetPsum<float>(m, 2048, 4), want[m]) << m;
  ASSERT_TRUE(h.RunOn("pe",
                      "load_stationary stationary=sbuf[p0:4, 0 + [4 x 1]] bf16\n"
                      "multiply_moving dst=psum[p0:4, bank1 + [4 x 1]] fp32 moving=sbuf[p0:4, 64 + "
                      "[4 x 1]] bf16 accumulate last")
                  .ok());
  for (int m = 0; m < 4; ++m) {
    V twice = want[m];
    for (float& x : twice) x *= 2;
    EXPECT_EQ(h.GetPsum<float>(m, 2048, 4), twice) << m;
  }
}

TEST(interp_Pe, TransposeFlagAndNcTransposeAreBitExact) {
  Harness h;
  const float nan_payload = std::bit_cast<float>(0x7fc12345u);
  h.Put<float>(0, 0, {1.5f, nan_payload});
  h.Put<float>(1, 0, {-0.0f, 3.25f});
  h.Put<float>(0, 64, {1, 0});
  h.Put<float>(1, 64, {0, 1});
  ASSERT_TRUE(h.RunOn("pe",
                      "load_stationary stationary=sbuf[p0:2, 0 + [2 x 1]] fp32\n"
                      "multiply_moving dst=psum[p0:2, bank0 + [2 x 1]] fp32 moving=sbuf[p0:2, 64 + "
                      "[2 x 1]] fp32 transpose")
                  .ok());
  EXPECT_EQ(std::bit_cast<uint32_t>(h.GetPsum<float>(1, 0, 1)[0]), 0x7fc12345u);
  EXPECT_EQ(h.GetPsum<float>(0, 0, 2), (V{1.5f, -0.0f}));
  EXPECT_TRUE(std::signbit(h.GetPsum<float>(0, 0, 2)[1]));
  // nc_transpose: in [2, 3] bf16 -> dst [3, 2].
  h.Put(0, 128, Bf16({1, 2, 3}));
  h.Put(1, 128, Bf16({4, 5, 6}));
  ASSERT_TRUE(h.RunOn("pe",
                      "nc_transpose dst=psum[p0:3, bank2 + [2 x 1]] bf16 "
                      "in=sbuf[p0:2, 128 + [3 x 1]] bf16")
                  .ok());
  EXPECT_EQ(h.GetPsum<uint16_t>(0, 4096, 2), Bf16({1, 4}));
  EXPECT_EQ(h.GetPsum<uint16_t>(2, 4096, 2), Bf16({3, 6}));
}

TEST(interp_Pe, DoubleRowFp8) {
  Harness h;
  // stationary [K=2, 2 x M=2] all ones; moving [K=2, 2 x N=2]; K' = 4.
  auto fp8 = [](std::vector<float> v) {
    std::vector<uint8_t> o;
    for (float f : v) o.push_back(numerics::Fp32ToFp8E4(f));
    return o;
  };
  h.Put(0, 0, fp8({1, 1, 1, 1}));
  h.Put(1, 0, fp8({1, 1, 1, 1}));
  h.Put(0, 16, fp8({1, 2, 3, 4}));
  h.Put(1, 16, fp8({0.5f, 1, 2, 8}));
  ASSERT_TRUE(h.RunOn("pe",
                      "load_stationary stationary=sbuf[p0:2, 0 + [4 x 1]] fp8e4 double_row\n"
                      "multiply_moving dst=psum[p0:2, bank0 + [2 x 1]] fp32 moving=sbuf[p0:2, 16 + "
                      "[4 x 1]] fp8e4 double_row")
                  .ok());
  EXPECT_EQ(h.GetPsum<float>(0, 0, 2), (V{6.5f, 15}));
  EXPECT_EQ(h.GetPsum<float>(1, 0, 2), (V{6.5f, 15}));
}

TEST(interp_Act, ExpWithScaleBiasAndAccumulate) {
  Harness h;
  h.Put<float>(0, 0, {0.0f, 0.5f, -1.0f});
  h.Put<float>(1, 0, {1.0f, 2.0f, -3.0f});
  ASSERT_TRUE(
      h.RunOn(
           "act",
           "activation dst=sbuf[p0:2, 64 + [3 x 1]] fp32 in=sbuf[p0:2, 0 + [3 x 1]] fp32 bias=1.0 "
           "scale=2.0 func=exp reduce_cmd=reset_reduce\n"
           "activation dst=sbuf[p0:2, 64 + [3 x 1]] fp32 in=sbuf[p0:2, 0 + [3 x 1]] fp32 bias=1.0 "
           "scale=2.0 func=exp reduce_cmd=reduce\n"
           "read_accumulator dst=sbuf[p0:2, 128 + [1 x 1]] fp32 negate")
          .ok());
  const V in[2] = {{0.0f, 0.5f, -1.0f}, {1.0f, 2.0f, -3.0f}};
  for (int p = 0; p < 2; ++p) {
    V want;
    float sum = 0;
    for (float x : in[p]) want.push_back(numerics::ApplyActivation(isa::ActFunc::kExp, x * 2 + 1));
    for (float y : want) sum += y;
    for (float y : want) sum += y;
    EXPECT_EQ(h.Get<float>(p, 64, 3), want);
    EXPECT_EQ(h.Get<float>(p, 128, 1)[0], -sum);
    EXPECT_EQ(h.state.acc[p], sum);
  }
}

TEST(interp_Act, GeluWithBiasTensorToBf16AndActivationReduce) {
  Harness h;
  h.Put<float>(0, 0, {-1.0f, 0.25f, 2.0f, 3.0f});
  h.Put<float>(0, 32, {0.5f});  // bias [P, 1]
  ASSERT_TRUE(
      h.RunOn(
           "act",
           "activation_reduce dst=sbuf[p0:1, 64 + [4 x 1]] bf16 in=sbuf[p0:1, 0 + [4 x 1]] fp32 "
           "bias=sbuf[p0:1, 32 + [1 x 1]] fp32 reduce_res=sbuf[p0:1, 96 + [1 x 1]] fp32 func=gelu")
          .ok());
  V y;
  float sum = 0;
  for (float x : {-1.0f, 0.25f, 2.0f, 3.0f}) {
    y.push_back(numerics::ApplyActivation(isa::ActFunc::kGelu, x + 0.5f));
    sum += y.back();
  }
  EXPECT_EQ(h.Get<uint16_t>(0, 64, 4), Bf16(y));
  EXPECT_EQ(h.Get<float>(0, 96, 1)[0], sum);
}

TEST(interp_Elementwise, TensorScalarTensorTensorAndBitvec) {
  Harness h;
  h.Put<float>(0, 0, {1, 2, 3, 4});
  h.Put<float>(1, 0, {5, 6, 7, 8});
  h.Put<float>(0, 16, {10});
  h.Put<float>(1, 16, {20});
  ASSERT_TRUE(
      h.RunOn("dve",
              // (x * 2) then operand1 - t (reverse1) with a [P, 1] operand1.
              "tensor_scalar dst=sbuf[p0:2, 32 + [4 x 1]] fp32 in=sbuf[p0:2, 0 + [4 x 1]] fp32 "
              "operand0=2.0 operand1=sbuf[p0:2, 16 + [1 x 1]] fp32 op0=multiply op1=subtract "
              "reverse1\n"
              "tensor_tensor dst=sbuf[p0:2, 64 + [4 x 1]] bf16 in0=sbuf[p0:2, 0 + [4 x 1]] fp32 "
              "in1=sbuf[p0:2, 32 + [4 x 1]] fp32 op0=divide")
          .ok());
  EXPECT_EQ(h.Get<float>(0, 32, 4), (V{8, 6, 4, 2}));
  EXPECT_EQ(h.Get<float>(1, 32, 4), (V{10, 8, 6, 4}));
  EXPECT_EQ(h.Get<uint16_t>(0, 64, 4), Bf16({1.0f / 8, 2.0f / 6, 3.0f / 4, 4.0f / 2}));
  // Bitvec path on DVE: (x & 255) << 4 on int32, result truncated into uint8.
  h.Put<int32_t>(0, 128, {0x1234, -1});
  ASSERT_TRUE(
      h.RunOn(
           "dve",
           "tensor_scalar dst=sbuf[p0:1, 160 + [2 x 1]] int32 in=sbuf[p0:1, 128 + [2 x 1]] int32 "
           "operand0=255 operand1=4 op0=bitwise_and op1=left_shift\n"
           "tensor_tensor dst=sbuf[p0:1, 192 + [2 x 1]] uint8 in0=sbuf[p0:1, 128 + [2 x 1]] int32 "
           "in1=sbuf[p0:1, 160 + [2 x 1]] int32 op0=bitwise_xor")
          .ok());
  EXPECT_EQ(h.Get<int32_t>(0, 160, 2), (std::vector<int32_t>{0x340, 0xFF0}));
  EXPECT_EQ(h.Get<uint8_t>(0, 192, 2), (std::vector<uint8_t>{0x74, 0x0F}));
}

TEST(interp_Elementwise, PoolExactIntegerMath) {
  Harness h;
  // 2^24 + 1 is not representable in fp32; POOL's int32 path keeps it exact.
  h.Put<int32_t>(0, 0, {(1 << 24) + 1, 7});
  h.Put<int32_t>(0, 8, {2, -9});
  ASSERT_TRUE(h.RunOn("pool",
                      "tensor_tensor dst=sbuf[p0:1, 16 + [2 x 1]] int32 "
                      "in0=sbuf[p0:1, 0 + [2 x 1]] int32 in1=sbuf[p0:1, 8 + [2 x 1]] int32 op0=add")
                  .ok());
  EXPECT_EQ(h.Get<int32_t>(0, 16, 2), (std::vector<int32_t>{(1 << 24) + 3, -2}));
}

TEST(interp_Elementwise, CopyMemsetIota) {
  Harness h;
  const float nan_payload = std::bit_cast<float>(0x7fa00001u);
  h.Put<float>(0, 0, {1.00390625f, nan_payload, 3.0f});  // 1 + 2^-8: a bf16 tie, rounds to 1
  ASSERT_TRUE(
      h.RunOn("dve",
              "tensor_copy dst=sbuf[p0:1, 32 + [3 x 1]] bf16 in=sbuf[p0:1, 0 + [3 x 1]] fp32\n"
              "tensor_copy dst=sbuf[p0:1, 64 + [3 x 1]] fp32 in=sbuf[p0:1, 0 + [3 x 1]] fp32\n"
              "memset dst=sbuf[p0:2, 128 + [2 x 1]] int16 value=-2\n"
              "memset dst=sbuf[p0:2, 136 + [2 x 1]] bf16 value=0.1\n"
              "iota dst=sbuf[p0:2, 256 + [3 x 1]] int32 expr=iota[10, [2 x 100, 3 x -2]] int32\n"
              "iota dst=sbuf[p0:2, 512 + [2 x 1, 2 x 2]] fp32 expr=iota[0, [2 x 1, 2 x 16, 2 x 1]] "
              "int32")
          .ok());
  EXPECT_EQ(h.Get<uint16_t>(0, 32, 1)[0], Fp32ToBf16(1.0f));
  EXPECT_EQ(Bf16ToFp32(h.Get<uint16_t>(0, 32, 3)[2]), 3.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(h.Get<float>(0, 64, 2)[1]), 0x7fa00001u);
  EXPECT_EQ(h.Get<int16_t>(1, 128, 2), (std::vector<int16_t>{-2, -2}));
  EXPECT_EQ(h.Get<uint16_t>(1, 136, 1)[0], Fp32ToBf16(0.1f));
  EXPECT_EQ(h.Get<int32_t>(0, 256, 3), (std::vector<int32_t>{10, 8, 6}));
  EXPECT_EQ(h.Get<int32_t>(1, 256, 3), (std::vector<int32_t>{110, 108, 106}));
  // dst dims [2 x 1, 2 x 2]: elements land at 0, 2, 1, 3 of the row.
  EXPECT_EQ(h.Get<float>(1, 512, 4), (V{1, 17, 2, 18}));
}

TEST(interp_Vector, TensorReduceAxes) {
  Harness h;
  h.Put<float>(0, 0, {1, 5, 3, 4, -2, 6});  // [1, 2 x 3]
  ASSERT_TRUE(h.RunOn("dve",
                      "tensor_reduce dst=sbuf[p0:1, 64 + [2 x 1]] fp32 in=sbuf[p0:1, 0 + [2 x 3, 3 "
                      "x 1]] fp32 op0=add axes=1\n"
                      "tensor_reduce dst=sbuf[p0:1, 80 + [1 x 1]] fp32 in=sbuf[p0:1, 0 + [2 x 3, 3 "
                      "x 1]] fp32 op0=maximum axes=2 negate\n"
                      "tensor_reduce dst=sbuf[p0:1, 96 + [3 x 1]] fp32 in=sbuf[p0:1, 0 + [3 x 1, 2 "
                      "x 3]] fp32 op0=subtract axes=1")
                  .ok());
  EXPECT_EQ(h.Get<float>(0, 64, 2), (V{9, 8}));
  EXPECT_EQ(h.Get<float>(0, 80, 1), (V{-6}));
  EXPECT_EQ(h.Get<float>(0, 96, 3), (V{1 - 4, 5 - -2, 3 - 6}));
}

TEST(interp_Pool, AffineSelectCausalMaskAndPartitionReduce) {
  Harness h;
  for (int p = 0; p < 3; ++p) h.Put<float>(p, 0, {float(p) + 1, float(p) + 2, float(p) + 3});
  ASSERT_TRUE(
      h.RunOn("pool",
              "affine_select dst=sbuf[p0:3, 32 + [3 x 1]] fp32 expr=iota[0, [3 x 1, 3 x -1]] int32 "
              "on_true=sbuf[p0:3, 0 + [3 x 1]] fp32 on_false=-inf cmp=ge\n"
              "tensor_partition_reduce dst=sbuf[p0:1, 64 + [3 x 1]] fp32 in=sbuf[p0:3, 0 + [3 x "
              "1]] fp32 op0=average")
          .ok());
  const float ninf = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(h.Get<float>(0, 32, 3), (V{1, ninf, ninf}));
  EXPECT_EQ(h.Get<float>(2, 32, 3), (V{3, 4, 5}));
  EXPECT_EQ(h.Get<float>(0, 64, 3), (V{2, 3, 4}));
}

TEST(interp_Vector, PredicatedTransposeReciprocalMax8) {
  Harness h;
  h.Put<float>(0, 0, {1, 2, 3, 4});
  h.Put<float>(1, 0, {5, 6, 7, 8});
  h.Put<uint8_t>(0, 16, {1, 0, 0, 2});
  h.Put<float>(0, 32, {9, 9, 9, 9});
  h.Put<float>(0, 128, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
  ASSERT_TRUE(
      h.RunOn("dve",
              "tensor_copy_predicated dst=sbuf[p0:1, 32 + [4 x 1]] fp32 in=sbuf[p0:1, 0 + [4 x 1]] "
              "fp32 "
              "predicate=sbuf[p0:1, 16 + [4 x 1]] uint8\n"
              "transpose dst=sbuf[p0:4, 64 + [2 x 1]] fp32 in=sbuf[p0:2, 0 + [4 x 1]] fp32\n"
              "reciprocal dst=sbuf[p0:2, 96 + [4 x 1]] fp32 in=sbuf[p0:2, 0 + [4 x 1]] fp32\n"
              "max8 dst=sbuf[p0:1, 192 + [8 x 1]] fp32 in=sbuf[p0:1, 128 + [10 x 1]] fp32")
          .ok());
  EXPECT_EQ(h.Get<float>(0, 32, 4), (V{1, 9, 9, 4}));
  EXPECT_EQ(h.Get<float>(3, 64, 2), (V{4, 8}));
  EXPECT_EQ(h.Get<float>(1, 96, 4), (V{1.0f / 5, 1.0f / 6, 1.0f / 7, 1.0f / 8}));
  EXPECT_EQ(h.Get<float>(0, 192, 8), (V{9, 6, 5, 5, 4, 3, 3, 2}));
}

TEST(interp_Vector, BnStatsThenBnAggr) {
  Harness h;
  h.Put<float>(0, 0, {1, 10, 3, 20, 5, 30});  // even: 1,3,5  odd: 10,20,30
  ASSERT_TRUE(h.RunOn("dve",
                      "bn_stats dst=sbuf[p0:1, 64 + [6 x 1]] fp32 in=sbuf[p0:1, 0 + [6 x 1]] fp32\n"
                      "bn_aggr dst=sbuf[p0:1, 128 + [2 x 1]] fp32 in=sbuf[p0:1, 64 + [6 x 1]] fp32")
                  .ok());
  EXPECT_EQ(h.Get<float>(0, 64, 6), (V{3, 3, 8, 3, 20, 200}));
  // mean of all six = 69/6 = 11.5; population variance = sum((x - 11.5)^2) / 6.
  float var = 0;
  for (float x : {1, 10, 3, 20, 5, 30}) var += (x - 11.5f) * (x - 11.5f);
  EXPECT_EQ(h.Get<float>(0, 128, 1)[0], 11.5f);
  EXPECT_FLOAT_EQ(h.Get<float>(0, 128, 2)[1], var / 6);
}

TEST(interp_Vector, ScanScalarTensorTensorScalarReduce) {
  Harness h;
  h.Put<float>(0, 0, {1, 2, 3, 4});
  h.Put<float>(0, 16, {10, 20, 30, 40});
  ASSERT_TRUE(
      h.RunOn(
           "dve",
           // r_i = (d0[i] * r_{i-1}) + d1[i], r_-1 = 1
           "tensor_tensor_scan dst=sbuf[p0:1, 32 + [4 x 1]] fp32 data0=sbuf[p0:1, 0 + [4 x 1]] "
           "fp32 "
           "data1=sbuf[p0:1, 16 + [4 x 1]] fp32 initial=1.0 op0=multiply op1=add\n"
           // (3 - x) * operand1  (reverse0)
           "scalar_tensor_tensor dst=sbuf[p0:1, 48 + [4 x 1]] fp32 data=sbuf[p0:1, 0 + [4 x 1]] "
           "fp32 "
           "operand0=3.0 operand1=sbuf[p0:1, 16 + [4 x 1]] fp32 op0=subtract op1=multiply "
           "reverse0\n"
           "tensor_scalar_reduce dst=sbuf[p0:1, 64 + [4 x 1]] fp32 data=sbuf[p0:1, 0 + [4 x 1]] "
           "fp32 "
           "operand0=2.0 reduce_res=sbuf[p0:1, 80 + [1 x 1]] fp32 op0=multiply op1=maximum negate")
          .ok());
  EXPECT_EQ(h.Get<float>(0, 32, 4), (V{11, 42, 156, 664}));
  EXPECT_EQ(h.Get<float>(0, 48, 4), (V{20, 20, 0, -40}));
  EXPECT_EQ(h.Get<float>(0, 64, 4), (V{2, 4, 6, 8}));
  EXPECT_EQ(h.Get<float>(0, 80, 1), (V{-8}));
}

}  // namespace
}  // namespace trnsim::reference::testing
