// Executions::Execute beyond the samples' numbers: tensor-set checks made before anything runs,
// a deadlocking NEFF (NRT_TIMEOUT naming the stuck engine), repeat counts and execution
// records, the NEURON_RT_EXEC_TIMEOUT setting and the TRNSIM_EXEC_REPORT line.
#include <gmock/gmock.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/log.h"
#include "tests/runtime/execution/execution_fixture.h"
#include "tools/kernel_builder/assembler.h"

namespace trnsim::runtime::execution::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kVectorAdd[] = "vector_add_fp32";  // a, b -> out: fp32 [512, 1024]
constexpr uint64_t kVectorAddBytes = 512 * 1024 * 4;

class ExecutionTest : public RuntimeFixture {
 protected:
  void SetUp() override {
    RuntimeFixture::SetUp();
    ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
    model_ = LoadSample(kVectorAdd);
    ASSERT_NE(model_, nullptr);
    in_ = NewSet();
    out_ = NewSet();
    a_ = NewTensor(kVectorAddBytes, "a");
    b_ = NewTensor(kVectorAddBytes, "b");
    c_ = NewTensor(kVectorAddBytes, "out");
    ASSERT_TRUE(a_ && b_ && c_);
    std::vector<float> a(kVectorAddBytes / 4), b(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(i % 1000);
      b[i] = 0.5f * static_cast<float>(i % 7);
    }
    ASSERT_TRUE(rt().tensors().Write(a_, a.data(), 0, kVectorAddBytes).ok());
    ASSERT_TRUE(rt().tensors().Write(b_, b.data(), 0, kVectorAddBytes).ok());
  }

  void BindAll() {
    ASSERT_TRUE(rt().tensors().AddToSet(in_, "a", a_).ok());
    ASSERT_TRUE(rt().tensors().AddToSet(in_, "b", b_).ok());
    ASSERT_TRUE(rt().tensors().AddToSet(out_, "out", c_).ok());
  }

  // out[i] must be a[i] + b[i].
  void ExpectSum(const Tensor* out) {
    std::vector<float> got(kVectorAddBytes / 4);
    ASSERT_TRUE(rt().tensors().Read(out, got.data(), 0, kVectorAddBytes).ok());
    for (size_t i = 0; i < got.size(); ++i) {
      float want = static_cast<float>(i % 1000) + 0.5f * static_cast<float>(i % 7);
      ASSERT_EQ(got[i], want) << "element " << i;
    }
  }

  // The output still holds the 0x5A sentinel: nothing ran.
  void ExpectUntouched(const Tensor* out) {
    std::vector<uint8_t> got = Read(out, kVectorAddBytes);
    EXPECT_EQ(std::count(got.begin(), got.end(), uint8_t{0x5A}),
              static_cast<long>(kVectorAddBytes));
    EXPECT_EQ(rt().executions().Last(model_).status().code(), StatusCode::kInvalid);
  }

  model::Model* model_ = nullptr;
  TensorSet* in_ = nullptr;
  TensorSet* out_ = nullptr;
  Tensor* a_ = nullptr;
  Tensor* b_ = nullptr;
  Tensor* c_ = nullptr;
};

TEST_F(ExecutionTest, RunsAndRecordsStats) {
  BindAll();
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 1).ok());
  ExpectSum(c_);
  StatusOr<ExecutionRecord> record = rt().executions().Last(model_);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->execution_count, 1u);
  ASSERT_EQ(record->last.cores.size(), 1u);
  const driver::CoreStats& core = record->last.cores[0];
  EXPECT_EQ(core.duration_ps, record->last.duration_ps);
  uint64_t dma_bytes = 0;
  for (const auto& q : core.queues) dma_bytes += q.bytes;
  // Both inputs in and the output out, at least once each.
  EXPECT_GE(dma_bytes, 3 * kVectorAddBytes);
  EXPECT_GE(core.hbm_read_bytes, 2 * kVectorAddBytes);
  EXPECT_GE(core.hbm_write_bytes, kVectorAddBytes);
  EXPECT_GT(core.engines[static_cast<int>(isa::Engine::kDve)].instructions, 0u);
}

