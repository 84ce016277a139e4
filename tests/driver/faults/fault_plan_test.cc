// FaultPlan (driver/faults/fault_plan.h): which executions a rule hits (exec=N per core, model
// globs, count=), what faults leave behind, and that prob+seed decisions are a function of the
// spec alone: two plans from one spec agree, another seed differs.
#include "driver/faults/fault_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "driver/faults/fault_effects.h"

namespace trnsim::driver::faults {
namespace {

const simulator::InstanceSpec& Trn2() { return **simulator::FindInstanceSpec("trn2.3xlarge"); }

std::unique_ptr<FaultPlan> Plan(const std::string& text) {
  StatusOr<FaultSpec> spec = ParseFaultSpec(text);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  StatusOr<std::unique_ptr<FaultPlan>> plan = FaultPlan::Create(*spec, Trn2());
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? std::move(*plan) : nullptr;
}

FaultOutcome Decide(FaultPlan& plan, std::vector<int> cores, std::string_view model = "m") {
  ExecutionSite site;
  site.model_name = model;
  site.physical_cores = cores;
  site.host_timeout = std::chrono::milliseconds(1000);
  return plan.BeforeExecution(site);
}

// The statuses of `n` executions of model "m" on core 0.
std::vector<StatusCode> Codes(FaultPlan& plan, int n) {
  std::vector<StatusCode> codes;
  for (int i = 0; i < n; ++i) codes.push_back(Decide(plan, {0}).status.code());
  return codes;
}

TEST(FaultPlanTest, ExecNHitsTheNthExecutionOfEachCore) {
  std::unique_ptr<FaultPlan> plan = Plan("timeout:exec=2");
  ASSERT_NE(plan, nullptr);
  EXPECT_FALSE(Decide(*plan, {0}).kind.has_value());
  EXPECT_FALSE(Decide(*plan, {4}).kind.has_value());  // core 4's first: another count
  FaultOutcome second = Decide(*plan, {0});
  ASSERT_TRUE(second.kind.has_value());
  EXPECT_EQ(*second.kind, FaultKind::kTimeout);
  EXPECT_TRUE(second.injected);
  EXPECT_EQ(second.status.code(), StatusCode::kTimeout);
  EXPECT_NE(second.status.message().find("execution timeout (1000 ms) on Neuron Device 0 NC 0"),
            std::string::npos)
      << second.status.message();
  EXPECT_EQ(Decide(*plan, {4}).status.code(), StatusCode::kTimeout);  // core 4's second
  EXPECT_TRUE(Decide(*plan, {0}).status.ok());  // transient: the third is fine
}

TEST(FaultPlanTest, ModelGlobAndCoreSelectAndCountLimits) {
  std::unique_ptr<FaultPlan> plan = Plan("nq_overflow:model=mlp_*,core=2,count=2");
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(Decide(*plan, {2}, "vector_add").status.ok());
  EXPECT_TRUE(Decide(*plan, {0}, "mlp_gelu").status.ok());
  FaultOutcome hit = Decide(*plan, {2, 3}, "mlp_gelu");
  EXPECT_EQ(hit.status.code(), StatusCode::kExecSwNqOverflow);
  EXPECT_NE(hit.status.message().find("NEURON_RT_ENABLE_DGE_NOTIFICATIONS=0"), std::string::npos);
  EXPECT_EQ(Decide(*plan, {2}, "mlp_x").status.code(), StatusCode::kExecSwNqOverflow);
  EXPECT_TRUE(Decide(*plan, {2}, "mlp_x").status.ok());  // count=2 spent
}

TEST(FaultPlanTest, HbmUePoisonsTheStackAndNcUeKillsOnlyTheCore) {
  std::unique_ptr<FaultPlan> plan = Plan("hbm_ue:core=0,exec=1;nc_ue:core=4,exec=1");
  ASSERT_NE(plan, nullptr);
  FaultOutcome ue = Decide(*plan, {0});
  EXPECT_EQ(ue.status.code(), StatusCode::kExecHwErrHbmUe);
  EXPECT_NE(ue.status.message().find("Uncorrectable HBM memory error is detected"),
            std::string::npos);
  // Core 1 shares core 0's HBM stack on trn2 (two physical cores per stack); core 2 does not.
  FaultOutcome after = Decide(*plan, {1});
  EXPECT_EQ(after.status.code(), StatusCode::kExecHwErrHbmUe);
  EXPECT_FALSE(after.injected);
  EXPECT_TRUE(Decide(*plan, {2}).status.ok());
  EXPECT_EQ(Decide(*plan, {4}).status.code(), StatusCode::kExecHwErrNcUe);
  EXPECT_EQ(Decide(*plan, {4}).status.code(), StatusCode::kExecHwErrNcUe);  // dead core
  EXPECT_TRUE(Decide(*plan, {5}).status.ok());  // its stack neighbour is fine
}

TEST(FaultPlanTest, ProbWithSeedIsAFunctionOfTheSpec) {
  // Transient collectives faults alone, so every execution is decided afresh.
  std::unique_ptr<FaultPlan> a = Plan("collectives:prob=0.3,seed=12345");
  std::unique_ptr<FaultPlan> b = Plan("collectives:prob=0.3,seed=12345");
  std::unique_ptr<FaultPlan> c = Plan("collectives:prob=0.3,seed=54321");
  ASSERT_TRUE(a && b && c);
  const std::vector<StatusCode> first = Codes(*a, 64);
  EXPECT_EQ(first, Codes(*b, 64));
  EXPECT_NE(first, Codes(*c, 64));
  const auto hits = std::count(first.begin(), first.end(), StatusCode::kExecHwErrCollectives);
  EXPECT_GT(hits, 5);  // about 19 of 64 expected
  EXPECT_LT(hits, 40);
  // prob=1 always fires, prob=0 never.
  std::unique_ptr<FaultPlan> always = Plan("collectives:prob=1,seed=1");
  std::unique_ptr<FaultPlan> never = Plan("collectives:prob=0,seed=1");
  for (StatusCode code : Codes(*always, 8)) EXPECT_EQ(code, StatusCode::kExecHwErrCollectives);
  for (StatusCode code : Codes(*never, 8)) EXPECT_EQ(code, StatusCode::kOk);
}

TEST(FaultPlanTest, LoadOomHitsMatchingLoadsOnly) {
  std::unique_ptr<FaultPlan> plan = Plan("load_oom:model=big*,core=2");
  ASSERT_NE(plan, nullptr);
  ProgramImage image;
  image.streams[0] = std::vector<uint8_t>(2048, 0);
  EXPECT_TRUE(plan->BeforeLoad("small", 2, image).ok());
  EXPECT_TRUE(plan->BeforeLoad("big_model", 0, image).ok());
  EXPECT_TRUE(plan->BeforeLoad("big_model", -1, image).ok());  // unknown core: no core= match
  Status oom = plan->BeforeLoad("big_model", 2, image);
  EXPECT_EQ(oom.code(), StatusCode::kResource);
  EXPECT_NE(oom.message().find("Failed to allocate 2.000KB (alignment: none, usage: model code) "
                               "on ND 0:NC 2"),
            std::string::npos)
      << oom.message();
  EXPECT_FALSE(Decide(*plan, {2}, "big_model").kind.has_value());  // loads only
}

TEST(FaultPlanTest, CreateRefusesUntranslatedOrOutOfRangeCores) {
  StatusOr<std::unique_ptr<FaultPlan>> plan =
      FaultPlan::Create(*ParseFaultSpec("hbm_ue:nc=0"), Trn2());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalid);
  EXPECT_NE(plan.status().message().find("nc=0 is a logical core"), std::string::npos);
  plan = FaultPlan::Create(*ParseFaultSpec("hbm_ue:core=8"), Trn2());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalid);
  EXPECT_NE(plan.status().message().find("core=8 is outside the 8 physical cores"),
            std::string::npos);
}

