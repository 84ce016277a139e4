// Every sample NEFF (tools/samples/reference/samples.h) runs through Executions::Execute on trn2
// (trn2.3xlarge) and trn3 (trn3.48xlarge), at the sample's LNC, and its outputs match the
// reference math within the sample's tolerance. matmul_bf16_4096 (137 GFLOP) runs in an
// executable of its own (TRNSIM_BIG_SAMPLES) so it can be labelled and scheduled apart.
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "tests/runtime/execution/execution_fixture.h"

namespace trnsim::runtime::execution::testing {
namespace {

constexpr char kBigSample[] = "matmul_bf16_4096";

const samples::SampleSpec& SpecOf(const std::string& name) {
  static const std::vector<samples::SampleSpec> all = samples::AllSamples();
  auto it = std::find_if(all.begin(), all.end(), [&](const auto& s) { return s.name == name; });
  if (it == all.end()) std::abort();  // the test lists only known samples
  return *it;
}

std::vector<std::string> SampleNames(bool big) {
  std::vector<std::string> names;
  for (const samples::SampleSpec& s : samples::AllSamples()) {
    if ((s.name == kBigSample) == big) names.push_back(s.name);
  }
  return names;
}

class SampleExecutionTest
    : public RuntimeFixture,
      public ::testing::WithParamInterface<std::tuple<std::string, std::string>> {
 protected:
  // Loads, binds, executes and compares one sample on `instance`.
  void RunSample(const samples::SampleSpec& spec, const std::string& instance) {
    // The 137-GFLOP matmul takes minutes of host time (more under sanitizers): no host limit.
    if (TRNSIM_BIG_SAMPLES) setenv("NEURON_RT_EXEC_TIMEOUT", "0", 1);
    ASSERT_NO_FATAL_FAILURE(Start(instance, spec.lnc));
    model::Model* model = LoadSample(spec.name);
    ASSERT_NE(model, nullptr);
    std::vector<samples::Array> inputs = samples::MakeInputs(spec);
    std::vector<samples::Array> want = spec.reference(inputs);
    TensorSet* in = NewSet();
    TensorSet* out = NewSet();
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
      std::vector<uint8_t> bytes = samples::ToBytes(inputs[i]);
      Tensor* t = NewTensor(bytes.size(), spec.inputs[i].name);
      ASSERT_NE(t, nullptr);
      ASSERT_NO_FATAL_FAILURE(Write(t, bytes));
      ASSERT_TRUE(rt().tensors().AddToSet(in, spec.inputs[i].name, t).ok());
    }
    std::vector<Tensor*> outputs;
    for (size_t i = 0; i < spec.outputs.size(); ++i) {
      Tensor* t = NewTensor(want[i].bytes(), spec.outputs[i].name);
      ASSERT_NE(t, nullptr);
      // A sentinel, so an output the model never writes cannot pass by accident.
      ASSERT_TRUE(rt().tensors().Memset(t, 0, 0xFF, want[i].bytes()).ok());
      ASSERT_TRUE(rt().tensors().AddToSet(out, spec.outputs[i].name, t).ok());
      outputs.push_back(t);
    }

    Status ran = rt().executions().Execute(model, in, out, 1);
    ASSERT_TRUE(ran.ok()) << spec.name << " on " << instance << ": " << ran.ToString();

    for (size_t i = 0; i < spec.outputs.size(); ++i) {
      const samples::TensorSpec& o = spec.outputs[i];
      samples::Array got =
          samples::FromBytes(o.name, o.dtype, o.shape, Read(outputs[i], want[i].bytes()));
      EXPECT_EQ(Mismatch(got, want[i], spec.tolerance), "ok") << spec.name << " on " << instance;
    }

    StatusOr<ExecutionRecord> record = rt().executions().Last(model);
    ASSERT_TRUE(record.ok()) << record.status().ToString();
    EXPECT_EQ(record->execution_count, 1u);
    EXPECT_GT(record->last.duration_ps, 0u);
    ASSERT_EQ(record->last.cores.size(), static_cast<size_t>(spec.lnc));
    std::printf("[ figures  ] %s on %s: %.3f us simulated, %.3f s host, %llu events\n",
                spec.name.c_str(), instance.c_str(), record->last.duration_ps / 1e6,
                record->host_ns / 1e9, static_cast<unsigned long long>(record->last.events));
    for (const driver::CoreStats& core : record->last.cores) {
      EXPECT_LE(core.duration_ps, record->last.duration_ps);
      EXPECT_GT(core.instructions, 0u);
      for (const auto& engine : core.engines) EXPECT_LE(engine.busy_ps, core.duration_ps);
    }
  }
};

TEST_P(SampleExecutionTest, MatchesReference) {
  const auto& [instance, sample] = GetParam();
  RunSample(SpecOf(sample), instance);
}

std::string CaseName(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& p) {
  std::string name = std::get<1>(p.param) + "_" + std::get<0>(p.param);
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

// Built twice (CMakeLists.txt): TRNSIM_BIG_SAMPLES=1 runs only the 137-GFLOP matmul, so that
// executable can carry a label of its own; 0 runs every other sample.
INSTANTIATE_TEST_SUITE_P(Samples, SampleExecutionTest,
                         ::testing::Combine(::testing::Values("trn2.3xlarge", "trn3.48xlarge"),
                                            ::testing::ValuesIn(SampleNames(TRNSIM_BIG_SAMPLES))),
                         CaseName);

}  // namespace
}  // namespace trnsim::runtime::execution::testing
