#include "simulator/isa/act_table.h"

#include <array>

namespace trnsim::isa {
namespace {

constexpr std::array<std::string_view, kActTableSetCount> kSetNames = {
    "",
    "natural_log_exp_and_others",
    "gelu_and_others",
    "reciprocal_sqrt_and_small",
    "reciprocal_and_small",
};

}  // namespace

ActTableSet TableSetOf(ActFunc func) {
  switch (func) {
    // Exact piece-wise-linear or polynomial functions: the "small" members every set carries.
    case ActFunc::kCopy:
    case ActFunc::kSquare:
    case ActFunc::kRelu:
    case ActFunc::kPrelu:
    case ActFunc::kSign:
    case ActFunc::kAbs:
      return ActTableSet::kNone;
    // exp, log and the functions built from them (the "others").
    case ActFunc::kExp:
    case ActFunc::kLog:
    case ActFunc::kSigmoid:
    case ActFunc::kTanh:
    case ActFunc::kSoftplus:
    case ActFunc::kSilu:
    case ActFunc::kSiluDx:
    case ActFunc::kMish:
    case ActFunc::kSin:
    case ActFunc::kArctan:
      return ActTableSet::kNaturalLogExp;
    // gelu in every form, and erf (gelu is x * Phi(x), Phi an erf).
    case ActFunc::kGelu:
    case ActFunc::kGeluDx:
    case ActFunc::kGeluApproxTanh:
    case ActFunc::kGeluApproxSigmoid:
    case ActFunc::kGeluApproxSigmoidDx:
    case ActFunc::kErf:
    case ActFunc::kErfDx:
      return ActTableSet::kGelu;
    case ActFunc::kSqrt:
    case ActFunc::kRsqrt:
      return ActTableSet::kReciprocalSqrt;
    case ActFunc::kReciprocal:
      return ActTableSet::kReciprocal;
  }
  return ActTableSet::kNone;
}

std::string_view ActTableSetName(ActTableSet set) {
  const auto i = static_cast<size_t>(set);
  return i < kSetNames.size() ? kSetNames[i] : std::string_view();
}

std::optional<ActTableSet> ActTableSetFromName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (size_t i = 1; i < kSetNames.size(); ++i)
    if (kSetNames[i] == name) return static_cast<ActTableSet>(i);
  return std::nullopt;
}

}  // namespace trnsim::isa