TEST(FaultPlanTest, CorruptedWordsAreOutputsOnlyAndFollowTheSeed) {
  CoreExecution core;
  core.vars = {{.var_id = 1, .memory = 10, .offset = 0, .size = 4096, .output = false},
               {.var_id = 2, .memory = 11, .offset = 64, .size = 1024, .output = true},
               {.var_id = 3, .memory = 12, .offset = 0, .size = 2, .output = true}};
  std::vector<CoreExecution> cores = {core};
  std::vector<CorruptedWord> words = ChooseCorruptedWords(77, cores);
  ASSERT_EQ(words.size(), size_t(kCorruptedWordsPerOutput));
  for (const CorruptedWord& w : words) {
    EXPECT_EQ(w.memory, 11u);
    EXPECT_GE(w.offset, 64u);
    EXPECT_LT(w.offset, 64u + 1024u);
    EXPECT_EQ(w.offset % 4, 0u);
  }
  std::vector<CorruptedWord> again = ChooseCorruptedWords(77, cores);
  std::vector<CorruptedWord> other = ChooseCorruptedWords(78, cores);
  auto offsets = [](const std::vector<CorruptedWord>& v) {
    std::vector<uint64_t> o;
    for (const CorruptedWord& w : v) o.push_back(w.offset);
    return o;
  };
  EXPECT_EQ(offsets(words), offsets(again));
  EXPECT_NE(offsets(words), offsets(other));
}

}  // namespace
}  // namespace trnsim::driver::faults