TEST_F(ExecutionTest, NotExecutedYetIsInvalid) {
  StatusOr<ExecutionRecord> record = rt().executions().Last(model_);
  EXPECT_EQ(record.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(record.status().message(), HasSubstr("has not been executed"));
}

TEST_F(ExecutionTest, MissingInputIsInvalidBeforeRunning) {
  ASSERT_TRUE(rt().tensors().Memset(c_, 0, 0x5A, kVectorAddBytes).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "a", a_).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(out_, "out", c_).ok());
  Status s = rt().executions().Execute(model_, in_, out_, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), HasSubstr("input tensor 'b'"));
  EXPECT_THAT(s.message(), HasSubstr(std::to_string(kVectorAddBytes)));
  EXPECT_THAT(s.message(), HasSubstr("vector_add_fp32"));
  ExpectUntouched(c_);
}

TEST_F(ExecutionTest, MissingOutputIsInvalid) {
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "a", a_).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "b", b_).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "out", c_).ok());  // in the wrong set
  Status s = rt().executions().Execute(model_, in_, out_, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), HasSubstr("output tensor 'out'"));
}

TEST_F(ExecutionTest, WrongSizeIsInvalidNamingBothSizes) {
  ASSERT_TRUE(rt().tensors().Memset(c_, 0, 0x5A, kVectorAddBytes).ok());
  Tensor* small = NewTensor(kVectorAddBytes - 4, "b_small");
  BindAll();
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "b", small).ok());  // replaces b
  Status s = rt().executions().Execute(model_, in_, out_, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), HasSubstr("input tensor 'b'"));
  EXPECT_THAT(s.message(), HasSubstr("expected " + std::to_string(kVectorAddBytes)));
  EXPECT_THAT(s.message(), HasSubstr(std::to_string(kVectorAddBytes - 4)));
  ExpectUntouched(c_);
}

TEST_F(ExecutionTest, ExtraNamesAreIgnored) {
  BindAll();
  Tensor* extra = NewTensor(64, "extra");
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "not_an_input", extra).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(out_, "not_an_output", extra).ok());
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 1).ok());
  ExpectSum(c_);
}

TEST_F(ExecutionTest, SlicesAndHostTensorsBindTheirWindow) {
  // `a` is the second half of a bigger device tensor; `out` a host (VIRTUAL) tensor.
  Tensor* big = NewTensor(2 * kVectorAddBytes, "big");
  ASSERT_TRUE(rt().tensors().Copy(a_, 0, big, kVectorAddBytes, kVectorAddBytes).ok());
  ASSERT_TRUE(rt().tensors().Memset(big, 0, 0x7F, kVectorAddBytes).ok());  // NaNs if misread
  StatusOr<Tensor*> slice =
      rt().tensors().AllocateSlice(big, kVectorAddBytes, kVectorAddBytes, "a_view");
  ASSERT_TRUE(slice.ok());
  Tensor* host_out = NewTensor(kVectorAddBytes, "out_host", 0, Placement::kVirtual);
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "a", *slice).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "b", b_).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(out_, "out", host_out).ok());
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 1).ok());
  ExpectSum(host_out);
}

TEST_F(ExecutionTest, HostInputsAndOutputsAreStagedInDeviceMemoryAndFreedAfter) {
  // Every tensor in host memory: the runtime copies them through temporary device memory.
  Tensor* a = NewTensor(kVectorAddBytes, "a_host", 0, Placement::kHost);
  Tensor* b = NewTensor(kVectorAddBytes, "b_host", 0, Placement::kHost);
  Tensor* out = NewTensor(kVectorAddBytes, "out_host", 0, Placement::kHost);
  ASSERT_TRUE(a && b && out);
  Write(a, Read(a_, kVectorAddBytes));
  Write(b, Read(b_, kVectorAddBytes));
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "a", a).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "b", b).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(out_, "out", out).ok());
  StatusOr<driver::HbmUsage> before = rt().device()->GetHbmUsage(0, 0);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 2).ok());
  ExpectSum(out);
  StatusOr<driver::HbmUsage> after = rt().device()->GetHbmUsage(0, 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->used_bytes, before->used_bytes);  // the staging blocks are gone
}

