#include "simulator/numerics/activation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>

namespace trnsim::numerics {
namespace {

using isa::ActFunc;

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
// ln(1 + e^x) without overflow for large x.
double Softplus(double x) {
  return x > 30.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double Phi(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }  // normal CDF
double SmallPhi(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);  // normal density
}

double Evaluate(ActFunc func, double x, double alpha) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2/pi)
  switch (func) {
    case ActFunc::kCopy:
      return x;
    case ActFunc::kSquare:
      return x * x;
    case ActFunc::kSigmoid:
      return Sigmoid(x);
    case ActFunc::kRelu:
      return std::isnan(x) ? x : (x > 0.0 ? x : 0.0);
    case ActFunc::kPrelu:
      return x >= 0.0 ? x : alpha * x;
    case ActFunc::kGelu:
      return x * Phi(x);
    case ActFunc::kGeluDx:
      return Phi(x) + x * SmallPhi(x);
    case ActFunc::kGeluApproxTanh:
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    case ActFunc::kGeluApproxSigmoid:
      return x * Sigmoid(1.702 * x);
    case ActFunc::kGeluApproxSigmoidDx: {
      const double s = Sigmoid(1.702 * x);
      return s + 1.702 * x * s * (1.0 - s);
    }
    case ActFunc::kSilu:
      return x * Sigmoid(x);
    case ActFunc::kSiluDx: {
      const double s = Sigmoid(x);
      return s * (1.0 + x * (1.0 - s));
    }
    case ActFunc::kTanh:
      return std::tanh(x);
    case ActFunc::kSoftplus:
      return Softplus(x);
    case ActFunc::kMish:
      return x * std::tanh(Softplus(x));
    case ActFunc::kErf:
      return std::erf(x);
    case ActFunc::kErfDx:
      return 2.0 / std::sqrt(std::numbers::pi) * std::exp(-x * x);
    case ActFunc::kExp:
      return std::exp(x);
    case ActFunc::kSign:
      return std::isnan(x) ? x : (x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0));
    case ActFunc::kAbs:
      return std::fabs(x);
    case ActFunc::kLog:
      return std::log(x);
    case ActFunc::kSin:
      return std::sin(x);
    case ActFunc::kArctan:
      return std::atan(x);
    case ActFunc::kSqrt:
      return std::sqrt(x);
    case ActFunc::kRsqrt:
      return 1.0 / std::sqrt(x);
    case ActFunc::kReciprocal:
      return 1.0 / x;
  }
  std::fprintf(stderr, "trnsim numerics: unknown activation %d\n", static_cast<int>(func));
  std::abort();
}

}  // namespace

float ApplyActivation(ActFunc func, float x, float param) {
  // x * tanh(softplus(x)) and friends at x = ±inf would form inf * 0 or inf - inf in
  // intermediate terms; their limits are well defined, so take them directly.
  if (std::isinf(x)) {
    const bool pos = x > 0;
    switch (func) {
      case ActFunc::kGelu:
      case ActFunc::kGeluApproxTanh:
      case ActFunc::kGeluApproxSigmoid:
      case ActFunc::kSilu:
      case ActFunc::kMish:
        return pos ? x : -0.0f;
      case ActFunc::kGeluDx:
      case ActFunc::kGeluApproxSigmoidDx:
      case ActFunc::kSiluDx:
        return pos ? 1.0f : 0.0f;
      default:
        break;
    }
  }
  return static_cast<float>(Evaluate(func, x, param));
}

bool ActivationInRange(ActFunc func, float x) {
  if (std::isnan(x)) return false;
  const double a = std::fabs(static_cast<double>(x));
  switch (func) {
    case ActFunc::kLog:
      return x >= std::ldexp(1.0, -64) && x <= std::ldexp(1.0, 64);
    case ActFunc::kSin:
      return a <= std::numbers::pi;
    case ActFunc::kArctan:
      return a <= std::numbers::pi / 2;
    case ActFunc::kSqrt:
      return x >= std::ldexp(1.0, -116) && x <= std::ldexp(1.0, 118);
    case ActFunc::kRsqrt:
      return x >= std::ldexp(1.0, -87) && x <= std::ldexp(1.0, 97);
    case ActFunc::kReciprocal:
      return a >= std::ldexp(1.0, -42) && a <= std::ldexp(1.0, 42);
    default:
      return true;
  }
}

}  // namespace trnsim::numerics
