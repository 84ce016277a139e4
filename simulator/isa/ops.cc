#include "simulator/isa/ops.h"

#include <array>

namespace trnsim::isa {
namespace {

// Names are nki.language's (facts §4.2, §4.1) so kernel authors recognise them.
constexpr std::array<std::string_view, kAluOpCount> kAluNames = {
    "bypass",     "add",        "subtract",    "multiply",    "maximum",       "minimum",
    "abs_max",    "abs_min",    "equal",       "not_equal",   "greater_equal", "greater",
    "less_equal", "less",       "logical_and", "logical_or",  "logical_xor",   "power",
    "divide",     "mod",        "average",     "bitwise_and", "bitwise_or",    "bitwise_xor",
    "invert",     "left_shift", "right_shift", "abs",         "square",        "relu",
    "rsqrt",      "reciprocal",
};

constexpr std::array<std::string_view, kActFuncCount> kActNames = {
    "copy",
    "square",
    "sigmoid",
    "relu",
    "prelu",
    "gelu",
    "gelu_dx",
    "gelu_apprx_tanh",
    "gelu_apprx_sigmoid",
    "gelu_apprx_sigmoid_dx",
    "silu",
    "silu_dx",
    "tanh",
    "softplus",
    "mish",
    "erf",
    "erf_dx",
    "exp",
    "sign",
    "abs",
    "log",
    "sin",
    "arctan",
    "sqrt",
    "rsqrt",
    "reciprocal",
};

constexpr std::array<std::string_view, kCmpOpCount> kCmpNames = {"lt", "le", "eq",
                                                                 "ne", "ge", "gt"};
constexpr std::array<std::string_view, kCmpOpCount> kCmpSymbols = {
    "<", "<=", "==", "!=", ">=", ">"};
constexpr std::array<std::string_view, kReduceCmdCount> kReduceNames = {"idle", "reset", "reduce",
                                                                        "reset_reduce"};

template <typename E, size_t N>
std::string_view NameOf(const std::array<std::string_view, N>& names, E value) {
  auto i = static_cast<size_t>(value);
  return i < N ? names[i] : "?";
}

constexpr std::array<std::string_view, kCollectiveKindCount> kCollectiveNames = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "permute"};

template <typename E, size_t N>
std::optional<E> FromName(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

AluClass AluOpClass(AluOp op) {
  if (op == AluOp::kBypass) return AluClass::kBypass;
  if (op >= AluOp::kBitwiseAnd && op <= AluOp::kRightShift) return AluClass::kBitvec;
  return AluClass::kArithmetic;
}

bool AluOpIsUnary(AluOp op) { return op == AluOp::kInvert || op >= AluOp::kAbs; }

bool AluOpIsReduction(AluOp op) {
  switch (op) {
    case AluOp::kAdd:
    case AluOp::kSubtract:
    case AluOp::kMultiply:
    case AluOp::kMaximum:
    case AluOp::kMinimum:
    case AluOp::kBitwiseAnd:
    case AluOp::kBitwiseOr:
    case AluOp::kBitwiseXor:
    case AluOp::kLogicalAnd:
    case AluOp::kLogicalOr:
    case AluOp::kLogicalXor:
      return true;
    default:
      return false;
  }
}

std::string_view AluOpName(AluOp op) { return NameOf(kAluNames, op); }
std::optional<AluOp> AluOpFromName(std::string_view n) { return FromName<AluOp>(kAluNames, n); }
std::string_view ActFuncName(ActFunc f) { return NameOf(kActNames, f); }
std::optional<ActFunc> ActFuncFromName(std::string_view n) {
  return FromName<ActFunc>(kActNames, n);
}
std::string_view CmpOpName(CmpOp c) { return NameOf(kCmpNames, c); }
std::string_view CmpOpSymbol(CmpOp c) { return NameOf(kCmpSymbols, c); }

std::optional<CmpOp> CmpOpFromName(std::string_view n) {
  if (auto c = FromName<CmpOp>(kCmpNames, n)) return c;
  return FromName<CmpOp>(kCmpSymbols, n);
}

std::string_view ReduceCmdName(ReduceCmd c) { return NameOf(kReduceNames, c); }
std::optional<ReduceCmd> ReduceCmdFromName(std::string_view n) {
  return FromName<ReduceCmd>(kReduceNames, n);
}

std::string_view CollectiveKindName(CollectiveKind k) { return NameOf(kCollectiveNames, k); }
std::optional<CollectiveKind> CollectiveKindFromName(std::string_view n) {
  return FromName<CollectiveKind>(kCollectiveNames, n);
}

}  // namespace trnsim::isa
