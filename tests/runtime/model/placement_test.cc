// Model placement: where each variable type goes, alignment, constants, pointer and dge-table
// contents, SBUF limits, the memory accounting, and OOM with nothing left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/model/model_test_fixture.h"

namespace trnsim::runtime::model {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the fixtures
using neff::VariableType;

constexpr uint64_t kGiB = 1ull << 30;

class PlacementTest : public ModelTestBase {};

// One variable of every type, with a .npy and a raw constant.
neff::Neff EveryType() {
  neff::Neff neff = EmptyNeff();
  neff::Subgraph& sg = neff.subgraphs[0];
  sg.variables.push_back(Var("in", VariableType::kInput, 1, 256));
  sg.variables.push_back(Var("out", VariableType::kOutput, 2, 128));
  sg.variables.push_back(Var("sb", VariableType::kStateBuffer, 3, 4096));
  neff::Variable npy = Var("w_npy", VariableType::kFile, 4, 100);
  npy.file_name = "w.npy";
  sg.files["w.npy"] = Npy(Pattern(100, 5));
  sg.variables.push_back(npy);
  neff::Variable raw = Var("w_raw", VariableType::kFile, 5, 64);
  raw.file_name = "bias.bin";
  sg.files["bias.bin"] = Pattern(64, 77);
  sg.variables.push_back(raw);
  sg.variables.push_back(Var("tmp", VariableType::kTmpBuf, 6, 1000));
  neff::Variable virt = Var("spill", VariableType::kVirtual, 7, 512);
  virt.backing_variable_off = 1024;
  sg.variables.push_back(virt);
  neff::Variable ptr = Var("ptr_tmp", VariableType::kPointer, 8, 8);
  ptr.referenced_var_id = 6;
  sg.variables.push_back(ptr);
  neff::Variable table = Var("dge", VariableType::kDgeTable, 9, 40);
  table.list = {4, 5, 6, 7, 1};
  sg.variables.push_back(table);
  return neff;
}

TEST_F(PlacementTest, EveryVariableTypeGoesWhereItBelongs) {
  Model* model = MustLoad(EveryType());
  ASSERT_NE(model, nullptr);
  const SubgraphMemory& mem = model->memory(0);
  // Own HBM allocations: file, tmp-buf, pointer, dge-table.
  for (int64_t id : {4, 5, 6, 8, 9}) EXPECT_NE(mem.Storage(id), nullptr) << id;
  // No allocation: input, output, state-buffer, virtual.
  for (int64_t id : {1, 2, 3, 7}) EXPECT_EQ(mem.Storage(id), nullptr) << id;

  // Categories, chip/HBM of vnc 0, owner core.
  auto category = [&](int64_t id) {
    StatusOr<driver::AllocationInfo> info =
        device_->Describe(mem.Storage(id)->device_allocation()->handle);
    EXPECT_TRUE(info.ok());
    EXPECT_EQ(info->chip, 0);
    EXPECT_EQ(info->hbm, 0);
    EXPECT_EQ(info->owner_core, 0);
    return info->category;
  };
  EXPECT_EQ(category(4), driver::MemoryCategory::kConstant);
  EXPECT_EQ(category(5), driver::MemoryCategory::kConstant);
  EXPECT_EQ(category(6), driver::MemoryCategory::kScratchpad);
  EXPECT_EQ(category(8), driver::MemoryCategory::kMisc);
  EXPECT_EQ(category(9), driver::MemoryCategory::kMisc);

  // The virtual variable lives in the vnc's shared scratchpad.
  const SharedScratchpad& pad = registry_->scratchpad(0);
  EXPECT_EQ(pad.size_bytes(), 1024u + 512u);
  EXPECT_EQ(pad.user_count(), 1u);
  EXPECT_EQ(mem.DeviceAddress(7, pad.device_address()), pad.device_address() + 1024);
  EXPECT_EQ(mem.DeviceAddress(1, pad.device_address()), 0u);            // bound at execution
  EXPECT_EQ(mem.DeviceAddress(3, pad.device_address()), std::nullopt);  // SBUF

  // Accounting: the model's own memory plus the scratchpad, all charged to vnc 0.
  uint64_t expected = model->bytes_reserved() + pad.storage()->device_allocation()->size_bytes;
  EXPECT_EQ(BytesUsed(0), expected);
  EXPECT_EQ(HbmUsed(0), expected);
}

TEST_F(PlacementTest, ConstantsAreWritten) {
  Model* model = MustLoad(EveryType());
  ASSERT_NE(model, nullptr);
  const SubgraphMemory& mem = model->memory(0);
  EXPECT_THAT(Read(mem.Storage(4), 100), ElementsAreArray(Pattern(100, 5)));
  EXPECT_THAT(Read(mem.Storage(5), 64), ElementsAreArray(Pattern(64, 77)));
  // The host copies of constants are dropped once they are in HBM.
  EXPECT_TRUE(model->neff().subgraphs[0].files.empty());
}

TEST_F(PlacementTest, PointerAndDgeTableHoldAddresses) {
  Model* model = MustLoad(EveryType());
  ASSERT_NE(model, nullptr);
  const SubgraphMemory& mem = model->memory(0);
  uint64_t pad = registry_->scratchpad(0).device_address();
  ASSERT_NE(pad, 0u);
  EXPECT_EQ(ReadU64(mem.Storage(8)), Address(mem.Storage(6)));
  EXPECT_EQ(ReadU64(mem.Storage(9), 0), Address(mem.Storage(4)));
  EXPECT_EQ(ReadU64(mem.Storage(9), 1), Address(mem.Storage(5)));
  EXPECT_EQ(ReadU64(mem.Storage(9), 2), Address(mem.Storage(6)));
  EXPECT_EQ(ReadU64(mem.Storage(9), 3), pad + 1024);
  EXPECT_EQ(ReadU64(mem.Storage(9), 4), 0u);  // an input: bound at execution
}

TEST_F(PlacementTest, AlignmentIsHonoured) {
  neff::Neff neff = EmptyNeff();
  neff::Subgraph& sg = neff.subgraphs[0];
  uint64_t id = 1;
  for (uint64_t alignment : {0ull, 1ull, 64ull, 256ull, 4096ull, 1ull << 20}) {
    neff::Variable var = Var("tmp" + std::to_string(id), VariableType::kTmpBuf, id, 100);
    var.alignment = alignment;
    sg.variables.push_back(var);
    ++id;
  }
  neff::Variable virt = Var("v", VariableType::kVirtual, 100, 64);
  virt.alignment = 1 << 16;
  virt.backing_variable_off = 1 << 16;
  sg.variables.push_back(virt);
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  for (const neff::Variable& var : model->neff().subgraphs[0].variables) {
    uint64_t align = var.alignment < 64 ? 64 : var.alignment;
    uint64_t address =
        *model->memory(0).DeviceAddress(var.var_id, registry_->scratchpad(0).device_address());
    EXPECT_EQ(address % align, 0u) << var.name << " at " << address;
  }
}

TEST_F(PlacementTest, BadAlignmentsAreInvalid) {
  neff::Neff neff = EmptyNeff();
  neff::Variable var = Var("t", VariableType::kTmpBuf, 1, 64);
  var.alignment = 48;
  neff.subgraphs[0].variables.push_back(var);
  Status status = LoadStatus(std::move(neff));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("'t'"));

