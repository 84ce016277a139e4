// Model code in HBM (runtime/model/model_code.h): one kCode allocation per subgraph, sized from
// the NEFF (instruction bytes + 16 bytes per DMA descriptor), holding the engine streams in
// engine order with a zeroed descriptor region; charged to the vnc; freed with the model; and a
// load whose code does not fit fails with nothing left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/runtime/model/model_test_fixture.h"

namespace trnsim::runtime::model::testing {
namespace {

using neff::VariableType;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr uint64_t kGranuleBytes = 64;  // the sim driver rounds every allocation up to this

uint64_t RoundUp(uint64_t bytes) {
  return (bytes + kGranuleBytes - 1) / kGranuleBytes * kGranuleBytes;
}

neff::DmaDescriptor SelfCopy(int64_t id) {  // all of `in` onto itself: valid, and enough here
  neff::DmaAccess all;
  all.var = "in";
  all.dtype = isa::Dtype::kUint8;
  neff::DmaDescriptor d;
  d.id = id;
  d.queue = "q";
  d.from = all;
  d.to = all;
  return d;
}

// One subgraph per core of `lnc`. Subgraph k: a 64-byte tmp-buf `in`, queue set q; engines
// declared out of engine order: SP (nop stream, 2 + k descriptors), PE (nop stream), Act (no
// stream, 1 descriptor), so that code bytes differ per subgraph.
neff::Neff CodeNeff(const simulator::ChipSpec& chip, uint32_t lnc = 1) {
  neff::Neff neff = EmptyNeff(lnc, "code-neff");
  for (uint32_t k = 0; k < lnc; ++k) {
    neff::Subgraph& sg = neff.subgraphs[k];
    neff::QueueSet q;
    q.name = "q";
    q.type = "data";
    q.num_queues = 1;
    sg.queue_sets = {q};
    sg.variables = {Var("in", VariableType::kTmpBuf, 1, 64)};
    neff::EngineProgram sp = Engine(isa::Engine::kSp, NopStream(isa::Engine::kSp, chip));
    for (uint32_t i = 0; i < 2 + k; ++i) sp.dma.push_back(SelfCopy(i));
    neff::EngineProgram act = Engine(isa::Engine::kAct, {});
    act.dma = {SelfCopy(7)};
    sg.engines = {sp, Engine(isa::Engine::kPe, NopStream(isa::Engine::kPe, chip)), act};
  }
  return neff;
}

// What subgraph `sg` of a NEFF should hold in HBM, computed from the NEFF alone: its streams in
// engine order (isa::Engine), then 16 zero bytes per DMA
// descriptor.
std::vector<uint8_t> ExpectedCode(const neff::Subgraph& sg) {
  std::vector<const neff::EngineProgram*> engines;
  for (const neff::EngineProgram& engine : sg.engines) engines.push_back(&engine);
  std::sort(engines.begin(), engines.end(), [](auto* a, auto* b) {
    return static_cast<int>(a->engine) < static_cast<int>(b->engine);
  });
  std::vector<uint8_t> code;
  size_t descriptors = 0;
  for (const neff::EngineProgram* engine : engines) {
    code.insert(code.end(), engine->instructions.begin(), engine->instructions.end());
    descriptors += engine->dma.size();
  }
  code.resize(code.size() + 16 * descriptors, 0);
  return code;
}

class ModelCodeTest : public ModelTestBase {
 protected:
  std::vector<uint8_t> ReadThroughDevice(const DeviceStorage* code, uint64_t size) {
    std::vector<uint8_t> bytes(size, 0xEE);
    Status read = device_->Read(code->device_allocation()->handle, 0, bytes.data(), size);
    EXPECT_TRUE(read.ok()) << read.ToString();
    return bytes;
  }
  uint64_t VariablesReserved(const Model& model) {
    uint64_t total = 0;
    for (size_t k = 0; k < model.neff().subgraphs.size(); ++k) {
      total += model.memory(static_cast<int>(k)).bytes_reserved();
    }
    return total;
  }
};

TEST_F(ModelCodeTest, EachSubgraphsCodeIsInItsCoresHbm) {
  Open(2);
  neff::Neff neff = CodeNeff(chip(), 2);
  std::vector<std::vector<uint8_t>> expected;
  for (const neff::Subgraph& sg : neff.subgraphs) expected.push_back(ExpectedCode(sg));
  ASSERT_NE(expected[0].size(), expected[1].size());  // sizes are per subgraph
  Model* model = MustLoad(std::move(neff), 1);
  ASSERT_NE(model, nullptr);
  CoreLocation where = core_map_->Locate(1);

  uint64_t code_reserved = 0;
  for (int k = 0; k < 2; ++k) {
    const DeviceStorage* code = model->code(k);
    ASSERT_NE(code, nullptr) << k;
    EXPECT_EQ(code->size_bytes(), expected[k].size()) << k;
    EXPECT_THAT(ReadThroughDevice(code, expected[k].size()), ElementsAreArray(expected[k])) << k;
    StatusOr<driver::AllocationInfo> info = device_->Describe(code->device_allocation()->handle);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->category, driver::MemoryCategory::kCode);
    EXPECT_EQ(info->chip, where.chip);
    EXPECT_EQ(info->hbm, where.hbm);
    EXPECT_EQ(info->owner_core, where.first_physical + k);
    EXPECT_EQ(info->size_bytes, RoundUp(expected[k].size()));
    code_reserved += info->size_bytes;
  }
  EXPECT_EQ(model->code(2), nullptr);

