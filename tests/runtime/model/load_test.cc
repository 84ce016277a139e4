// Model loading rules: LNC and subgraph checks, instruction streams (trnsim-encoded, foreign,
// corrupt), the reported tensors, the choice of core (vnc -1), vnc_count, and LNC=2 placement.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/model/model_test_fixture.h"

namespace trnsim::runtime::model {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the fixtures
using neff::TensorUsage;
using neff::VariableType;

class LoadTest : public ModelTestBase {};

TEST_F(LoadTest, LncMismatchIsInvalidNamingBoth) {
  Status status = LoadStatus(EmptyNeff(2));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(),
              HasSubstr("LNC mismatch: NEFF compiled for LNC=2, runtime uses LNC=1"));
  EXPECT_THAT(status.message(), HasSubstr("'test-neff'"));

  Open(2);
  status = LoadStatus(EmptyNeff(1));
  EXPECT_THAT(status.message(),
              HasSubstr("LNC mismatch: NEFF compiled for LNC=1, runtime uses LNC=2"));
  // The message names the fix, since LNC=2 is the default and users meet this first.
  EXPECT_THAT(status.message(), HasSubstr("set NEURON_LOGICAL_NC_CONFIG=1 before nrt_init"));
  EXPECT_NE(MustLoad(EmptyNeff(2)), nullptr);
}

TEST_F(LoadTest, OneSubgraphPerPhysicalCore) {
  neff::Neff two = EmptyNeff(1);
  two.subgraphs.push_back(two.subgraphs[0]);
  Status status = LoadStatus(std::move(two));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("2 subgraphs"));

  Open(2);
  neff::Neff one = EmptyNeff(2);
  one.subgraphs.pop_back();
  status = LoadStatus(std::move(one));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("1 subgraphs; LNC=2 needs 2"));
}

TEST_F(LoadTest, Lnc2PlacesEachSubgraphOnItsPhysicalCore) {
  Open(2);
  neff::Neff neff = EmptyNeff(2);
  for (int k = 0; k < 2; ++k) {
    neff.subgraphs[k].variables.push_back(Var("t", VariableType::kTmpBuf, 1, 256));
    neff::Variable v = Var("v", VariableType::kVirtual, 2, 100 + 100 * k);
    neff.subgraphs[k].variables.push_back(v);
  }
  Model* model = MustLoad(std::move(neff), 1);  // vnc 1 = physical cores 2 and 3, HBM 1
  ASSERT_NE(model, nullptr);
  for (int k = 0; k < 2; ++k) {
    StatusOr<driver::AllocationInfo> info =
        device_->Describe(model->memory(k).Storage(1)->device_allocation()->handle);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->owner_core, 2 + k);
    EXPECT_EQ(info->hbm, 1);
  }
  // Both subgraphs share the vnc's scratchpad, sized for the larger.
  EXPECT_EQ(registry_->scratchpad(1).size_bytes(), 200u);
  EXPECT_EQ(registry_->scratchpad(0).size_bytes(), 0u);
  EXPECT_EQ(BytesUsed(1), HbmUsed(1));
  EXPECT_EQ(BytesUsed(0), 0u);
}

TEST_F(LoadTest, TensorsAreReportedAsDeclared) {
  neff::Neff neff = EmptyNeff();
  neff.tensors = {
      Decl("input:0", TensorUsage::kInput, 1 * 3 * 4 * 2, isa::Dtype::kBfloat16, {1, 3, 4}),
      Decl("mask", TensorUsage::kInput, 16, isa::Dtype::kUint8, {16}),
      Decl("output_0", TensorUsage::kOutput, 4, isa::Dtype::kFloat32, {}),
      Decl("odd", TensorUsage::kOutput, 7, isa::Dtype::kUnknown, {7, 1})};
  std::vector<neff::TensorDecl> expected = neff.tensors;
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->tensors(), expected);
  EXPECT_EQ(model->vnc_count(), 1u);
  EXPECT_EQ(model->instance_count(), 1u);
}

TEST_F(LoadTest, TrnsimStreamsAreDecoded) {
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kSp, NopStream(isa::Engine::kSp, chip())),
                               Engine(isa::Engine::kPe, NopStream(isa::Engine::kPe, chip())),
                               Engine(isa::Engine::kAct, {})};
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(model->foreign());
  EXPECT_TRUE(model->CheckExecutable().ok());
  EXPECT_EQ(model->programs().stream_count(), 2u);
  const isa::PackedProgram* sp = model->programs().program(0, isa::Engine::kSp);
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->engine(), isa::Engine::kSp);
  ASSERT_EQ(sp->size(), 2u);
  EXPECT_EQ(sp->opcode(0), isa::Opcode::kNop);
  EXPECT_EQ(sp->opcode(1), isa::Opcode::kNotifyEnd);
  EXPECT_NE(model->programs().program(0, isa::Engine::kPe), nullptr);
  EXPECT_EQ(model->programs().program(0, isa::Engine::kAct), nullptr);  // empty stream
  EXPECT_EQ(model->programs().program(0, isa::Engine::kDve), nullptr);  // no engine
}

TEST_F(LoadTest, NoStreamsIsNotForeign) {
  Model* model = MustLoad(EmptyNeff());
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(model->foreign());
  EXPECT_EQ(model->programs().stream_count(), 0u);
}