  neff = EmptyNeff();
  neff::Variable virt = Var("v", VariableType::kVirtual, 1, 64);
  virt.alignment = 256;
  virt.backing_variable_off = 100;
  neff.subgraphs[0].variables.push_back(virt);
  status = LoadStatus(std::move(neff));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("cannot be 256-byte aligned"));
  EXPECT_EQ(BytesUsed(0), 0u);
}

TEST_F(PlacementTest, StateBufferMustFitInSbuf) {
  uint64_t sbuf = 128ull * 224 * 1024;  // trn2: 128 partitions x 224 KiB
  neff::Neff fits = EmptyNeff();
  fits.subgraphs[0].variables.push_back(Var("sb", VariableType::kStateBuffer, 1, sbuf));
  EXPECT_NE(MustLoad(std::move(fits)), nullptr);

  neff::Neff big = EmptyNeff();
  big.subgraphs[0].variables.push_back(Var("sb", VariableType::kStateBuffer, 1, sbuf + 1));
  Status status = LoadStatus(std::move(big));
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), HasSubstr("SBUF"));

  Open(1, "trn3.48xlarge");  // trn3: 128 x 256 KiB
  neff::Neff trn3 = EmptyNeff();
  trn3.subgraphs[0].variables.push_back(
      Var("sb", VariableType::kStateBuffer, 1, 128ull * 256 * 1024));
  EXPECT_NE(MustLoad(std::move(trn3)), nullptr);
}

