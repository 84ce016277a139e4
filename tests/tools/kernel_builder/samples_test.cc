// The sample kernels: each generates, builds, reads back and decodes, with the declared I/O of
// its spec; and the reference math behaves.
#include <gtest/gtest.h>

#include <numeric>

#include "runtime/neff/neff_io.h"
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {
namespace {

class SampleTest : public ::testing::TestWithParam<SampleSpec> {};

TEST_P(SampleTest, BuildsWithItsDeclaredIo) {
  const SampleSpec& spec = GetParam();
  kb::KernelBuilder k({spec.name, "trn2", spec.lnc});
  Generator gen = GeneratorFor(spec.name);
  ASSERT_TRUE(gen);
  Status made = gen(spec, k);
  ASSERT_TRUE(made.ok()) << made.message();
  std::vector<uint8_t> bytes = k.BuildBytes().value();
  neff::Neff n = neff::ReadNeff(bytes, {.validate_hash = true}).value();
  EXPECT_EQ(n.header.lnc_size, static_cast<uint32_t>(spec.lnc));
  ASSERT_EQ(n.tensors.size(), spec.inputs.size() + spec.outputs.size());
  for (size_t i = 0; i < n.tensors.size(); ++i) {
    bool input = i < spec.inputs.size();
    const TensorSpec& t = input ? spec.inputs[i] : spec.outputs[i - spec.inputs.size()];
    EXPECT_EQ(n.tensors[i].name, t.name);
    EXPECT_EQ(n.tensors[i].usage, input ? neff::TensorUsage::kInput : neff::TensorUsage::kOutput);
    EXPECT_EQ(n.tensors[i].dtype, IsaDtype(t.dtype));
    EXPECT_EQ(n.tensors[i].shape, t.shape);
  }
  isa::IsaLimits limits = isa::LimitsFor(simulator::Trainium2Spec());
  for (const neff::Subgraph& sg : n.subgraphs) {
    ASSERT_EQ(sg.engines.size(), 5u);
    for (const neff::EngineProgram& e : sg.engines) {
      StatusOr<isa::Program> p = isa::DecodeStream(e.instructions, limits);
      ASSERT_TRUE(p.ok()) << sg.name << " " << e.instr_file << ": " << p.status().message();
      EXPECT_EQ(p->instructions.back().opcode, isa::Opcode::kNotifyEnd);
    }
  }
  EXPECT_LT(bytes.size(), 1u << 20) << "sample NEFFs stay small";
}

INSTANTIATE_TEST_SUITE_P(All, SampleTest, ::testing::ValuesIn(AllSamples()),
                         [](const auto& info) { return info.param.name; });

TEST(ReferenceTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(Bf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(RoundBf16(1.0f + 1.0f / 256), 1.0f);               // tie -> even
  EXPECT_EQ(RoundBf16(1.0f + 3.0f / 256), 1.0f + 4.0f / 256);  // tie -> even (up)
  EXPECT_TRUE(std::isnan(RoundBf16(NAN)));
  Array a = MakeArray("a", Dtype::kBfloat16, {3});
  a.data = {1.5f, -2.0f, 0.25f};
  EXPECT_EQ(FromBytes("a", Dtype::kBfloat16, {3}, ToBytes(a)).data, a.data);
}

TEST(ReferenceTest, InputsAreDeterministicAndRepresentable) {
  SampleSpec s = AllSamples()[1];  // vector_add_bf16
  std::vector<Array> a = MakeInputs(s), b = MakeInputs(s);
  EXPECT_EQ(a[0].data, b[0].data);
  EXPECT_NE(a[0].data, a[1].data);
  for (float v : a[0].data) {
    EXPECT_EQ(v, RoundBf16(v));
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
}

TEST(ReferenceTest, MathSanity) {
  for (const SampleSpec& s : AllSamples()) {
    if (s.name == "matmul_bf16_4096" || s.name.find("_lnc2") != std::string::npos) continue;
    std::vector<Array> in = MakeInputs(s);
    std::vector<Array> out = s.reference(in);
    ASSERT_EQ(out.size(), s.outputs.size()) << s.name;
    EXPECT_EQ(out[0].shape, s.outputs[0].shape) << s.name;
    EXPECT_TRUE(Compare(out[0], out[0], s.tolerance).ok);
    for (float v : out[0].data) ASSERT_TRUE(std::isfinite(v)) << s.name;
    if (s.name == "softmax_bf16") {  // rows sum to ~1
      double sum = std::accumulate(out[0].data.begin(), out[0].data.begin() + 1024, 0.0);
      EXPECT_NEAR(sum, 1.0, 1e-2);
    }
  }
  // Matmul against a direct sum on a small case.
  Array at = MakeArray("a_t", Dtype::kBfloat16, {2, 2}),
        b = MakeArray("b", Dtype::kBfloat16, {2, 2});
  at.data = {1, 2, 3, 4};  // a_t[k][m]
  b.data = {5, 6, 7, 8};
  EXPECT_EQ(ref::Matmul(at, b, "c").data, (std::vector<float>{26, 30, 38, 44}));
  Array off = ref::Matmul(at, b, "c");
  off.data[0] += 1.0f;
  CompareResult r = Compare(off, ref::Matmul(at, b, "c"), {1e-3, 0.0});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1u);
}

}  // namespace
}  // namespace trnsim::samples
