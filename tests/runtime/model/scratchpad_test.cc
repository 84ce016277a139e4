// The per-vnc shared scratchpad behind `virtual` variables: shared by every model on the core,
// grown to the largest need (moving, with every model's stored addresses rewritten), freed with
// the last model that uses it, and an OOM while growing leaves nothing behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/model/model_test_fixture.h"

namespace trnsim::runtime::model {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the fixtures
using neff::VariableType;

constexpr uint64_t kGiB = 1ull << 30;

// A NEFF with one virtual variable [offset, offset+size) and a pointer to it (var_id 2).
neff::Neff WithVirtual(uint64_t offset, uint64_t size, uint64_t alignment = 0) {
  neff::Neff neff = EmptyNeff();
  neff::Variable v = Var("spill", VariableType::kVirtual, 1, size);
  v.backing_variable_off = offset;
  v.alignment = alignment;
  neff.subgraphs[0].variables.push_back(v);
  neff::Variable p = Var("p", VariableType::kPointer, 2, 8);
  p.referenced_var_id = 1;
  neff.subgraphs[0].variables.push_back(p);
  return neff;
}

class ScratchpadTest : public ModelTestBase {
 protected:
  uint64_t PointerOf(const Model* model) { return ReadU64(model->memory(0).Storage(2)); }
  const SharedScratchpad& pad(int vnc = 0) { return registry_->scratchpad(vnc); }
};

TEST_F(ScratchpadTest, SharedByEveryModelOnTheCore) {
  Model* a = MustLoad(WithVirtual(0, 4096));
  Model* b = MustLoad(WithVirtual(1024, 1024));  // fits: no growth, no move
  ASSERT_TRUE(a && b);
  EXPECT_EQ(pad().user_count(), 2u);
  EXPECT_EQ(pad().size_bytes(), 4096u);
  EXPECT_EQ(PointerOf(a), pad().device_address());
  EXPECT_EQ(PointerOf(b), pad().device_address() + 1024);
  // Another core has its own.
  Model* c = MustLoad(WithVirtual(0, 64), 4);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(pad(4).user_count(), 1u);
  EXPECT_EQ(PointerOf(c), pad(4).device_address());
  EXPECT_EQ(pad().user_count(), 2u);
}

TEST_F(ScratchpadTest, GrowsAndRewritesEarlierModelsAddresses) {
  Model* a = MustLoad(WithVirtual(512, 512));
  ASSERT_NE(a, nullptr);
  uint64_t first = pad().device_address();
  EXPECT_EQ(PointerOf(a), first + 512);
  Model* b = MustLoad(WithVirtual(8192, 1 << 20));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(pad().size_bytes(), 8192u + (1 << 20));
  uint64_t second = pad().device_address();
  EXPECT_EQ(PointerOf(a), second + 512);  // rewritten after the move
  EXPECT_EQ(PointerOf(b), second + 8192);
  // The old block was freed: only one scratchpad is charged.
  EXPECT_EQ(BytesUsed(0), a->bytes_reserved() + b->bytes_reserved() +
                              pad().storage()->device_allocation()->size_bytes);
  EXPECT_EQ(HbmUsed(0), BytesUsed(0));
}

TEST_F(ScratchpadTest, StricterAlignmentMovesIt) {
  Model* a = MustLoad(WithVirtual(0, 64));
  ASSERT_NE(a, nullptr);
  Model* b = MustLoad(WithVirtual(0, 64, 1 << 20));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(pad().device_address() % (1 << 20), 0u);
  EXPECT_EQ(PointerOf(a), pad().device_address());
}

TEST_F(ScratchpadTest, NeverShrinksWhileInUseAndIsFreedWithTheLastUser) {
  Model* big = MustLoad(WithVirtual(0, 1 << 20));
  Model* small = MustLoad(WithVirtual(0, 64));
  Model* none = MustLoad(EmptyNeff());  // no virtual variables: not a user
  ASSERT_TRUE(big && small && none);
  EXPECT_EQ(pad().user_count(), 2u);
  ASSERT_TRUE(registry_->Unload(big).ok());
  EXPECT_EQ(pad().size_bytes(), 1u << 20);
  EXPECT_EQ(PointerOf(small), pad().device_address());
  ASSERT_TRUE(registry_->Unload(small).ok());
  EXPECT_EQ(pad().user_count(), 0u);
  EXPECT_EQ(pad().device_address(), 0u);
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(HbmUsed(0), 0u);
}

TEST_F(ScratchpadTest, OutOfMemoryWhileGrowingLeavesEverythingAsItWas) {
  Model* a = MustLoad(WithVirtual(0, 4096));
  ASSERT_NE(a, nullptr);
  uint64_t address = pad().device_address(), used = BytesUsed(0), hbm = HbmUsed(0);
  neff::Neff huge = WithVirtual(0, 30 * kGiB);
  huge.subgraphs[0].variables.push_back(Var("t", VariableType::kTmpBuf, 3, 1 << 20));
  Status status = LoadStatus(std::move(huge));
  EXPECT_EQ(status.code(), StatusCode::kResource);
  EXPECT_THAT(status.message(), HasSubstr("sg00/spill"));
  EXPECT_THAT(status.message(), HasSubstr(std::to_string(30 * kGiB) + " bytes"));
  EXPECT_EQ(pad().device_address(), address);
  EXPECT_EQ(pad().size_bytes(), 4096u);
  EXPECT_EQ(pad().user_count(), 1u);
  EXPECT_EQ(BytesUsed(0), used);
  EXPECT_EQ(HbmUsed(0), hbm);
  EXPECT_EQ(PointerOf(a), address);
}

TEST_F(ScratchpadTest, FirstUserOutOfMemoryAllocatesNothing) {
  Status status = LoadStatus(WithVirtual(0, 30 * kGiB));
  EXPECT_EQ(status.code(), StatusCode::kResource);
  EXPECT_EQ(pad().user_count(), 0u);
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(HbmUsed(0), 0u);
}

}  // namespace
}  // namespace trnsim::runtime::model