TEST_F(PlacementTest, BrokenReferencesAndConstantsAreInvalid) {
  struct Case {
    const char* what;
    neff::Variable var;
    const char* message;
  };
  neff::Variable dangling = Var("p", VariableType::kPointer, 10, 8);
  dangling.referenced_var_id = 99;
  neff::Variable to_sbuf = Var("p", VariableType::kPointer, 10, 8);
  to_sbuf.referenced_var_id = 1;
  neff::Variable no_target = Var("p", VariableType::kPointer, 10, 8);
  neff::Variable small_ptr = Var("p", VariableType::kPointer, 10, 4);
  small_ptr.referenced_var_id = 2;
  neff::Variable small_table = Var("d", VariableType::kDgeTable, 10, 8);
  small_table.list = {2, 2};
  neff::Variable no_file = Var("f", VariableType::kFile, 10, 8);
  no_file.file_name = "missing.bin";
  neff::Variable big_file = Var("f", VariableType::kFile, 10, 8);  // the file has 16
  big_file.file_name = "c.bin";
  neff::Variable dup = Var("dup", VariableType::kTmpBuf, 2, 8);
  for (const Case& c :
       {Case{"dangling", dangling, "var_id 99"}, Case{"to sbuf", to_sbuf, "no device address"},
        Case{"no target", no_target, "no referenced_var_id"},
        Case{"small pointer", small_ptr, "needs 8"},
        Case{"small table", small_table, "need 8 each"}, Case{"no file", no_file, "missing.bin"},
        Case{"big file", big_file, "16 bytes"}, Case{"duplicate id", dup, "reuses the var_id"}}) {
    neff::Neff neff = EmptyNeff();
    neff.subgraphs[0].variables.push_back(Var("sb", VariableType::kStateBuffer, 1, 64));
    neff.subgraphs[0].variables.push_back(Var("t", VariableType::kTmpBuf, 2, 64));
    neff.subgraphs[0].variables.push_back(c.var);
    neff.subgraphs[0].files["c.bin"] = Pattern(16, 1);
    Status status = LoadStatus(std::move(neff));
    EXPECT_EQ(status.code(), StatusCode::kInvalid) << c.what;
    EXPECT_THAT(status.message(), HasSubstr(c.message)) << c.what;
    EXPECT_THAT(status.message(), HasSubstr("sg00")) << c.what;
  }
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(HbmUsed(0), 0u);
  EXPECT_EQ(registry_->size(), 0u);
}

TEST_F(PlacementTest, ZeroByteVariablesGetNoMemory) {
  neff::Neff neff = EmptyNeff();
  neff.subgraphs[0].variables.push_back(Var("t", VariableType::kTmpBuf, 1, 0));
  neff::Variable ptr = Var("p", VariableType::kPointer, 2, 8);
  ptr.referenced_var_id = 1;
  neff.subgraphs[0].variables.push_back(ptr);
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memory(0).Storage(1), nullptr);
  EXPECT_EQ(ReadU64(model->memory(0).Storage(2)), 0u);
}

