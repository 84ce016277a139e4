// Models through the process-wide Runtime: live handles, unload, queries, execution checks,
// nrt_close unloading everything, NEURON_RT_VALIDATE_HASH, and loading from NEFF bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/env.h"
#include "runtime/neff/neff_io.h"
#include "runtime/runtime.h"
#include "tests/runtime/model/neff_fixtures.h"

namespace trnsim::runtime {
namespace {

using model::Model;
using ::testing::HasSubstr;
using namespace model::testing;  // NOLINT: the fixtures
using neff::TensorUsage;
using neff::VariableType;

constexpr uint32_t kNoFramework = 1;

neff::Neff SmallNeff(uint32_t lnc = 2) {
  neff::Neff neff = EmptyNeff(lnc, "small");
  for (neff::Subgraph& sg : neff.subgraphs) {
    sg.variables.push_back(Var("x", VariableType::kInput, 10, 8));
    sg.variables.push_back(Var("y", VariableType::kOutput, 11, 8));
    sg.variables.push_back(Var("t", VariableType::kTmpBuf, 1, 4096));
    neff::Variable v = Var("v", VariableType::kVirtual, 2, 1024);
    sg.variables.push_back(v);
    neff::Variable c = Var("c", VariableType::kFile, 3, 16);
    c.file_name = "c.bin";
    sg.files["c.bin"] = Pattern(16, 1);
    sg.variables.push_back(c);
  }
  neff.tensors = {Decl("x", TensorUsage::kInput, 8, isa::Dtype::kFloat32, {2}),
                  Decl("y", TensorUsage::kOutput, 8, isa::Dtype::kFloat32, {2})};
  return neff;
}

class RuntimeModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const EnvVarInfo& info : EnvTable()) unsetenv(info.name);
    setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);  // LNC=2: 4 vncs
  }
  void TearDown() override {
    rt().Close();
    for (const EnvVarInfo& info : EnvTable()) unsetenv(info.name);
  }
  static Runtime& rt() { return Runtime::Get(); }
  static Status Init() { return rt().Init(kNoFramework, "test", "test"); }
  static uint64_t BytesUsed(int vnc) {
    StatusOr<VncMemoryStats> stats = rt().tensors().MemoryStats(vnc);
    EXPECT_TRUE(stats.ok());
    return stats.ok() ? stats->bytes_used : ~0ull;
  }
  static Model* MustLoad(neff::Neff neff, int vnc = 0) {
    StatusOr<Model*> model = rt().models().Load(std::move(neff), vnc, -1);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    return model.ok() ? *model : nullptr;
  }
};

TEST_F(RuntimeModelsTest, LoadQueryUnload) {
  ASSERT_TRUE(Init().ok());
  Model* model = MustLoad(SmallNeff(), 2);
  ASSERT_NE(model, nullptr);
  EXPECT_GT(BytesUsed(2), 0u);
  EXPECT_EQ(BytesUsed(0), 0u);
  StatusOr<ModelInfo> info = rt().models().Info(model);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->vnc, 2);
  EXPECT_EQ(info->vnc_count, 1u);
  EXPECT_EQ(info->instance_count, 1u);
  StatusOr<std::vector<neff::TensorDecl>> tensors = rt().models().Tensors(model);
  ASSERT_TRUE(tensors.ok());
  EXPECT_EQ(*tensors, SmallNeff().tensors);

  ASSERT_TRUE(rt().models().Unload(model).ok());
  EXPECT_EQ(BytesUsed(2), 0u);
  EXPECT_EQ(rt().models().Unload(model).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().models().Info(model).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().models().Tensors(model).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().models().Unload(nullptr).code(), StatusCode::kInvalid);
  int not_a_model = 0;
  EXPECT_EQ(rt().models().Unload(reinterpret_cast<Model*>(&not_a_model)).code(),
            StatusCode::kInvalidHandle);
}

