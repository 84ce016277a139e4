#include "tests/simulator/isa/validate_case.h"

#include <gtest/gtest.h>

namespace trnsim::isa::testing {

const IsaLimits& Trn2Limits() {
  static const IsaLimits l = LimitsFor(simulator::Trainium2Spec());
  return l;
}

Sample Base(Opcode op) {
  for (const Sample& s : Samples()) {
    if (s.inst.opcode == op) return s;
  }
  ADD_FAILURE() << "no sample for " << Mnemonic(op);
  return {Engine::kSp, Instruction{}};
}

void Check(const Case& c) {
  Sample s = Base(c.base);
  ASSERT_TRUE(ValidateForEngine(s.engine, s.inst, Trn2Limits()).ok()) << c.rule;
  c.mutate(s.inst, s.engine);
  Status st = ValidateForEngine(s.engine, s.inst, Trn2Limits());
  ASSERT_FALSE(st.ok()) << c.rule;
  EXPECT_EQ(st.code(), StatusCode::kInvalid) << c.rule;
  EXPECT_NE(st.message().find(c.expect), std::string::npos)
      << c.rule << ": \"" << st.message() << "\" lacks \"" << c.expect << "\"";
  if (FindOpcode(s.inst.opcode) != nullptr) {
    EXPECT_EQ(st.message().rfind(std::string(Mnemonic(s.inst.opcode)) + ": ", 0), 0u)
        << c.rule << ": " << st.message();
  }
}

}  // namespace trnsim::isa::testing
