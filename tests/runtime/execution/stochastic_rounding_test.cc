// NEURON_RT_STOCHASTIC_ROUNDING_EN / _SEED through nrt_execute: the softmax sample (fp32 math
// stored as bf16) with stochastic rounding stays within its tolerance, differs from the
// round-to-nearest-even output, is reproducible for one seed (a fresh runtime, same bytes) and
// changes with the seed and from one execution to the next.
#include <gtest/gtest.h>

#include "tests/runtime/execution/execution_fixture.h"
#include "tools/samples/reference/samples.h"

namespace trnsim::runtime::execution::testing {
namespace {

class StochasticRoundingTest : public RuntimeFixture {
 protected:
  // Runs softmax_bf16 `runs` times in a fresh runtime; returns each run's output bytes.
  std::vector<std::vector<uint8_t>> Softmax(const char* enable, const char* seed, int runs) {
    rt().Close();
    if (enable) setenv("NEURON_RT_STOCHASTIC_ROUNDING_EN", enable, 1);
    if (seed) setenv("NEURON_RT_STOCHASTIC_ROUNDING_SEED", seed, 1);
    Start("trn2.3xlarge", 1);
    model::Model* model = LoadSample("softmax_bf16");
    EXPECT_NE(model, nullptr);
    const samples::SampleSpec spec = Spec();
    std::vector<samples::Array> in = samples::MakeInputs(spec);
    std::vector<uint8_t> x = samples::ToBytes(in[0]);
    TensorSet* ins = NewSet();
    TensorSet* outs = NewSet();
    Tensor* tx = NewTensor(x.size(), "x");
    Tensor* ty = NewTensor(x.size(), "y");
    Write(tx, x);
    EXPECT_TRUE(rt().tensors().AddToSet(ins, "x", tx).ok());
    EXPECT_TRUE(rt().tensors().AddToSet(outs, "y", ty).ok());
    std::vector<std::vector<uint8_t>> out;
    for (int i = 0; i < runs; ++i) {
      Status s = rt().executions().Execute(model, ins, outs, 1);
      EXPECT_TRUE(s.ok()) << s.ToString();
      out.push_back(Read(ty, x.size()));
    }
    unsetenv("NEURON_RT_STOCHASTIC_ROUNDING_EN");
    unsetenv("NEURON_RT_STOCHASTIC_ROUNDING_SEED");
    return out;
  }
  static samples::SampleSpec Spec() {
    for (const samples::SampleSpec& s : samples::AllSamples())
      if (s.name == "softmax_bf16") return s;
    return {};
  }
};

TEST_F(StochasticRoundingTest, ReproducibleBySeedAndWithinTolerance) {
  const std::vector<uint8_t> nearest = Softmax(nullptr, nullptr, 1)[0];
  const std::vector<std::vector<uint8_t>> a = Softmax("1", "1234", 2);
  const std::vector<std::vector<uint8_t>> b = Softmax("1", "1234", 2);
  const std::vector<std::vector<uint8_t>> c = Softmax("1", "99", 1);
  EXPECT_NE(a[0], nearest) << "stochastic rounding changed nothing";
  EXPECT_EQ(a[0], b[0]) << "same seed, same first execution: same bytes";
  EXPECT_EQ(a[1], b[1]);
  EXPECT_NE(a[0], a[1]) << "the next execution draws fresh bits";
  EXPECT_NE(a[0], c[0]) << "another seed, other bits";
  // Every output is still the softmax, within the sample's tolerance.
  const samples::SampleSpec spec = Spec();
  std::vector<samples::Array> want = spec.reference(samples::MakeInputs(spec));
  for (const std::vector<uint8_t>& bytes : {a[0], a[1], c[0]}) {
    samples::Array got =
        samples::FromBytes("y", spec.outputs[0].dtype, spec.outputs[0].shape, bytes);
    samples::CompareResult r = samples::Compare(got, want[0], spec.tolerance);
    EXPECT_TRUE(r.ok);
  }
}

TEST_F(StochasticRoundingTest, ABadSettingFailsInit) {
  setenv("NEURON_RT_STOCHASTIC_ROUNDING_SEED", "not-a-number", 1);
  setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
  EXPECT_EQ(rt().Init(kNoFramework, "test", "test").code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::runtime::execution::testing
