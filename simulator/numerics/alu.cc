#include "simulator/numerics/alu.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace trnsim::numerics {
namespace {

using isa::AluOp;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

[[noreturn]] void BadOp(const char* path, AluOp op) {
  std::fprintf(stderr, "trnsim numerics: ALU op %d not valid on the %s path\n",
               static_cast<int>(op), path);
  std::abort();
}

float Bool(bool b) { return b ? 1.0f : 0.0f; }

}  // namespace

float ApplyAlu(AluOp op, float x, float y) {
  const bool any_nan = std::isnan(x) || std::isnan(y);
  switch (op) {
    case AluOp::kBypass:
      return x;
    case AluOp::kAdd:
      return x + y;
    case AluOp::kSubtract:
      return x - y;
    case AluOp::kMultiply:
      return x * y;
    // Equal values (including -0 vs +0) give y, like abs_max's tie rule.
    case AluOp::kMaximum:
      return any_nan ? kNaN : (x > y ? x : y);
    case AluOp::kMinimum:
      return any_nan ? kNaN : (x < y ? x : y);
    case AluOp::kAbsMax:
      return any_nan ? kNaN : (std::fabs(x) > std::fabs(y) ? x : y);
    case AluOp::kAbsMin:
      return any_nan ? kNaN : (std::fabs(x) < std::fabs(y) ? x : y);
    case AluOp::kEqual:
      return Bool(x == y);
    case AluOp::kNotEqual:
      return Bool(x != y);
    case AluOp::kGreaterEqual:
      return Bool(x >= y);
    case AluOp::kGreater:
      return Bool(x > y);
    case AluOp::kLessEqual:
      return Bool(x <= y);
    case AluOp::kLess:
      return Bool(x < y);
    case AluOp::kLogicalAnd:
      return Bool(x != 0.0f && y != 0.0f);
    case AluOp::kLogicalOr:
      return Bool(x != 0.0f || y != 0.0f);
    case AluOp::kLogicalXor:
      return Bool((x != 0.0f) != (y != 0.0f));
    case AluOp::kPower:
      return std::pow(x, y);
    case AluOp::kDivide:
      return x / y;
    case AluOp::kMod:
      return std::fmod(x, y);
    case AluOp::kAverage:
      return (x + y) * 0.5f;
    case AluOp::kBitwiseAnd:
    case AluOp::kBitwiseOr:
    case AluOp::kBitwiseXor:
    case AluOp::kInvert:
    case AluOp::kLeftShift:
    case AluOp::kRightShift:
      return std::bit_cast<float>(
          ApplyAluBits(op, std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(y)));
    case AluOp::kAbs:
      return std::fabs(x);
    case AluOp::kSquare:
      return x * x;
    case AluOp::kRelu:
      return std::isnan(x) ? kNaN : (x > 0.0f ? x : 0.0f);
    // Correctly rounded via double: 1/sqrt(+0) = +inf, 1/sqrt(-0) = -inf, negative -> NaN.
    case AluOp::kRsqrt:
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
    case AluOp::kReciprocal:
      return 1.0f / x;
  }
  BadOp("fp32", op);
}

uint32_t ApplyAluBits(AluOp op, uint32_t x, uint32_t y) {
  switch (op) {
    case AluOp::kBypass:
      return x;
    case AluOp::kBitwiseAnd:
      return x & y;
    case AluOp::kBitwiseOr:
      return x | y;
    case AluOp::kBitwiseXor:
      return x ^ y;
    case AluOp::kInvert:
      return ~x;
    case AluOp::kLeftShift:
      return x << (y & 31u);
    case AluOp::kRightShift:
      return x >> (y & 31u);
    default:
      BadOp("bitvec", op);
  }
}

uint32_t ApplyAluInt(AluOp op, uint32_t x, uint32_t y, bool is_signed) {
  const int32_t sx = static_cast<int32_t>(x);
  const int32_t sy = static_cast<int32_t>(y);
  // x < y, x == y in the operands' signedness.
  const bool less = is_signed ? sx < sy : x < y;
  const bool equal = x == y;
  switch (op) {
    case AluOp::kAdd:
      return x + y;  // unsigned arithmetic wraps by definition
    case AluOp::kSubtract:
      return x - y;
    case AluOp::kMultiply:
      return x * y;
    case AluOp::kMaximum:
      return less ? y : x;
    case AluOp::kMinimum:
      return less ? x : y;
    case AluOp::kEqual:
      return equal;
    case AluOp::kNotEqual:
      return !equal;
    case AluOp::kGreaterEqual:
      return !less;
    case AluOp::kGreater:
      return !less && !equal;
    case AluOp::kLessEqual:
      return less || equal;
    case AluOp::kLess:
      return less;
    default:
      return ApplyAluBits(op, x, y);
  }
}

uint32_t ExtendIntBits(isa::Dtype dtype, uint64_t raw) {
  switch (dtype) {
    case isa::Dtype::kInt8:
      return static_cast<uint32_t>(static_cast<int8_t>(raw));
    case isa::Dtype::kInt16:
      return static_cast<uint32_t>(static_cast<int16_t>(raw));
    case isa::Dtype::kUint8:
      return static_cast<uint8_t>(raw);
    case isa::Dtype::kUint16:
      return static_cast<uint16_t>(raw);
    default:
      return static_cast<uint32_t>(raw);  // 32-bit types; 64-bit types truncate
  }
}

std::optional<float> AluIdentity(AluOp op) {
  switch (op) {
    case AluOp::kAdd:
    case AluOp::kLogicalOr:
    case AluOp::kLogicalXor:
      return 0.0f;
    case AluOp::kMultiply:
    case AluOp::kLogicalAnd:
      return 1.0f;
    case AluOp::kMaximum:
      return -std::numeric_limits<float>::infinity();
    case AluOp::kMinimum:
      return std::numeric_limits<float>::infinity();
    default:
      return std::nullopt;
  }
}

std::optional<uint32_t> AluIdentityBits(AluOp op) {
  switch (op) {
    case AluOp::kBitwiseAnd:
      return 0xffffffffu;
    case AluOp::kBitwiseOr:
    case AluOp::kBitwiseXor:
      return 0u;
    default:
      return std::nullopt;
  }
}

}  // namespace trnsim::numerics
