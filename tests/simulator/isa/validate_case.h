// Table-driven validation cases: take a valid sample of an opcode, break one rule, and expect
// NRT_INVALID naming the mnemonic and the rule.
#pragma once

#include <functional>

#include "simulator/isa/encoding.h"
#include "tests/simulator/isa/samples.h"

namespace trnsim::isa::testing {

const IsaLimits& Trn2Limits();
// The first sample of `op` (and its engine).
Sample Base(Opcode op);

struct Case {
  const char* rule;
  Opcode base;
  std::function<void(Instruction&, Engine&)> mutate;
  const char* expect;  // substring of the message
};

// Checks the unmutated sample passes and the mutated one fails as `c` expects (gtest asserts).
void Check(const Case& c);

}  // namespace trnsim::isa::testing