TEST_F(ExecutionTest, TheModelsProgramLivesOnTheDeviceUntilUnload) {
  driver::ProgramHandle program = model_->program_handle(0);
  ASSERT_NE(program, driver::kInvalidProgramHandle);
  ASSERT_TRUE(rt().models().Unload(model_).ok());
  model_ = nullptr;
  EXPECT_EQ(rt().device()->UnloadProgram(program).code(), StatusCode::kInvalidHandle);
}

TEST_F(ExecutionTest, RepeatRunsEveryTime) {
  BindAll();
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 3).ok());
  StatusOr<ExecutionRecord> record = rt().executions().Last(model_);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->execution_count, 3u);
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 1).ok());
  EXPECT_EQ(rt().executions().Last(model_)->execution_count, 4u);
  ExpectSum(c_);
  EXPECT_EQ(rt().executions().Execute(model_, in_, out_, 0).code(), StatusCode::kInvalid);
}

TEST_F(ExecutionTest, UnloadForgetsTheRecord) {
  BindAll();
  ASSERT_TRUE(rt().executions().Execute(model_, in_, out_, 1).ok());
  ASSERT_TRUE(rt().models().Unload(model_).ok());
  EXPECT_EQ(rt().executions().Last(model_).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().executions().Execute(model_, in_, out_, 1).code(), StatusCode::kInvalidHandle);
}

TEST_F(ExecutionTest, ReportLineWhenAsked) {
  ASSERT_TRUE(rt().models().Unload(model_).ok());
  setenv("TRNSIM_EXEC_REPORT", "1", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  model_ = LoadSample(kVectorAdd);
  in_ = NewSet();
  out_ = NewSet();
  a_ = NewTensor(kVectorAddBytes, "a");
  b_ = NewTensor(kVectorAddBytes, "b");
  c_ = NewTensor(kVectorAddBytes, "out");
  BindAll();
  std::vector<std::string> lines;
  SetLogSinkForTesting([&](std::string_view line) { lines.emplace_back(line); });
  Status s = rt().executions().Execute(model_, in_, out_, 2);
  SetLogSinkForTesting(nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(lines.size(), 2u);  // one per execution
  EXPECT_THAT(lines[0], HasSubstr("INFO"));
  EXPECT_THAT(lines[0], HasSubstr("model 'vector_add_fp32' vnc 0"));
  EXPECT_THAT(lines[0], HasSubstr("simulated"));
  EXPECT_THAT(lines[0], HasSubstr("DVE "));
  EXPECT_THAT(lines[0], HasSubstr("HBM read"));
}

TEST_F(ExecutionTest, NegativeTimeoutRefusedAtInit) {
  rt().Close();
  setenv("NEURON_RT_EXEC_TIMEOUT", "-1", 1);
  Status s = rt().Init(kNoFramework, "test", "test");
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), HasSubstr("NEURON_RT_EXEC_TIMEOUT"));
}

// POOL waits on a semaphore no engine or DMA ever updates.
constexpr char kDeadlock[] = R"(.kernel deadlock
.lnc 1
.input  x fp32 [1, 16]
.output y fp32 [1, 16]

.engine pool
wait S[7] >= 1 notify_end code=0
)";

