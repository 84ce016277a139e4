// TRNSIM_FAULTS parsing (driver/faults/fault_spec.h): good specifications and their canonical
// text, and one test per kind of malformed input, each with the message it must give.
#include "driver/faults/fault_spec.h"

#include <gtest/gtest.h>

namespace trnsim::driver::faults {
namespace {

TEST(FaultSpecTest, EmptyTextIsNoRules) {
  StatusOr<FaultSpec> spec = ParseFaultSpec("");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(spec->empty());
  spec = ParseFaultSpec(" ; ;");
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(spec->empty());
}

TEST(FaultSpecTest, EveryKindAndKey) {
  StatusOr<FaultSpec> spec = ParseFaultSpec(
      "hbm_ue:model=mlp*,nc=1,exec=3; repairable_hbm_ue ;nc_ue:core=5;dma_abort;collectives;"
      "timeout:exec=2;nq_overflow:count=2;corrupt:prob=0.25,seed=99;hang;load_oom:model=a?c");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->rules.size(), 10u);
  const FaultRule& hbm = spec->rules[0];
  EXPECT_EQ(hbm.kind, FaultKind::kHbmUe);
  EXPECT_EQ(hbm.model_glob, "mlp*");
  EXPECT_EQ(hbm.nc, 1);
  EXPECT_FALSE(hbm.physical_core.has_value());
  EXPECT_EQ(hbm.exec_ordinal, 3u);
  EXPECT_EQ(spec->rules[1].kind, FaultKind::kRepairableHbmUe);
  EXPECT_EQ(spec->rules[2].physical_core, 5);
  EXPECT_EQ(spec->rules[3].kind, FaultKind::kDmaAbort);
  EXPECT_EQ(spec->rules[4].kind, FaultKind::kCollectives);
  EXPECT_EQ(spec->rules[5].kind, FaultKind::kTimeout);
  EXPECT_EQ(spec->rules[6].max_faults, 2u);
  EXPECT_EQ(spec->rules[7].probability, 0.25);
  EXPECT_EQ(spec->rules[7].seed, 99u);
  EXPECT_EQ(spec->rules[8].kind, FaultKind::kHang);
  EXPECT_EQ(spec->rules[9].kind, FaultKind::kLoadOom);
  EXPECT_EQ(spec->rules[9].model_glob, "a?c");
}

TEST(FaultSpecTest, CanonicalTextRoundTrips) {
  const std::string text =
      "hbm_ue:model=mlp*,core=4,exec=3;corrupt:prob=0.10000000000000001,seed=7,count=2;timeout";
  StatusOr<FaultSpec> spec = ParseFaultSpec(
      " hbm_ue : exec=3 , core=4, model=mlp* ;"
      "corrupt:count=2,seed=7,prob=0.1;;timeout");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(FormatFaultSpec(*spec), text);
  StatusOr<FaultSpec> again = ParseFaultSpec(FormatFaultSpec(*spec));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(FormatFaultSpec(*again), text);
  EXPECT_EQ(again->rules[1].probability, 0.1);
}

// Each malformed specification fails with NRT_INVALID naming the rule and what is wrong.
TEST(FaultSpecTest, MalformedSpecsNameTheRuleAndTheProblem) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"hbm_ue;melt", "TRNSIM_FAULTS rule 2 'melt': unknown fault kind 'melt' (known: hbm_ue,"},
      {"hbm_ue:exec", "TRNSIM_FAULTS rule 1 'hbm_ue:exec': 'exec' is not key=value"},
      {"hbm_ue:when=3", "unknown key 'when' (known: model, nc, core, exec, prob, seed, count)"},
      {"hbm_ue:exec=1,exec=2", "key 'exec' twice"},
      {"hbm_ue:exec=0", "exec='0' is not an execution number (1 is the first)"},
      {"hbm_ue:exec=x", "exec='x' is not an execution number"},
      {"hbm_ue:nc=-1", "nc='-1' is not a core index"},
      {"hbm_ue:core=1.5", "core='1.5' is not a core index"},
      {"hbm_ue:prob=1.5,seed=1", "prob='1.5' is not a probability between 0 and 1"},
      {"hbm_ue:prob=nan,seed=1", "prob='nan' is not a probability"},
      {"hbm_ue:prob=0.5,seed=-3", "seed='-3' is not an unsigned 64-bit seed"},
      {"hbm_ue:seed=3", "seed= without prob="},
      {"hbm_ue:count=0", "count='0' is not a number of faults (at least 1)"},
      {"hbm_ue:model=", "model='' is not a NEFF name pattern"},
      {"hbm_ue:nc=0,core=0", "nc= and core= both name the core; give one"},
      {":exec=1", "unknown fault kind ''"},
  };
  for (const Case& c : cases) {
    StatusOr<FaultSpec> spec = ParseFaultSpec(c.text);
    ASSERT_FALSE(spec.ok()) << c.text;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalid) << c.text;
    EXPECT_NE(spec.status().message().find(c.message), std::string::npos)
        << c.text << " gave: " << spec.status().message();
    EXPECT_EQ(spec.status().message().rfind("TRNSIM_FAULTS rule ", 0), 0u) << c.text;
  }
}

}  // namespace
}  // namespace trnsim::driver::faults