// Device OOM midway: NRT_RESOURCE naming the variable and its bytes, and every byte already
// allocated for the model is released.
TEST_F(PlacementTest, OutOfMemoryLeavesNothingBehind) {
  uint64_t before_used = BytesUsed(0), before_hbm = HbmUsed(0);
  neff::Neff neff = EveryType();
  neff.subgraphs[0].variables.push_back(Var("huge", VariableType::kTmpBuf, 50, 30 * kGiB));
  Status status = LoadStatus(std::move(neff));
  EXPECT_EQ(status.code(), StatusCode::kResource);
  EXPECT_THAT(status.message(), HasSubstr("'huge'"));
  EXPECT_THAT(status.message(), HasSubstr(std::to_string(30 * kGiB) + " bytes"));
  EXPECT_EQ(BytesUsed(0), before_used);
  EXPECT_EQ(HbmUsed(0), before_hbm);
  EXPECT_EQ(registry_->size(), 0u);
  EXPECT_EQ(registry_->scratchpad(0).user_count(), 0u);

  // The device is fine afterwards: the same NEFF without the huge variable loads.
  EXPECT_NE(MustLoad(EveryType()), nullptr);
}

// The HBM stack fills up across several loads; the one that does not fit fails cleanly and the
// earlier ones are untouched.
TEST_F(PlacementTest, OutOfMemoryAfterEarlierModels) {
  std::vector<Model*> loaded;
  for (int i = 0; i < 3; ++i) {
    neff::Neff neff = EveryType();
    neff.subgraphs[0].variables.push_back(Var("big", VariableType::kTmpBuf, 50, 7 * kGiB));
    loaded.push_back(MustLoad(std::move(neff)));
  }
  uint64_t used = BytesUsed(0), hbm = HbmUsed(0);
  neff::Neff neff = EveryType();
  neff.subgraphs[0].variables.push_back(Var("big", VariableType::kTmpBuf, 50, 7 * kGiB));
  EXPECT_EQ(LoadStatus(std::move(neff)).code(), StatusCode::kResource);
  EXPECT_EQ(BytesUsed(0), used);
  EXPECT_EQ(HbmUsed(0), hbm);
  EXPECT_EQ(registry_->size(), 3u);
  EXPECT_THAT(Read(loaded[2]->memory(0).Storage(4), 100), ElementsAreArray(Pattern(100, 5)));
}

TEST_F(PlacementTest, UnloadFreesEverything) {
  uint64_t before = HbmUsed(0);
  Model* a = MustLoad(EveryType());
  Model* b = MustLoad(EveryType());
  ASSERT_TRUE(a && b);
  EXPECT_GT(BytesUsed(0), 0u);
  ASSERT_TRUE(registry_->Unload(a).ok());
  EXPECT_EQ(registry_->scratchpad(0).user_count(), 1u);
  ASSERT_TRUE(registry_->Unload(b).ok());
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(HbmUsed(0), before);
  EXPECT_EQ(registry_->Unload(b).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(registry_->Unload(nullptr).code(), StatusCode::kInvalid);
}

TEST_F(PlacementTest, DestroyingTheRegistryUnloadsEveryModel) {
  MustLoad(EveryType(), 0);
  MustLoad(EveryType(), 3);
  EXPECT_GT(HbmUsed(0) + HbmUsed(3), 0u);
  registry_.reset();
  EXPECT_EQ(HbmUsed(0), 0u);
  EXPECT_EQ(HbmUsed(3), 0u);
  EXPECT_EQ(BytesUsed(0) + BytesUsed(3), 0u);
}

}  // namespace
}  // namespace trnsim::runtime::model
