// Tests of runtime/model/dma_table: NEFF DMA descriptors resolved for the chip model (variables,
// queues, completions, ops, transpose fields, order), the errors, and Model::dma_table.
#include "runtime/model/dma_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/spec/chip_spec.h"
#include "tests/runtime/model/model_test_fixture.h"

namespace trnsim::runtime::model::testing {
namespace {

namespace dma = simulator::dma;
using neff::VariableType;
using ::testing::HasSubstr;

neff::QueueSet Queue(std::string name, uint32_t num_queues,
                     std::vector<std::string> instances = {}) {
  neff::QueueSet q;
  q.name = std::move(name);
  q.type = "data";
  q.num_queues = num_queues;
  q.queue_instances = std::move(instances);
  return q;
}

neff::DmaAccess Access(std::string var, uint64_t offset, std::vector<int64_t> steps,
                       std::vector<uint64_t> sizes, isa::Dtype dtype) {
  neff::DmaAccess a;
  a.var = std::move(var);
  a.offset = offset;
  a.steps = std::move(steps);
  a.sizes = std::move(sizes);
  a.dtype = dtype;
  return a;
}

neff::DmaDescriptor Copy(int64_t id, std::string queue, neff::DmaAccess from, neff::DmaAccess to) {
  neff::DmaDescriptor d;
  d.id = id;
  d.queue = std::move(queue);
  d.from = std::move(from);
  d.to = std::move(to);
  return d;
}

// Queue sets qa (2 queues), qb (4 queues; instances qb0..qb2); variables in (tmp-buf, var_id 3,
// 64 bytes), sb (state-buffer, 1 KiB), out (tmp-buf, var_id 4, 32 bytes).
neff::Subgraph BaseSubgraph() {
  neff::Subgraph sg;
  sg.name = "sg00";
  sg.queue_sets = {Queue("qa", 2), Queue("qb", 4, {"qb0", "qb1", "qb2"})};
  sg.variables = {Var("in", VariableType::kTmpBuf, 3, 64),
                  Var("sb", VariableType::kStateBuffer, 9, 1024),
                  Var("out", VariableType::kTmpBuf, 4, 32)};
  return sg;
}

class DmaTableTest : public ::testing::Test {
 protected:
  simulator::ChipSpec chip_ = simulator::Trainium2Spec();
};

TEST_F(DmaTableTest, ResolvesNamesQueuesAndCompletions) {
  neff::Subgraph sg = BaseSubgraph();
  neff::EngineProgram sp = Engine(isa::Engine::kSp, {});
  // Descriptor 5: all of `in` (no steps) into SBUF rows; semaphore and event.
  neff::DmaDescriptor load = Copy(5, "qa", Access("in", 0, {}, {}, isa::Dtype::kFloat32),
                                  Access("sb", 128, {4, 512}, {32, 2}, isa::Dtype::kFloat32));
  load.semaphore = 3;
  load.event = 7;
  // Descriptor 2: a CCE add of three sources on instance qb1 (wins over `queue`).
  neff::DmaDescriptor add;
  add.id = 2;
  add.queue = "qa";
  add.instance_name = "qb1";
  add.op = neff::DmaOp::kAdd;
  add.from_arr = {Access("in", 0, {4}, {32}, isa::Dtype::kFloat32),
                  Access("in", 32, {4}, {32}, isa::Dtype::kFloat32),
                  Access("sb", 0, {4}, {32}, isa::Dtype::kFloat32)};
  add.to = Access("out", 0, {2}, {16}, isa::Dtype::kBfloat16);
  add.semaphore = 1;
  sp.dma = {load, add};
  neff::EngineProgram pe = Engine(isa::Engine::kPe, {});
  neff::DmaDescriptor fma = Copy(0, "qb", Access("out", 0, {}, {}, isa::Dtype::kBfloat16),
                                 Access("out", 0, {}, {}, isa::Dtype::kBfloat16));
  fma.op = neff::DmaOp::kFma;
  fma.scale = 0.25;
  pe.dma = {fma};
  sg.engines = {sp, pe};

  StatusOr<dma::DescriptorTable> table = BuildDescriptorTable(sg, chip_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const auto& sp_list = table->per_engine[int(isa::Engine::kSp)];
  ASSERT_EQ(sp_list.size(), 2u);
  EXPECT_EQ(sp_list[0].id, 2);  // sorted by id
  EXPECT_EQ(sp_list[1].id, 5);

  const dma::Descriptor* d5 = table->Find(isa::Engine::kSp, 5);
  ASSERT_NE(d5, nullptr);
  EXPECT_EQ(d5->op, dma::Op::kCopy);
  EXPECT_EQ(d5->queue, 0);                 // qa is set 0
  EXPECT_EQ(d5->semaphore_increment, 2u);  // qa's num_queues
  EXPECT_EQ(d5->semaphore, 3u);
  EXPECT_EQ(d5->event, 7u);
  ASSERT_EQ(d5->sources.size(), 1u);
  EXPECT_EQ(d5->sources[0].var_id, 3u);
  // No steps: made explicit as the whole variable.
  EXPECT_EQ(d5->sources[0].sizes, (std::vector<uint64_t>{64}));
  EXPECT_EQ(d5->sources[0].steps, (std::vector<int64_t>{4}));
  EXPECT_EQ(d5->dest.var_id, dma::kSbufVarId);
  EXPECT_EQ(d5->dest.offset, 128u);
  EXPECT_EQ(d5->dest.steps, (std::vector<int64_t>{4, 512}));
  EXPECT_EQ(d5->dest.dtype, isa::Dtype::kFloat32);

  const dma::Descriptor* d2 = table->Find(isa::Engine::kSp, 2);
  ASSERT_NE(d2, nullptr);
  EXPECT_EQ(d2->op, dma::Op::kAdd);
  EXPECT_EQ(d2->queue, 2);  // qb is set 1, qb1 its instance 1
  EXPECT_EQ(d2->semaphore_increment, 4u);
  EXPECT_FALSE(d2->event.has_value());
  ASSERT_EQ(d2->sources.size(), 3u);
  EXPECT_EQ(d2->sources[1].offset, 32u);
  EXPECT_EQ(d2->sources[2].var_id, dma::kSbufVarId);
  EXPECT_EQ(d2->dest.var_id, 4u);
  EXPECT_EQ(d2->dest.dtype, isa::Dtype::kBfloat16);

  const dma::Descriptor* d0 = table->Find(isa::Engine::kPe, 0);
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->op, dma::Op::kFma);
  EXPECT_EQ(d0->scale, 0.25);
  EXPECT_EQ(d0->queue, 1);
  EXPECT_EQ(d0->dest.sizes, (std::vector<uint64_t>{32}));
  EXPECT_EQ(table->Find(isa::Engine::kSp, 0), nullptr);  // tables are per engine
}

TEST_F(DmaTableTest, QueueIndexWrapsAtTheChipsQueuesPerEngine) {
  neff::Subgraph sg = BaseSubgraph();
  sg.queue_sets.clear();
  for (int i = 0; i < 18; ++i) sg.queue_sets.push_back(Queue("q" + std::to_string(i), 1));
  neff::EngineProgram sp = Engine(isa::Engine::kSp, {});
  sp.dma = {Copy(0, "q17", Access("in", 0, {}, {}, isa::Dtype::kUint8),
                 Access("in", 0, {}, {}, isa::Dtype::kUint8))};
  sg.engines = {sp};
  StatusOr<dma::DescriptorTable> table = BuildDescriptorTable(sg, chip_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(chip_.dma_queues_per_engine, 16);
  EXPECT_EQ(table->Find(isa::Engine::kSp, 0)->queue, 1);
}

TEST_F(DmaTableTest, TransposeShapeGivesRowsAndCols) {
  neff::Subgraph sg = BaseSubgraph();
  neff::EngineProgram act = Engine(isa::Engine::kAct, {});
  neff::DmaDescriptor t = Copy(1, "qa", Access("in", 0, {2}, {64}, isa::Dtype::kBfloat16),
                               Access("sb", 0, {2}, {64}, isa::Dtype::kBfloat16));
  t.op = neff::DmaOp::kTranspose;
  t.transpose_shape = {4, 8, 1, 1};
  t.transpose_element_size = 2;
  act.dma = {t};
  sg.engines = {act};
  StatusOr<dma::DescriptorTable> table = BuildDescriptorTable(sg, chip_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const dma::Descriptor* d = table->Find(isa::Engine::kAct, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->op, dma::Op::kTranspose);
  EXPECT_EQ(d->transpose_rows, 4u);
  EXPECT_EQ(d->transpose_cols, 8u);
  EXPECT_EQ(d->transpose_element_size, 2u);

  sg.engines[0].dma[0].transpose_shape = {4, 8, 2, 1};
  StatusOr<dma::DescriptorTable> bad = BuildDescriptorTable(sg, chip_);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(
      bad.status().message(),
      HasSubstr("subgraph sg00, Activation.json descriptor 1: transpose_shape [4, 8, 2, 1]"));
}

TEST_F(DmaTableTest, ErrorsNameSubgraphEngineAndDescriptor) {
  auto fails = [&](neff::DmaDescriptor d, const std::string& needle) {
    neff::Subgraph sg = BaseSubgraph();
    neff::EngineProgram sp = Engine(isa::Engine::kSp, {});
    sp.dma = {std::move(d)};
    sg.engines = {sp};
    StatusOr<dma::DescriptorTable> table = BuildDescriptorTable(sg, chip_);
    ASSERT_FALSE(table.ok()) << needle;
    EXPECT_EQ(table.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(table.status().message(), HasSubstr("subgraph sg00, SP.json descriptor 6: "));
    EXPECT_THAT(table.status().message(), HasSubstr(needle));
  };
  const auto ok_from = Access("in", 0, {}, {}, isa::Dtype::kUint8);
  fails(Copy(6, "qa", Access("nope", 0, {}, {}, isa::Dtype::kUint8), ok_from),
        "source variable 'nope' is not defined");
  fails(Copy(6, "qz", ok_from, ok_from), "queue 'qz' is neither a queue set nor a queue instance");
  neff::DmaDescriptor sem = Copy(6, "qa", ok_from, ok_from);
  sem.semaphore = 256;
  fails(sem, "semaphore 256 is not below 256");
  neff::DmaDescriptor evt = Copy(6, "qa", ok_from, ok_from);
  evt.event = 999;
  fails(evt, "event 999 is not below 256");
  // 60 bytes from offset 4 of a 64-byte variable is not a whole number of 8-byte elements.
  fails(Copy(6, "qa", Access("in", 4, {}, {}, isa::Dtype::kUint64), ok_from),
        "are not a whole number of uint64 elements");
  neff::DmaDescriptor none = Copy(6, "qa", ok_from, ok_from);
  none.from.reset();
  fails(none, "no source");

  // The same id twice in one engine.
  neff::Subgraph sg = BaseSubgraph();
  neff::EngineProgram sp = Engine(isa::Engine::kSp, {});
  sp.dma = {Copy(6, "qa", ok_from, ok_from), Copy(6, "qb", ok_from, ok_from)};
  sg.engines = {sp};
  StatusOr<dma::DescriptorTable> dup = BuildDescriptorTable(sg, chip_);
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("SP.json descriptor 6: the id is defined twice"));
}

TEST_F(DmaTableTest, TranslatedTableExecutes) {
  // The table drives dma::Execute: `in` bytes 0..15 -> SBUF partition 1 via the state buffer.
  neff::Subgraph sg = BaseSubgraph();
  neff::EngineProgram sp = Engine(isa::Engine::kSp, {});
  const uint64_t bpp = chip_.sbuf_bytes_per_partition;
  sp.dma = {Copy(0, "qa", Access("in", 0, {1}, {16}, isa::Dtype::kUint8),
                 Access("sb", bpp, {1}, {16}, isa::Dtype::kUint8))};
  sg.engines = {sp};
  // `sb` is 1 KiB, but a state-buffer variable names the whole SBUF (its offsets are SBUF
  // addresses), so partition 1 is reachable.
  sg.variables[1].size = 2 * bpp;
  StatusOr<dma::DescriptorTable> table = BuildDescriptorTable(sg, chip_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  reference::CoreState state(isa::LimitsFor(chip_));
  reference::VectorHbm hbm;
  hbm.vars[3] = std::vector<uint8_t>(64);
  for (int i = 0; i < 64; ++i) hbm.vars[3][i] = uint8_t(100 + i);
  ASSERT_TRUE(dma::Execute(*table->Find(isa::Engine::kSp, 0), state, hbm).ok());
  EXPECT_EQ(*state.SbufAt(1, 0), 100);
  EXPECT_EQ(*state.SbufAt(1, 15), 115);
  EXPECT_EQ(*state.SbufAt(1, 16), 0);
}

class DmaTableModelTest : public ModelTestBase {};

TEST_F(DmaTableModelTest, ModelKeepsOneTablePerSubgraph) {
  neff::Neff neff = EmptyNeff();
  neff::Subgraph& sg = neff.subgraphs[0];
  sg.queue_sets = {Queue("qa", 2)};
  sg.variables = {Var("a", VariableType::kTmpBuf, 1, 64), Var("b", VariableType::kTmpBuf, 2, 64)};
  neff::EngineProgram sp = Engine(isa::Engine::kSp, NopStream(isa::Engine::kSp, chip()));
  sp.dma = {Copy(4, "qa", Access("a", 0, {}, {}, isa::Dtype::kFloat32),
                 Access("b", 0, {}, {}, isa::Dtype::kFloat32))};
  sg.engines = {sp};
  Model* model = MustLoad(neff);
  ASSERT_NE(model, nullptr);
  const dma::Descriptor* d = model->dma_table(0).Find(isa::Engine::kSp, 4);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->sources[0].var_id, 1u);
  EXPECT_EQ(d->dest.var_id, 2u);
  EXPECT_EQ(d->semaphore_increment, 2u);

  // A descriptor that cannot be translated fails the load, naming it.
  neff.subgraphs[0].engines[0].dma[0].transpose_shape = {2, 2, 2, 2};
  neff.subgraphs[0].engines[0].dma[0].op = neff::DmaOp::kTranspose;
  Status st = LoadStatus(neff);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_THAT(st.message(), HasSubstr("subgraph sg00, SP.json descriptor 4"));
}

TEST_F(DmaTableModelTest, ForeignModelsAreNotTranslated) {
  neff::Neff neff = EmptyNeff();
  neff::Subgraph& sg = neff.subgraphs[0];
  sg.queue_sets = {Queue("qa", 1)};
  sg.variables = {Var("a", VariableType::kTmpBuf, 1, 64)};
  neff::EngineProgram sp = Engine(isa::Engine::kSp, {0x7F, 'E', 'L', 'F', 1, 2, 3, 4});
  neff::DmaDescriptor t = Copy(0, "qa", Access("a", 0, {}, {}, isa::Dtype::kUint8),
                               Access("a", 0, {}, {}, isa::Dtype::kUint8));
  t.op = neff::DmaOp::kTranspose;
  t.transpose_shape = {2, 2, 2, 2};  // not translatable, but a foreign model never runs it
  sp.dma = {t};
  sg.engines = {sp};
  Model* model = MustLoad(std::move(neff));
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->foreign());
  EXPECT_EQ(model->dma_table(0).Find(isa::Engine::kSp, 0), nullptr);
}

}  // namespace
}  // namespace trnsim::runtime::model::testing