TEST_F(LoadTest, ForeignStreamsLoadButCannotExecute) {
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kPe, {0x7F, 'E', 'L', 'F', 1, 2, 3, 4}),
                               Engine(isa::Engine::kSp, {0, 0, 0, 0})};
  neff.tensors = {Decl("x", TensorUsage::kInput, 4, isa::Dtype::kFloat32, {1})};
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->foreign());
  EXPECT_EQ(model->tensors().size(), 1u);
  Status status = model->CheckExecutable();
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(status.message(), kForeignModelMessage);
  EXPECT_THAT(status.message(), HasSubstr("not in trnsim's encoding"));
}

TEST_F(LoadTest, MixedStreamsAreForeign) {
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kSp, NopStream(isa::Engine::kSp, chip())),
                               Engine(isa::Engine::kPe, {1, 2, 3, 4, 5, 6, 7, 8, 9})};
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->foreign());
  EXPECT_EQ(model->programs().program(0, isa::Engine::kSp), nullptr);
}

TEST_F(LoadTest, CorruptTrnsimStreamIsInvalidNamingWhere) {
  std::vector<uint8_t> stream = NopStream(isa::Engine::kDve, chip());
  ASSERT_GT(stream.size(), 40u);
  stream[stream.size() - 3] ^= 0x5A;  // the CRC no longer matches
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kDve, stream)};
  Status status = LoadStatus(std::move(neff));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("sg00 engine DVE (DVE.bin)"));

  std::vector<uint8_t> truncated = NopStream(isa::Engine::kSp, chip());
  truncated.resize(truncated.size() - 1);
  neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kSp, truncated)};
  EXPECT_EQ(LoadStatus(std::move(neff)).code(), StatusCode::kInvalid);
  EXPECT_EQ(BytesUsed(0), 0u);
}

TEST_F(LoadTest, DebugPrintsMustNameAPrefixOfTheirSubgraph) {
  isa::Instruction print;
  print.opcode = isa::Opcode::kDebugPrint;
  print.index = 1;
  print.ap[isa::kSrc] = isa::SbufAp(0, 1, 0, isa::Dtype::kFloat32, {{4, 1}});
  isa::Instruction end;
  end.opcode = isa::Opcode::kNotifyEnd;
  const std::vector<isa::Instruction> program = {print, end};
  std::vector<uint8_t> stream =
      isa::EncodeStream(isa::Engine::kAct, program, isa::LimitsFor(chip())).value();
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kAct, stream)};
  neff.subgraphs[0].debug_prefixes = {"only one"};
  Status status = LoadStatus(neff);
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(),
              HasSubstr("sg00 engine Activation (Activation.bin): instruction 0 (debug_print): "
                        "prefix 1 is not one of the subgraph's 1 debug prefixes"));
  EXPECT_EQ(BytesUsed(0), 0u);
  neff.subgraphs[0].debug_prefixes.push_back("the second");
  EXPECT_NE(MustLoad(std::move(neff)), nullptr);
}

TEST_F(LoadTest, StreamForAnotherEngineIsInvalid) {
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kPe, NopStream(isa::Engine::kSp, chip()))};
  Status status = LoadStatus(std::move(neff));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("sg00 engine PE (PE.bin)"));
  EXPECT_THAT(status.message(), HasSubstr("'sp'"));
}

TEST_F(LoadTest, VncMinusOnePicksTheLeastLoadedCore) {
  // trn2.3xlarge at LNC=1: 8 vncs. The first 8 loads fill them in order, then it wraps.
  for (int i = 0; i < 10; ++i) {
    StatusOr<Model*> model = registry_->Load(EmptyNeff(), -1, -1);
    ASSERT_TRUE(model.ok());
    EXPECT_EQ((*model)->vnc(), i % 8) << i;
  }
  // Now cores 0 and 1 hold two models, 2..7 one. Explicit loads count too; unloads free a slot.
  ASSERT_TRUE(registry_->Load(EmptyNeff(), 2, 1).ok());
  StatusOr<Model*> next = registry_->Load(EmptyNeff(), -1, -1);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ((*next)->vnc(), 3);
  StatusOr<Model*> on6 = registry_->Load(EmptyNeff(), 6, 1);
  ASSERT_TRUE(on6.ok());
  ASSERT_TRUE(registry_->Unload(*on6).ok());
  ASSERT_TRUE(registry_->Unload(*next).ok());  // core 3 is back to one model
  next = registry_->Load(EmptyNeff(), -1, -1);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ((*next)->vnc(), 3);
}

TEST_F(LoadTest, VncAndVncCountArguments) {
  for (int vnc_count : {0, 2, 4, -2}) {
    Status status = registry_->Load(EmptyNeff(), 0, vnc_count).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalid) << vnc_count;
    EXPECT_THAT(status.message(), HasSubstr("vnc_count")) << vnc_count;
  }
  EXPECT_TRUE(registry_->Load(EmptyNeff(), 0, 1).ok());
  EXPECT_TRUE(registry_->Load(EmptyNeff(), 7, -1).ok());
  for (int vnc : {8, -2, 1000}) {
    EXPECT_EQ(registry_->Load(EmptyNeff(), vnc, -1).status().code(), StatusCode::kInvalid);
  }
}

}  // namespace
}  // namespace trnsim::runtime::model