// Model ids (what the runtime tags a model's programs and memory with for neurond): 1, 2, ...
// in load order, never reused within the runtime's life, even after an unload.
TEST_F(RuntimeModelsTest, ModelIdsFollowLoadOrderAndAreNotReused) {
  ASSERT_TRUE(Init().ok());
  Model* first = MustLoad(SmallNeff(), 0);
  Model* second = MustLoad(SmallNeff(), 1);
  ASSERT_TRUE(first != nullptr && second != nullptr);
  EXPECT_EQ(first->id(), 1u);
  EXPECT_EQ(second->id(), 2u);
  EXPECT_EQ(rt().models().Info(second)->model_id, 2u);
  ASSERT_TRUE(rt().models().Unload(first).ok());
  Model* third = MustLoad(SmallNeff(), 0);
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->id(), 3u);
  EXPECT_EQ(model::UuidHex({0x00, 0x01, 0x7f, 0x80, 0xff, 0xa5, 0x5a, 0x10, 0x20, 0x30, 0x40, 0x50,
                            0x60, 0x70, 0x90, 0xfe}),
            "00017f80ffa55a1020304050607090fe");
}

TEST_F(RuntimeModelsTest, LncComesFromTheEnvironment) {
  setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
  ASSERT_TRUE(Init().ok());
  Status status = rt().models().Load(SmallNeff(2), 0, -1).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(),
              HasSubstr("LNC mismatch: NEFF compiled for LNC=2, runtime uses LNC=1"));
  EXPECT_NE(MustLoad(SmallNeff(1), 7), nullptr);
}

TEST_F(RuntimeModelsTest, CloseUnloadsEveryModel) {
  ASSERT_TRUE(Init().ok());
  Model* a = MustLoad(SmallNeff(), 0);
  Model* b = MustLoad(SmallNeff(), 0);
  Model* c = MustLoad(SmallNeff(), 3);
  ASSERT_TRUE(a && b && c);
  rt().Close();
  EXPECT_EQ(rt().models().Unload(a).code(), StatusCode::kClosed);
  EXPECT_EQ(rt().models().Info(a).status().code(), StatusCode::kClosed);
  ASSERT_TRUE(Init().ok());
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(BytesUsed(3), 0u);
  EXPECT_EQ(rt().models().Unload(b).code(), StatusCode::kInvalidHandle);
  EXPECT_NE(MustLoad(SmallNeff(), 0), nullptr);
}

TEST_F(RuntimeModelsTest, ModelCallsNeedAnInitialisedRuntime) {
  ASSERT_TRUE(Init().ok());
  rt().Close();
  EXPECT_EQ(rt().models().Load(SmallNeff(), 0, -1).status().code(), StatusCode::kClosed);
  std::vector<uint8_t> bytes = {1, 2, 3};
  EXPECT_EQ(rt().models().Load(std::span<const uint8_t>(bytes), 0, -1).status().code(),
            StatusCode::kClosed);
}

TEST_F(RuntimeModelsTest, CheckExecution) {
  ASSERT_TRUE(Init().ok());
  Model* model = MustLoad(SmallNeff());
  neff::Neff foreign_neff = SmallNeff();
  foreign_neff.subgraphs[0].engines = {Engine(isa::Engine::kPe, {9, 9, 9, 9})};
  Model* foreign = MustLoad(std::move(foreign_neff));
  StatusOr<TensorSet*> in = rt().tensors().AllocateSet();
  StatusOr<TensorSet*> out = rt().tensors().AllocateSet();
  ASSERT_TRUE(model && foreign && in.ok() && out.ok());

  EXPECT_TRUE(rt().executions().Check(model, *in, *out).ok());
  Status status = rt().executions().Check(foreign, *in, *out);
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(status.message(), model::kForeignModelMessage);
  EXPECT_EQ(rt().executions().Check(nullptr, *in, *out).code(), StatusCode::kInvalid);
  EXPECT_EQ(rt().executions().Check(model, nullptr, *out).code(), StatusCode::kInvalid);
  EXPECT_EQ(rt().executions().Check(model, *in, nullptr).code(), StatusCode::kInvalid);
  ASSERT_TRUE(rt().tensors().DestroySet(*out).ok());
  EXPECT_EQ(rt().executions().Check(model, *in, *out).code(), StatusCode::kInvalidHandle);
  ASSERT_TRUE(rt().models().Unload(model).ok());
  EXPECT_EQ(rt().executions().Check(model, *in, *in).code(), StatusCode::kInvalidHandle);
}

TEST_F(RuntimeModelsTest, MalformedValidateHashFailsInit) {
  setenv("NEURON_RT_VALIDATE_HASH", "maybe", 1);
  Status status = Init();
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("NEURON_RT_VALIDATE_HASH"));
}

