// ALU operators against hand-computed values (docs/isa.md §6.3).
#include "simulator/numerics/alu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace trnsim::numerics {
namespace {

using isa::AluOp;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(NumericsAluTest, Arithmetic) {
  EXPECT_EQ(ApplyAlu(AluOp::kBypass, 3.0f, 9.0f), 3.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kAdd, 1.5f, 2.25f), 3.75f);
  EXPECT_EQ(ApplyAlu(AluOp::kAdd, 1.0f, 0x1p-24f), 1.0f);  // fp32 RNE: tie to even
  EXPECT_EQ(ApplyAlu(AluOp::kSubtract, 1.5f, 2.25f), -0.75f);
  EXPECT_EQ(ApplyAlu(AluOp::kMultiply, -3.0f, 0.5f), -1.5f);
  EXPECT_EQ(ApplyAlu(AluOp::kDivide, 1.0f, 4.0f), 0.25f);
  EXPECT_EQ(ApplyAlu(AluOp::kDivide, 1.0f, 0.0f), kInf);
  EXPECT_EQ(ApplyAlu(AluOp::kDivide, -1.0f, 0.0f), -kInf);
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kDivide, 0.0f, 0.0f)));
  EXPECT_EQ(ApplyAlu(AluOp::kMod, 7.5f, 2.0f), 1.5f);
  EXPECT_EQ(ApplyAlu(AluOp::kMod, -7.5f, 2.0f), -1.5f);  // sign of x
  EXPECT_EQ(ApplyAlu(AluOp::kMod, 7.5f, -2.0f), 1.5f);
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kMod, 1.0f, 0.0f)));
  EXPECT_EQ(ApplyAlu(AluOp::kPower, 2.0f, 10.0f), 1024.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kPower, 4.0f, 0.5f), 2.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kPower, 0.0f, 0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kPower, -8.0f, 1.0f / 3.0f)));
  EXPECT_EQ(ApplyAlu(AluOp::kAverage, 3.0f, 6.0f), 4.5f);
}

TEST(NumericsAluTest, MaxMinAndAbsVariants) {
  EXPECT_EQ(ApplyAlu(AluOp::kMaximum, -1.0f, 2.0f), 2.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kMinimum, -1.0f, 2.0f), -1.0f);
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kMaximum, kNaN, 2.0f)));
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kMinimum, 2.0f, kNaN)));
  EXPECT_EQ(ApplyAlu(AluOp::kAbsMax, -3.0f, 2.0f), -3.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kAbsMax, 2.0f, -3.0f), -3.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kAbsMax, 3.0f, -3.0f), -3.0f);  // tie gives y
  EXPECT_EQ(ApplyAlu(AluOp::kAbsMax, -3.0f, 3.0f), 3.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kAbsMin, -1.0f, 2.0f), -1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kAbsMin, 2.0f, -2.0f), -2.0f);  // tie gives y
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kAbsMax, kNaN, 1.0f)));
}

TEST(NumericsAluTest, ComparisonsAndLogic) {
  EXPECT_EQ(ApplyAlu(AluOp::kEqual, 2.0f, 2.0f), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kEqual, 0.0f, -0.0f), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kEqual, kNaN, kNaN), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kNotEqual, kNaN, kNaN), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kGreaterEqual, 2.0f, 2.0f), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kGreater, 2.0f, 2.0f), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLessEqual, 1.0f, 2.0f), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLess, 3.0f, 2.0f), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLess, 1.0f, kNaN), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLogicalAnd, 0.5f, -2.0f), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLogicalAnd, 0.5f, 0.0f), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLogicalOr, -0.0f, 0.0f), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLogicalOr, -0.0f, 3.0f), 1.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLogicalXor, 1.0f, 3.0f), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kLogicalXor, 1.0f, 0.0f), 1.0f);
}

TEST(NumericsAluTest, Unary) {
  EXPECT_EQ(ApplyAlu(AluOp::kAbs, -2.0f, 99.0f), 2.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kSquare, -3.0f, 99.0f), 9.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kRelu, -3.0f, 99.0f), 0.0f);
  EXPECT_EQ(ApplyAlu(AluOp::kRelu, 3.0f, 99.0f), 3.0f);
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kRelu, kNaN, 0.0f)));
  EXPECT_EQ(ApplyAlu(AluOp::kRsqrt, 4.0f, 99.0f), 0.5f);
  EXPECT_EQ(ApplyAlu(AluOp::kRsqrt, 0.0f, 0.0f), kInf);
  EXPECT_EQ(ApplyAlu(AluOp::kRsqrt, -0.0f, 0.0f), -kInf);
  EXPECT_EQ(ApplyAlu(AluOp::kRsqrt, kInf, 0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(ApplyAlu(AluOp::kRsqrt, -1.0f, 0.0f)));
  EXPECT_EQ(ApplyAlu(AluOp::kRsqrt, 2.0f, 0.0f), 0.70710677f);
  EXPECT_EQ(ApplyAlu(AluOp::kReciprocal, 8.0f, 99.0f), 0.125f);
  EXPECT_EQ(ApplyAlu(AluOp::kReciprocal, -0.0f, 0.0f), -kInf);
  EXPECT_EQ(ApplyAlu(AluOp::kReciprocal, kInf, 0.0f), 0.0f);
}

