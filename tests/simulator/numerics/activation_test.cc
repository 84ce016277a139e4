// Activation functions against values computed independently (Python math, double precision)
// and rounded to fp32 (docs/isa.md §6.4).
#include "simulator/numerics/activation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace trnsim::numerics {
namespace {

using isa::ActFunc;
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Spot {
  ActFunc func;
  float x;
  double expect;
};

TEST(NumericsActivationTest, SpotValues) {
  const Spot spots[] = {
      {ActFunc::kCopy, -1.25f, -1.25},
      {ActFunc::kSquare, -3.0f, 9.0},
      {ActFunc::kSigmoid, 0.0f, 0.5},
      {ActFunc::kSigmoid, 1.0f, 0.7310585786300049},
      {ActFunc::kRelu, -2.0f, 0.0},
      {ActFunc::kRelu, 2.0f, 2.0},
      {ActFunc::kGelu, 1.0f, 0.8413447460685429},
      {ActFunc::kGelu, -1.0f, -0.15865525393145707},
      {ActFunc::kGeluDx, 0.0f, 0.5},
      {ActFunc::kGeluDx, 1.0f, 1.0833154705876864},
      {ActFunc::kGeluApproxTanh, 1.0f, 0.8411919906082768},
      {ActFunc::kGeluApproxSigmoid, 1.0f, 0.8457957659328212},
      {ActFunc::kGeluApproxSigmoidDx, 1.0f, 1.067779606556334},
      {ActFunc::kSilu, 1.0f, 0.7310585786300049},
      {ActFunc::kSiluDx, 0.0f, 0.5},
      {ActFunc::kSiluDx, 1.0f, 0.9276705118714869},
      {ActFunc::kTanh, 0.5f, 0.46211715726000974},
      {ActFunc::kSoftplus, 0.0f, 0.6931471805599453},
      {ActFunc::kSoftplus, 1.0f, 1.3132616875182228},
      {ActFunc::kSoftplus, 100.0f, 100.0},
      {ActFunc::kMish, 1.0f, 0.8650983882673103},
      {ActFunc::kErf, 0.5f, 0.5204998778130465},
      {ActFunc::kErfDx, 0.0f, 1.1283791670955126},
      {ActFunc::kErfDx, 1.0f, 0.4151074974205947},
      {ActFunc::kExp, 1.0f, 2.718281828459045},
      {ActFunc::kSign, -3.0f, -1.0},
      {ActFunc::kSign, 0.0f, 0.0},
      {ActFunc::kSign, 0.25f, 1.0},
      {ActFunc::kAbs, -0.5f, 0.5},
      {ActFunc::kLog, 1.0f, 0.0},
      {ActFunc::kLog, 2.0f, 0.6931471805599453},
      {ActFunc::kSin, 1.0f, 0.8414709848078965},
      {ActFunc::kSin, 9.0f, 0.4121184852417566},  // out of range: exact value, not hardware's
      {ActFunc::kArctan, 1.0f, 0.7853981633974483},
      {ActFunc::kSqrt, 2.0f, 1.4142135623730951},
      {ActFunc::kRsqrt, 4.0f, 0.5},
      {ActFunc::kReciprocal, -8.0f, -0.125},
  };
  for (const Spot& s : spots) {
    // Correctly rounded up to libm's double error: allow one fp32 ulp.
    const float got = ApplyActivation(s.func, s.x);
    const float expect = static_cast<float>(s.expect);
    EXPECT_LE(std::fabs(got - expect), std::fabs(expect) * 0x1p-23f)
        << isa::ActFuncName(s.func) << "(" << s.x << ") = " << got << ", want " << expect;
  }
}

TEST(NumericsActivationTest, PreluUsesAlpha) {
  EXPECT_EQ(ApplyActivation(ActFunc::kPrelu, -2.0f, 0.25f), -0.5f);
  EXPECT_EQ(ApplyActivation(ActFunc::kPrelu, 2.0f, 0.25f), 2.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kRelu, -2.0f, 0.25f), 0.0f);  // param ignored
}

TEST(NumericsActivationTest, LimitsAndSpecialValues) {
  for (int f = 0; f < isa::kActFuncCount; ++f) {
    const ActFunc func = static_cast<ActFunc>(f);
    EXPECT_TRUE(std::isnan(ApplyActivation(func, NAN, 0.5f))) << isa::ActFuncName(func);
  }
  EXPECT_EQ(ApplyActivation(ActFunc::kSigmoid, -kInf), 0.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kSigmoid, kInf), 1.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kGelu, -kInf), 0.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kGelu, kInf), kInf);
  EXPECT_EQ(ApplyActivation(ActFunc::kMish, -kInf), 0.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kSilu, -200.0f), -0.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kSiluDx, kInf), 1.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kGeluDx, -kInf), 0.0f);
  EXPECT_EQ(ApplyActivation(ActFunc::kSoftplus, 1e30f), 1e30f);
  EXPECT_EQ(ApplyActivation(ActFunc::kExp, 100.0f), kInf);  // overflows fp32
  EXPECT_EQ(ApplyActivation(ActFunc::kLog, 0.0f), -kInf);
  EXPECT_TRUE(std::isnan(ApplyActivation(ActFunc::kLog, -1.0f)));
  EXPECT_EQ(ApplyActivation(ActFunc::kReciprocal, 0.0f), kInf);
  EXPECT_EQ(ApplyActivation(ActFunc::kTanh, -kInf), -1.0f);
}

TEST(NumericsActivationTest, ValidRanges) {
  EXPECT_TRUE(ActivationInRange(ActFunc::kGelu, -1e30f));
  EXPECT_TRUE(ActivationInRange(ActFunc::kLog, 0x1p-64f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kLog, 0x1p-65f));
  EXPECT_TRUE(ActivationInRange(ActFunc::kSin, -3.14159f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kSin, 9.0f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kArctan, 1.6f));
  EXPECT_TRUE(ActivationInRange(ActFunc::kSqrt, 0x1p118f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kSqrt, 0.0f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kRsqrt, 0x1p98f));
  EXPECT_TRUE(ActivationInRange(ActFunc::kReciprocal, -0x1p-42f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kReciprocal, 0x1p-43f));
  EXPECT_FALSE(ActivationInRange(ActFunc::kExp, NAN));
}

}  // namespace
}  // namespace trnsim::numerics