// --- From bytes: through neff::WriteNeff / ReadNeff ------------------------------------------

// Streams, constants and address tables survive the trip through a NEFF file.
TEST_F(RuntimeModelsTest, NeffBytesKeepStreamsAndConstants) {
  ASSERT_TRUE(Init().ok());
  const simulator::ChipSpec& chip = *rt().config().instance->chip;
  neff::Neff neff = SmallNeff();
  neff.subgraphs[0].engines = {Engine(isa::Engine::kSp, NopStream(isa::Engine::kSp, chip)),
                               Engine(isa::Engine::kPe, NopStream(isa::Engine::kPe, chip))};
  neff.subgraphs[0].variables.push_back(Var("p", VariableType::kPointer, 4, 8));
  neff.subgraphs[0].variables.back().referenced_var_id = 3;
  StatusOr<std::vector<uint8_t>> bytes = neff::WriteNeff(neff);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  StatusOr<Model*> model = rt().models().Load(std::span<const uint8_t>(*bytes), 1, 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_FALSE((*model)->foreign());
  EXPECT_EQ((*model)->programs().stream_count(), 2u);
  ASSERT_NE((*model)->programs().program(0, isa::Engine::kPe), nullptr);
  const model::SubgraphMemory& mem = (*model)->memory(0);
  std::vector<uint8_t> constant(16);
  ASSERT_TRUE(const_cast<DeviceStorage*>(mem.Storage(3))->Read(0, constant.data(), 16).ok());
  EXPECT_EQ(constant, Pattern(16, 1));
  uint64_t pointer = 0;
  ASSERT_TRUE(const_cast<DeviceStorage*>(mem.Storage(4))->Read(0, &pointer, 8).ok());
  EXPECT_EQ(pointer, mem.Storage(3)->device_allocation()->device_address);

  // The same NEFF with one stream replaced by bytes in another encoding: foreign.
  neff.subgraphs[1].engines = {Engine(isa::Engine::kAct, {0xDE, 0xAD, 0xBE, 0xEF})};
  bytes = neff::WriteNeff(neff);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  model = rt().models().Load(std::span<const uint8_t>(*bytes), 1, 1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE((*model)->foreign());
}

TEST_F(RuntimeModelsTest, LoadsFromNeffBytes) {
  ASSERT_TRUE(Init().ok());
  StatusOr<std::vector<uint8_t>> bytes = neff::WriteNeff(SmallNeff());
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  StatusOr<Model*> model = rt().models().Load(std::span<const uint8_t>(*bytes), -1, -1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(*rt().models().Tensors(*model), SmallNeff().tensors);
  EXPECT_EQ((*model)->vnc(), 0);

  EXPECT_EQ(rt().models().Load(std::span<const uint8_t>(), 0, -1).status().code(),
            StatusCode::kInvalid);
  std::vector<uint8_t> garbage(4096, 0xA5);
  EXPECT_EQ(rt().models().Load(std::span<const uint8_t>(garbage), 0, -1).status().code(),
            StatusCode::kInvalid);
  std::vector<uint8_t> truncated(bytes->begin(), bytes->begin() + bytes->size() / 2);
  EXPECT_EQ(rt().models().Load(std::span<const uint8_t>(truncated), 0, -1).status().code(),
            StatusCode::kInvalid);
}

// The payload hash is checked only when NEURON_RT_VALIDATE_HASH is true.
TEST_F(RuntimeModelsTest, ValidateHashChecksThePayloadHash) {
  StatusOr<std::vector<uint8_t>> bytes = neff::WriteNeff(SmallNeff());
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::vector<uint8_t> bad_hash = *bytes;
  bad_hash[172] ^= 0xFF;  // header.hash (tools-driver-facts §5.2)

  ASSERT_TRUE(Init().ok());
  EXPECT_TRUE(rt().models().Load(std::span<const uint8_t>(bad_hash), 0, -1).ok());
  rt().Close();

  setenv("NEURON_RT_VALIDATE_HASH", "true", 1);
  ASSERT_TRUE(Init().ok());
  EXPECT_TRUE(rt().models().Load(std::span<const uint8_t>(*bytes), 0, -1).ok());
  EXPECT_EQ(rt().models().Load(std::span<const uint8_t>(bad_hash), 0, -1).status().code(),
            StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::runtime
