// Numerical-error reporting (issue 8, item 3): with NEURON_FAIL_ON_NAN=1 or
// NEURON_RT_NUMERICAL_ERRORS_VERBOSITY=critical, an execution whose outputs hold NaN/Inf returns
// NRT_EXEC_COMPLETED_WITH_NUM_ERR naming the output, with the outputs written; without them (the
// default) it succeeds; a malformed verbosity fails nrt_init; the system trace gets a
// numerical_err event naming the output. Also CountNonFinite per dtype.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "runtime/execution/numerical_check.h"
#include "tests/runtime/execution/execution_fixture.h"

namespace trnsim::runtime::execution::testing {
namespace {

std::vector<uint8_t> Fp32Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(CountNonFiniteTest, EveryFloatDtypeAndNoIntegerOne) {
  const float inf = std::numeric_limits<float>::infinity();
  NonFiniteCount c = CountNonFinite(isa::Dtype::kFloat32, Fp32Bytes({1, NAN, 2, -inf, inf}));
  EXPECT_EQ(c.nan, 1u);
  EXPECT_EQ(c.inf, 2u);
  EXPECT_EQ(c.first, 1u);
  // bf16: 0x7FC0 NaN, 0xFF80 -Inf, 0x3F80 1.0.
  const std::vector<uint8_t> bf16 = {0x80, 0x3F, 0x80, 0xFF, 0xC0, 0x7F};
  c = CountNonFinite(isa::Dtype::kBfloat16, bf16);
  EXPECT_EQ(c.nan, 1u);
  EXPECT_EQ(c.inf, 1u);
  EXPECT_EQ(c.first, 1u);
  // fp16: 0x7C00 +Inf; fp8 e4m3 (IEEE-style here): 0x78 +Inf, 0x7F NaN.
  c = CountNonFinite(isa::Dtype::kFloat16, std::vector<uint8_t>{0x00, 0x3C, 0x00, 0x7C});
  EXPECT_EQ(c.inf, 1u);
  c = CountNonFinite(isa::Dtype::kFloat8E4, std::vector<uint8_t>{0x38, 0x78, 0x7F});
  EXPECT_EQ(c.inf + c.nan, 2u);
  // The bit pattern of a float NaN read as int32 is just a number.
  EXPECT_FALSE(CountNonFinite(isa::Dtype::kInt32, Fp32Bytes({NAN, inf})).any());
  EXPECT_TRUE(NumericalErrorStatus("y", isa::Dtype::kFloat32, {}).ok());
}

class NumericalErrorsTest : public RuntimeFixture {
 protected:
  // vector_add_fp32 with a + b = NaN at element 5 (inf + -inf) and +inf at element 9; returns
  // the status of the execution and the output.
  Status Run(std::vector<uint8_t>* out_bytes) {
    model::Model* model = LoadSample("vector_add_fp32");
    if (model == nullptr) return FailureError("no model");
    const size_t n = 512 * 1024;
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> a(n, 1.0f), b(n, 2.0f);
    a[5] = inf;
    b[5] = -inf;
    a[9] = inf;
    Tensor* ta = NewTensor(n * 4, "a");
    Tensor* tb = NewTensor(n * 4, "b");
    Tensor* to = NewTensor(n * 4, "out");
    Write(ta, Fp32Bytes(a));
    Write(tb, Fp32Bytes(b));
    TensorSet* in = NewSet();
    TensorSet* out = NewSet();
    EXPECT_TRUE(rt().tensors().AddToSet(in, "a", ta).ok());
    EXPECT_TRUE(rt().tensors().AddToSet(in, "b", tb).ok());
    EXPECT_TRUE(rt().tensors().AddToSet(out, "out", to).ok());
    Status ran = rt().executions().Execute(model, in, out, 1);
    *out_bytes = Read(to, n * 4);
    return ran;
  }
};

TEST_F(NumericalErrorsTest, OffByDefault) {
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  std::vector<uint8_t> out;
  Status ran = Run(&out);
  EXPECT_TRUE(ran.ok()) << ran.ToString();
}

TEST_F(NumericalErrorsTest, FailOnNanNamesTheOutputAndKeepsItsValues) {
  setenv("NEURON_FAIL_ON_NAN", "1", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  std::vector<uint8_t> out;
  Status ran = Run(&out);
  EXPECT_EQ(ran.code(), StatusCode::kExecCompletedWithNumErr) << ran.ToString();
  EXPECT_NE(ran.message().find("output 'out' (fp32) holds 1 NaN and 1 infinite values, the "
                               "first at element 5"),
            std::string::npos)
      << ran.message();
  float v5, v9, v0;
  std::memcpy(&v5, &out[5 * 4], 4);
  std::memcpy(&v9, &out[9 * 4], 4);
  std::memcpy(&v0, &out[0], 4);
  EXPECT_TRUE(std::isnan(v5));
  EXPECT_TRUE(std::isinf(v9));
  EXPECT_EQ(v0, 3.0f);  // the outputs were written: the execution completed
}

TEST_F(NumericalErrorsTest, TheSystemTraceGetsANumericalErrEventOfTheRun) {
  setenv("NEURON_FAIL_ON_NAN", "1", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  ASSERT_TRUE(rt().profiling().StartSysTrace(profiling::SysTraceConfig()).ok());
  std::vector<uint8_t> out;
  EXPECT_EQ(Run(&out).code(), StatusCode::kExecCompletedWithNumErr);
  StatusOr<std::string> fetched = rt().profiling().FetchSysTrace({});
  ASSERT_TRUE(fetched.ok());
  nlohmann::json doc = nlohmann::json::parse(*fetched);
  std::vector<nlohmann::json> errors, running, runs;
  for (const nlohmann::json& e : doc["events"]) {
    if (e["phase"] != "start" && e["event_type"] != "runtime_execute") continue;
    if (e["event_type"] == "numerical_err") errors.push_back(e);
    if (e["event_type"] == "nc_exec_running") running.push_back(e);
    if (e["event_type"] == "runtime_execute" && e["phase"] == "stop") runs.push_back(e);
  }
  ASSERT_EQ(errors.size(), 1u);
  ASSERT_EQ(running.size(), 1u);
  ASSERT_EQ(runs.size(), 1u);
  const nlohmann::json& data = errors[0]["data"];
  EXPECT_EQ(data["tensor_name"], "out");
  EXPECT_EQ(data["nan_count"], 1);
  EXPECT_EQ(data["inf_count"], 1);
  EXPECT_EQ(data["exec_id"], running[0]["data"]["exec_id"]);
  EXPECT_EQ(data["device_core_idx"], 0);
  EXPECT_GT(data["nc_timestamp_ns"].get<uint64_t>(),
            running[0]["data"]["nc_timestamp_ns"].get<uint64_t>());  // at the run's end
  EXPECT_EQ(runs[0]["data"]["status"], "NRT_EXEC_COMPLETED_WITH_NUM_ERR");
  EXPECT_TRUE(rt().profiling().StopSysTrace().ok());
}

TEST_F(NumericalErrorsTest, VerbosityCriticalDoesTheSameAndAnUnknownValueFailsInit) {
  setenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", "CRITICAL", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  std::vector<uint8_t> out;
  EXPECT_EQ(Run(&out).code(), StatusCode::kExecCompletedWithNumErr);
  rt().Close();
  setenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", "loud", 1);
  Status init = rt().Init(kNoFramework, "test", "test");
  EXPECT_EQ(init.code(), StatusCode::kInvalid) << init.ToString();
  EXPECT_NE(init.message().find("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY"), std::string::npos);
}

}  // namespace
}  // namespace trnsim::runtime::execution::testing