  // Charged to the vnc and counted as the model's own memory.
  EXPECT_EQ(model->bytes_reserved(), VariablesReserved(*model) + code_reserved);
  EXPECT_EQ(BytesUsed(1), model->bytes_reserved());
  EXPECT_EQ(HbmUsed(1), model->bytes_reserved());

  ASSERT_TRUE(registry_->Unload(model).ok());
  EXPECT_EQ(BytesUsed(1), 0u);
  EXPECT_EQ(HbmUsed(1), 0u);
}

TEST_F(ModelCodeTest, NoCodeNoAllocationAndForeignModelsGetNone) {
  Model* empty = MustLoad(EmptyNeff());
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->code(0), nullptr);
  EXPECT_EQ(BytesUsed(0), 0u);

  neff::Neff foreign = EmptyNeff();
  foreign.subgraphs[0].engines = {Engine(isa::Engine::kPe, {0x7F, 'E', 'L', 'F', 1, 2, 3, 4})};
  Model* model = MustLoad(std::move(foreign));
  ASSERT_NE(model, nullptr);
  ASSERT_TRUE(model->foreign());
  EXPECT_EQ(model->code(0), nullptr);
  EXPECT_EQ(BytesUsed(0), 0u);
}

// The HBM stack is filled (outside the runtime) so that the model's variables and subgraph 0's
// code fit but subgraph 1's code misses by one granule: NRT_RESOURCE naming the NEFF, the code
// and the logical core; the first subgraph's code and program are undone. With one more
// granule free the same NEFF loads, so it was the code that did not fit.
TEST_F(ModelCodeTest, CodeThatDoesNotFitFailsTheLoadWithNothingLeft) {
  Open(2);
  neff::Neff neff = CodeNeff(chip(), 2);
  uint64_t need = 0;
  for (const neff::Subgraph& sg : neff.subgraphs) {
    need += RoundUp(sg.variables[0].size) + RoundUp(ExpectedCode(sg).size());
  }
  CoreLocation where = core_map_->Locate(0);
  ASSERT_EQ(HbmUsed(0), 0u);
  StatusOr<driver::HbmUsage> usage = device_->GetHbmUsage(where.chip, where.hbm);
  ASSERT_TRUE(usage.ok());

  auto fill = [&](uint64_t leave_free) {
    driver::AllocationRequest request;
    request.chip = where.chip;
    request.hbm = where.hbm;
    request.size_bytes = usage->capacity_bytes - leave_free;
    StatusOr<driver::AllocationInfo> filler = device_->Allocate(request);
    EXPECT_TRUE(filler.ok()) << filler.status().ToString();
    return filler.ok() ? filler->handle : driver::kInvalidMemoryHandle;
  };

  driver::MemoryHandle filler = fill(need - kGranuleBytes);
  Status status = LoadStatus(CodeNeff(chip(), 2));
  EXPECT_EQ(status.code(), StatusCode::kResource);
  EXPECT_THAT(status.message(), HasSubstr("'code-neff'"));
  EXPECT_THAT(status.message(), HasSubstr("sg01 code ("));
  EXPECT_THAT(status.message(), HasSubstr("on logical core 0"));
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(HbmUsed(0), usage->capacity_bytes - (need - kGranuleBytes));
  EXPECT_EQ(registry_->size(), 0u);
  ASSERT_TRUE(device_->Free(filler).ok());
  EXPECT_EQ(HbmUsed(0), 0u);

  filler = fill(need);
  Model* model = MustLoad(CodeNeff(chip(), 2));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(BytesUsed(0), need);
  ASSERT_TRUE(registry_->Unload(model).ok());
  ASSERT_TRUE(device_->Free(filler).ok());
  EXPECT_EQ(HbmUsed(0), 0u);
}

}  // namespace
}  // namespace trnsim::runtime::model::testing