TEST(NumericsAluTest, Bitvec) {
  EXPECT_EQ(ApplyAluBits(AluOp::kBitwiseAnd, 0xf0f0u, 0xff00u), 0xf000u);
  EXPECT_EQ(ApplyAluBits(AluOp::kBitwiseOr, 0xf0f0u, 0xff00u), 0xfff0u);
  EXPECT_EQ(ApplyAluBits(AluOp::kBitwiseXor, 0xf0f0u, 0xff00u), 0x0ff0u);
  EXPECT_EQ(ApplyAluBits(AluOp::kInvert, 0x0000ffffu, 7u), 0xffff0000u);
  EXPECT_EQ(ApplyAluBits(AluOp::kLeftShift, 1u, 31u), 0x80000000u);
  EXPECT_EQ(ApplyAluBits(AluOp::kLeftShift, 1u, 33u), 2u);            // shift amount & 31
  EXPECT_EQ(ApplyAluBits(AluOp::kRightShift, 0x80000000u, 31u), 1u);  // logical
  EXPECT_EQ(ApplyAluBits(AluOp::kRightShift, 0xfffffff0u, 4u), 0x0fffffffu);
  EXPECT_EQ(ApplyAluBits(AluOp::kBypass, 5u, 6u), 5u);
  EXPECT_EQ(ExtendIntBits(isa::Dtype::kInt8, 0x80), 0xffffff80u);
  EXPECT_EQ(ExtendIntBits(isa::Dtype::kUint8, 0x80), 0x80u);
  EXPECT_EQ(ExtendIntBits(isa::Dtype::kInt16, 0xfffe), 0xfffffffeu);
  EXPECT_EQ(ExtendIntBits(isa::Dtype::kUint16, 0xfffe), 0xfffeu);
  EXPECT_EQ(ExtendIntBits(isa::Dtype::kInt32, 0x80000000u), 0x80000000u);
}

TEST(NumericsAluTest, ExactIntegerPathWraps) {
  EXPECT_EQ(ApplyAluInt(AluOp::kAdd, 0x7fffffffu, 1u, true), 0x80000000u);
  EXPECT_EQ(ApplyAluInt(AluOp::kAdd, 0xffffffffu, 2u, false), 1u);
  EXPECT_EQ(ApplyAluInt(AluOp::kSubtract, 0u, 1u, false), 0xffffffffu);
  EXPECT_EQ(ApplyAluInt(AluOp::kMultiply, 0x10000u, 0x10000u, true), 0u);
  EXPECT_EQ(ApplyAluInt(AluOp::kMultiply, 16777217u, 3u, true), 50331651u);  // not fp32-exact
  EXPECT_EQ(ApplyAluInt(AluOp::kMaximum, 0xffffffffu, 1u, true), 1u);        // -1 < 1
  EXPECT_EQ(ApplyAluInt(AluOp::kMaximum, 0xffffffffu, 1u, false), 0xffffffffu);
  EXPECT_EQ(ApplyAluInt(AluOp::kMinimum, 0xffffffffu, 1u, true), 0xffffffffu);
  EXPECT_EQ(ApplyAluInt(AluOp::kLess, 0xffffffffu, 1u, true), 1u);
  EXPECT_EQ(ApplyAluInt(AluOp::kLess, 0xffffffffu, 1u, false), 0u);
  EXPECT_EQ(ApplyAluInt(AluOp::kGreaterEqual, 5u, 5u, true), 1u);
  EXPECT_EQ(ApplyAluInt(AluOp::kGreater, 5u, 5u, true), 0u);
  EXPECT_EQ(ApplyAluInt(AluOp::kLessEqual, 5u, 5u, false), 1u);
  EXPECT_EQ(ApplyAluInt(AluOp::kNotEqual, 5u, 5u, false), 0u);
  EXPECT_EQ(ApplyAluInt(AluOp::kEqual, 5u, 5u, false), 1u);
  EXPECT_EQ(ApplyAluInt(AluOp::kBitwiseXor, 6u, 3u, false), 5u);
}

TEST(NumericsAluTest, ReductionIdentities) {
  for (AluOp op : {AluOp::kAdd, AluOp::kMultiply, AluOp::kMaximum, AluOp::kMinimum,
                   AluOp::kLogicalAnd, AluOp::kLogicalOr, AluOp::kLogicalXor}) {
    const float id = *AluIdentity(op);
    for (float x : {-2.5f, 0.0f, 3.0f, -kInf}) {
      const float expect = isa::AluOpClass(op) == isa::AluClass::kArithmetic &&
                                   op >= AluOp::kLogicalAnd && op <= AluOp::kLogicalXor
                               ? (x != 0.0f ? 1.0f : 0.0f)
                               : x;
      EXPECT_EQ(ApplyAlu(op, id, x), expect) << isa::AluOpName(op) << " " << x;
    }
  }
  EXPECT_EQ(*AluIdentity(AluOp::kMaximum), -kInf);
  EXPECT_EQ(*AluIdentity(AluOp::kMinimum), kInf);
  EXPECT_FALSE(AluIdentity(AluOp::kSubtract).has_value());
  EXPECT_FALSE(AluIdentity(AluOp::kAverage).has_value());
  for (AluOp op : {AluOp::kBitwiseAnd, AluOp::kBitwiseOr, AluOp::kBitwiseXor}) {
    EXPECT_EQ(ApplyAluBits(op, *AluIdentityBits(op), 0x12345678u), 0x12345678u);
  }
  EXPECT_FALSE(AluIdentityBits(AluOp::kAdd).has_value());
}

}  // namespace
}  // namespace trnsim::numerics