TEST_F(ExecutionTest, DeadlockIsTimeoutNamingTheEngine) {
  StatusOr<neff::Neff> neff = kb::Assemble(kDeadlock);
  ASSERT_TRUE(neff.ok()) << neff.status().ToString();
  StatusOr<model::Model*> model = rt().models().Load(std::move(*neff), 0, -1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor* x = NewTensor(64, "x");
  Tensor* y = NewTensor(64, "y");
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "x", x).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(out_, "y", y).ok());
  Status s = rt().executions().Execute(*model, in_, out_, 1);
  EXPECT_EQ(s.code(), StatusCode::kTimeout) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("model 'deadlock' on logical core 0"));
  EXPECT_THAT(s.message(), HasSubstr("POOL"));
  EXPECT_THAT(s.message(), HasSubstr("S[7]"));
  EXPECT_EQ(rt().executions().Last(*model).status().code(), StatusCode::kInvalid);
}

// A kernel that only ends, with a pointer to its input and a dge-table of input and output:
// execution writes the bound tensors' device addresses into both (0 for a host tensor).
constexpr char kTables[] = R"(.kernel tables
.lnc 1
.input  x fp32 [1, 16]
.output y fp32 [1, 16]

.engine sp
notify_end code=0
)";

uint64_t ReadWord(const DeviceStorage* storage, uint64_t index) {
  uint8_t bytes[8] = {};
  EXPECT_NE(storage, nullptr);
  if (storage == nullptr) return ~0ull;
  EXPECT_TRUE(const_cast<DeviceStorage*>(storage)->Read(8 * index, bytes, 8).ok());
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= uint64_t{bytes[b]} << (8 * b);
  return v;
}

TEST_F(ExecutionTest, AddressTablesGetTheBoundTensors) {
  StatusOr<neff::Neff> neff = kb::Assemble(kTables);
  ASSERT_TRUE(neff.ok()) << neff.status().ToString();
  neff::Subgraph& sg = neff->subgraphs[0];
  int64_t x_id = -1, y_id = -1;
  for (const neff::Variable& v : sg.variables) (v.name == "x" ? x_id : y_id) = v.var_id;
  neff::Variable ptr;
  ptr.name = "x_ptr";
  ptr.type = neff::VariableType::kPointer;
  ptr.var_id = 20;
  ptr.size = 8;
  ptr.referenced_var_id = x_id;
  neff::Variable table;
  table.name = "io_table";
  table.type = neff::VariableType::kDgeTable;
  table.var_id = 21;
  table.size = 16;
  table.list = {x_id, y_id};
  sg.variables.push_back(ptr);
  sg.variables.push_back(table);
  StatusOr<model::Model*> model = rt().models().Load(std::move(*neff), 0, -1);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(ReadWord((*model)->memory(0).Storage(20), 0), 0u);  // unbound at load

  Tensor* x = NewTensor(64, "x");
  Tensor* y_host = NewTensor(64, "y", 0, Placement::kVirtual);
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "x", x).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(out_, "y", y_host).ok());
  ASSERT_TRUE(rt().executions().Execute(*model, in_, out_, 1).ok());
  uint64_t x_address = x->DeviceAllocation()->physical_address;
  EXPECT_NE(x_address, 0u);
  EXPECT_EQ(ReadWord((*model)->memory(0).Storage(20), 0), x_address);
  EXPECT_EQ(ReadWord((*model)->memory(0).Storage(21), 0), x_address);
  EXPECT_EQ(ReadWord((*model)->memory(0).Storage(21), 1), 0u);  // host tensor: no address

  // Rebinding x to another tensor rewrites the words at the next execution.
  Tensor* x2 = NewTensor(64, "x2");
  ASSERT_TRUE(rt().tensors().AddToSet(in_, "x", x2).ok());
  ASSERT_TRUE(rt().executions().Execute(*model, in_, out_, 1).ok());
  uint64_t x2_address = x2->DeviceAllocation()->physical_address;
  EXPECT_NE(x2_address, x_address);
  EXPECT_EQ(ReadWord((*model)->memory(0).Storage(20), 0), x2_address);
  EXPECT_EQ(ReadWord((*model)->memory(0).Storage(21), 0), x2_address);
}

}  // namespace
}  // namespace trnsim::runtime::execution::testing
