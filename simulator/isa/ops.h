// The small enumerations instructions carry: ALU operators (nki.language ops, facts §4.2),
// activation functions (§4.1), comparisons, reduce commands and the synchronisation operations.
// Every value is an encoding: never renumber; append only. The exact math of each is specified
// in docs/isa.md §6.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trnsim::isa {

// ALU operator of the DVE/ACT/POOL datapaths. x is the tensor element, y the other operand.
enum class AluOp : uint8_t {
  kBypass = 0,    // x (the op is skipped)
  kAdd = 1,       // x + y
  kSubtract = 2,  // x - y
  kMultiply = 3,  // x * y
  kMaximum = 4,   // max(x, y)
  kMinimum = 5,   // min(x, y)
  kAbsMax = 6,    // the input of larger magnitude; ties give y
  kAbsMin = 7,    // the input of smaller magnitude; ties give y
  kEqual = 8,     // comparisons give 1.0 or 0.0
  kNotEqual = 9,
  kGreaterEqual = 10,
  kGreater = 11,
  kLessEqual = 12,
  kLess = 13,
  kLogicalAnd = 14,  // (x != 0) && (y != 0) as 1.0/0.0
  kLogicalOr = 15,
  kLogicalXor = 16,
  kPower = 17,       // powf(x, y)
  kDivide = 18,      // x / y
  kMod = 19,         // fmodf(x, y)
  kAverage = 20,     // (x + y) / 2; as a reduction, the mean
  kBitwiseAnd = 21,  // bitvec ops work on the raw integer bits (integer dtypes only)
  kBitwiseOr = 22,
  kBitwiseXor = 23,
  kInvert = 24,      // ~x (unary)
  kLeftShift = 25,   // x << (y & 31)
  kRightShift = 26,  // logical x >> (y & 31)
  kAbs = 27,         // unary arithmetic: y is ignored
  kSquare = 28,
  kRelu = 29,
  kRsqrt = 30,
  kReciprocal = 31,
};
inline constexpr int kAluOpCount = 32;

enum class AluClass : uint8_t { kBypass, kArithmetic, kBitvec };
AluClass AluOpClass(AluOp op);
bool AluOpIsUnary(AluOp op);
// Legal as the reduction operator of tensor_reduce / tensor_scalar_reduce (the * ops of §4.2).
bool AluOpIsReduction(AluOp op);

// Activation functions of `activation` (facts §4.1, in that order). kPrelu takes its alpha from
// the instruction's `alpha` immediate.
enum class ActFunc : uint8_t {
  kCopy = 0,
  kSquare = 1,
  kSigmoid = 2,
  kRelu = 3,
  kPrelu = 4,
  kGelu = 5,
  kGeluDx = 6,
  kGeluApproxTanh = 7,
  kGeluApproxSigmoid = 8,
  kGeluApproxSigmoidDx = 9,
  kSilu = 10,
  kSiluDx = 11,
  kTanh = 12,
  kSoftplus = 13,
  kMish = 14,
  kErf = 15,
  kErfDx = 16,
  kExp = 17,
  kSign = 18,
  kAbs = 19,
  kLog = 20,
  kSin = 21,
  kArctan = 22,
  kSqrt = 23,
  kRsqrt = 24,
  kReciprocal = 25,
};
inline constexpr int kActFuncCount = 26;

// Comparison of branch, sem_wait and affine_select: `a cmp b`.
enum class CmpOp : uint8_t { kLt = 0, kLe = 1, kEq = 2, kNe = 3, kGe = 4, kGt = 5 };
inline constexpr int kCmpOpCount = 6;

// nki.isa.reduce_cmd (same numbers) for the ACT accumulate registers.
enum class ReduceCmd : uint8_t { kIdle = 0, kReset = 1, kReduce = 2, kResetReduce = 3 };
inline constexpr int kReduceCmdCount = 4;

// What a sync prefix waits on.
enum class WaitKind : uint8_t { kSemaphore = 1, kEvent = 2 };
// What a sync suffix (or sem_update) does; profiler names sem_add_imm, sem_sub_imm, sem_wr_imm,
// evt_set, evt_clr.
enum class UpdateOp : uint8_t {
  kSemAdd = 1,
  kSemSub = 2,
  kSemSet = 3,
  kEventSet = 4,
  kEventClear = 5
};
// When a suffix fires: when the instruction starts reading its inputs, or when it completes
// (results written; for dma_copy, when the transfer has landed).
enum class UpdateWhen : uint8_t { kComplete = 0, kRead = 1 };

// The collective of a `collective` instruction (its `count` field, text `kind=`; docs/isa.md
// §7.8). The values are those of simulator::collective::CollectiveKind, which the chip model
// hands them to the rendezvous as.
enum class CollectiveKind : uint8_t {
  kAllReduce = 0,
  kAllGather = 1,
  kReduceScatter = 2,
  kAllToAll = 3,
  kPermute = 4,
};
inline constexpr int kCollectiveKindCount = 5;
// all_reduce and reduce_scatter combine the ranks' elements with the instruction's op0.
constexpr bool CollectiveReduces(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

std::string_view AluOpName(AluOp op);  // "add", "multiply", ...; "?" when out of range
std::optional<AluOp> AluOpFromName(std::string_view name);
std::string_view ActFuncName(ActFunc func);  // "gelu_apprx_tanh", ...
std::optional<ActFunc> ActFuncFromName(std::string_view name);
std::string_view CmpOpName(CmpOp cmp);    // "lt", "le", "eq", "ne", "ge", "gt"
std::string_view CmpOpSymbol(CmpOp cmp);  // "<", "<=", "==", "!=", ">=", ">"
std::optional<CmpOp> CmpOpFromName(std::string_view name_or_symbol);
std::string_view ReduceCmdName(ReduceCmd cmd);  // "idle", "reset", "reduce", "reset_reduce"
std::optional<ReduceCmd> ReduceCmdFromName(std::string_view name);
// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "permute"; "?" when out of range.
std::string_view CollectiveKindName(CollectiveKind kind);
std::optional<CollectiveKind> CollectiveKindFromName(std::string_view name);

// Evaluates `a cmp b` (used by branch, sem_wait and affine_select).
template <typename T>
constexpr bool Compare(CmpOp cmp, T a, T b) {
  switch (cmp) {
    case CmpOp::kLt:
      return a < b;
    case CmpOp::kLe:
      return a <= b;
    case CmpOp::kEq:
      return a == b;
    case CmpOp::kNe:
      return a != b;
    case CmpOp::kGe:
      return a >= b;
    case CmpOp::kGt:
      return a > b;
  }
  return false;
}

}  // namespace trnsim::isa
