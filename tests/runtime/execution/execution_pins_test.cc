// An execution holds no runtime lock for its run (issue 19): it pins the model and the tensors
// it uses, so other threads' frees, loads and unloads complete while it waits in a collective.
//
// Rank 0 of a 2-rank all-reduce (allreduce_fp32, logical cores 0 and 1 of a trn2.3xlarge at
// LNC 1) executes on its own thread; rank 1 is not started, so rank 0 cannot finish. Once rank
// 0's nrt_execute has begun (its system-trace start event, which the runtime records after
// binding), the main thread frees an unrelated tensor, loads a model, unloads another model and
// unloads rank 0's own model. Each must return — by order, not by clock: rank 0 has not
// completed when they have — and only then does rank 1 start, after which both ranks complete
// with the sum. With a lock held across the execution, the first of them would wait for rank 0,
// which waits for rank 1, and rank 0 would time out first.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/runtime/execution/execution_fixture.h"

namespace trnsim::runtime::execution::testing {
namespace {

class ExecutionPinsTest : public RuntimeFixture {};

std::vector<uint8_t> Floats(size_t bytes, float value) {
  std::vector<uint8_t> out(bytes);
  for (size_t i = 0; i < bytes; i += sizeof(float)) std::memcpy(&out[i], &value, sizeof(float));
  return out;
}

TEST_F(ExecutionPinsTest, FreeLoadAndUnloadCompleteWhileAnExecutionWaitsInACollective) {
  setenv("NEURON_RT_ROOT_COMM_ID", "127.0.0.1:29503", 1);
  // A bound on the failure mode (a lock held across the run): rank 0 then times out.
  setenv("NEURON_RT_EXEC_TIMEOUT", "300", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  const std::vector<uint8_t> neff = ReadNeffFile("allreduce_fp32");
  constexpr uint64_t kBytes = 128 * 1024 * 4;  // the NEFF's one fp32 input and output

  model::Model* ranks[2] = {};
  TensorSet* ins[2] = {};
  TensorSet* outs[2] = {};
  Tensor* ys[2] = {};
  for (int r = 0; r < 2; ++r) {
    StatusOr<model::Model*> m = rt().models().LoadCollective(neff, r, -1, uint32_t(r), 2);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    ranks[r] = *m;
    Tensor* x = NewTensor(kBytes, "in", r);
    Write(x, Floats(kBytes, float(r + 1)));  // rank 0: 1.0, rank 1: 2.0
    ys[r] = NewTensor(kBytes, "out", r);
    ins[r] = NewSet();
    outs[r] = NewSet();
    ASSERT_TRUE(rt().tensors().AddToSet(ins[r], "in", x).ok());
    ASSERT_TRUE(rt().tensors().AddToSet(outs[r], "out", ys[r]).ok());
  }
  Tensor* unrelated = NewTensor(4096, "unrelated", 2);
  model::Model* other = LoadSample("vector_add_fp32", 3);
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(rt().profiling().StartSysTrace(profiling::SysTraceConfig()).ok());

  std::atomic<bool> rank0_done{false};
  Status rank0 = Status::Ok();
  std::thread rank0_thread([&] {
    rank0 = rt().executions().Execute(ranks[0], ins[0], outs[0], 1);
    rank0_done = true;
  });
  // Wait until rank 0's execution has begun: its nrt_execute start event is recorded once the
  // execution is bound, and rank 0 cannot finish before rank 1 runs.
  bool started = false;
  while (!started && !rank0_done) {
    StatusOr<std::string> events = rt().profiling().FetchSysTrace({});
    ASSERT_TRUE(events.ok()) << events.status().ToString();
    started = events->find("\"nrt_execute\"") != std::string::npos;
    if (!started) std::this_thread::yield();
  }
  ASSERT_FALSE(rank0_done) << "rank 0 finished alone: " << rank0.ToString();

  EXPECT_TRUE(rt().tensors().Free(unrelated).ok());
  StatusOr<model::Model*> loaded = [&] {
    std::vector<uint8_t> bytes = ReadNeffFile("vector_add_fp32");
    return rt().models().Load(bytes, 2, -1);
  }();
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(rt().models().Unload(other).ok());
  // Unloading the executing model itself returns at once too; the run keeps it until it ends.
  EXPECT_TRUE(rt().models().Unload(ranks[0]).ok());
  EXPECT_FALSE(rank0_done) << "a free, load or unload waited for the execution";

  // The handles are dead at once; the new model is usable.
  uint8_t byte = 0;
  EXPECT_EQ(rt().tensors().Read(unrelated, &byte, 0, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().models().Info(other).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().models().Info(ranks[0]).status().code(), StatusCode::kInvalidHandle);
  if (loaded.ok()) {
    EXPECT_TRUE(rt().models().Info(*loaded).ok());
  }

  Status rank1 = rt().executions().Execute(ranks[1], ins[1], outs[1], 1);
  rank0_thread.join();
  EXPECT_TRUE(rank0.ok()) << rank0.ToString();
  EXPECT_TRUE(rank1.ok()) << rank1.ToString();
  const std::vector<uint8_t> sum = Floats(kBytes, 3.0f);
  EXPECT_EQ(Read(ys[0], kBytes), sum);
  EXPECT_EQ(Read(ys[1], kBytes), sum);
  (void)rt().profiling().StopSysTrace();
}

}  // namespace
}  // namespace trnsim::runtime::execution::testing
