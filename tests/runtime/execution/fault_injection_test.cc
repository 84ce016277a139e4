// Fault injection through the runtime in-process (TRNSIM_FAULTS, docs/faults.md): for every
// fault kind, the status nrt_execute returns, what the fault leaves behind (the next execution
// on that core, a core sharing its HBM stack, another core) and that nrt_close + nrt_init gives
// a healthy device again; corrupt's changed outputs and NEURON_FAIL_ON_NAN; load_oom leaving
// nothing allocated; malformed specs failing nrt_init; and the same spec giving the same
// statuses and output bytes in two runs.
//
// trn2.3xlarge at LNC=1: vnc k is physical core k; cores 0 and 1 share HBM stack 0, core 2 is
// on stack 1.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tests/runtime/execution/execution_fixture.h"

namespace trnsim::runtime::execution::testing {
namespace {

constexpr char kModel[] = "vector_add_fp32";  // a, b -> out: fp32 [512, 1024]
constexpr size_t kElements = 512 * 1024;
constexpr size_t kBytes = kElements * 4;

std::vector<uint8_t> Filled(float value) {
  std::vector<float> v(kElements, value);
  std::vector<uint8_t> bytes(kBytes);
  std::memcpy(bytes.data(), v.data(), kBytes);
  return bytes;
}

class FaultInjectionTest : public RuntimeFixture {
 protected:
  // A vector_add model on one vnc with its tensors: a = 1, b = 2, so out = 3 everywhere.
  struct Setup {
    model::Model* model = nullptr;
    Tensor* out = nullptr;
    TensorSet* inputs = nullptr;
    TensorSet* outputs = nullptr;
  };

  // Sets TRNSIM_FAULTS and (re)initialises the runtime.
  static void StartWith(const std::string& faults) {
    setenv("TRNSIM_FAULTS", faults.c_str(), 1);
    ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  }

  static Setup Prepare(int vnc) {
    Setup s;
    s.model = LoadSample(kModel, vnc);
    Tensor* a = NewTensor(kBytes, "a", vnc);
    Tensor* b = NewTensor(kBytes, "b", vnc);
    s.out = NewTensor(kBytes, "out", vnc);
    Write(a, Filled(1.0f));
    Write(b, Filled(2.0f));
    s.inputs = NewSet();
    s.outputs = NewSet();
    EXPECT_TRUE(rt().tensors().AddToSet(s.inputs, "a", a).ok());
    EXPECT_TRUE(rt().tensors().AddToSet(s.inputs, "b", b).ok());
    EXPECT_TRUE(rt().tensors().AddToSet(s.outputs, "out", s.out).ok());
    return s;
  }

  static Status Run(const Setup& s) {
    if (s.model == nullptr) return FailureError("no model");
    // Clear the output first, so a run that does not execute leaves no stale result.
    Write(s.out, Filled(0.0f));
    return rt().executions().Execute(s.model, s.inputs, s.outputs, 1);
  }

  // Checks a fault kind that kills a core (or poisons its HBM stack), injected at the second
  // execution on vnc 0: the first succeeds, the second returns `code` (the program did not
  // run), the third `code` again (the after-effect); vnc 1 (same HBM stack) gets
  // `neighbour_code`, vnc 2 succeeds. After nrt_close + nrt_init the device is healthy: the
  // first execution on vnc 0 succeeds (the rule counts afresh and hits the second one again).
  static void ExpectLastingFault(const std::string& kind, StatusCode code,
                                 StatusCode neighbour_code, const std::string& message) {
    ASSERT_NO_FATAL_FAILURE(StartWith(kind + ":nc=0,exec=2"));
    Setup v0 = Prepare(0), v1 = Prepare(1), v2 = Prepare(2);
    Status first = Run(v0);
    EXPECT_TRUE(first.ok()) << first.ToString();
    Status hit = Run(v0);
    EXPECT_EQ(hit.code(), code) << hit.ToString();
    EXPECT_NE(hit.message().find(message), std::string::npos) << hit.message();
    EXPECT_NE(hit.message().find("TRNSIM_FAULTS rule 1"), std::string::npos) << hit.message();
    EXPECT_EQ(Read(v0.out, 4), std::vector<uint8_t>(4, 0));  // the program did not run
    Status again = Run(v0);
    EXPECT_EQ(again.code(), code) << again.ToString();
    EXPECT_NE(again.message().find("nrt_close and nrt_init reset the device"), std::string::npos)
        << again.message();
    Status neighbour = Run(v1);
    EXPECT_EQ(neighbour.code(), neighbour_code) << neighbour.ToString();
    Status other = Run(v2);
    EXPECT_TRUE(other.ok()) << other.ToString();
    EXPECT_EQ(Read(v2.out, kBytes), Filled(3.0f));

    ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));  // nrt_close + nrt_init
    Setup fresh = Prepare(0);
    Status healed = Run(fresh);
    EXPECT_TRUE(healed.ok()) << healed.ToString();
    EXPECT_EQ(Read(fresh.out, kBytes), Filled(3.0f));
  }

  // A fault that hits one execution only: `code`, then success on the same core.
  static void ExpectTransientFault(const std::string& kind, StatusCode code,
                                   const std::string& message) {
    ASSERT_NO_FATAL_FAILURE(StartWith(kind + ":nc=0,exec=1"));
    Setup v0 = Prepare(0);
    Status first = Run(v0);
    EXPECT_EQ(first.code(), code) << first.ToString();
    EXPECT_NE(first.message().find(message), std::string::npos) << first.message();
    Status next = Run(v0);
    EXPECT_TRUE(next.ok()) << next.ToString();
    EXPECT_EQ(Read(v0.out, kBytes), Filled(3.0f));
  }
};

TEST_F(FaultInjectionTest, HbmUePoisonsTheStackUntilReinit) {
  ExpectLastingFault("hbm_ue", StatusCode::kExecHwErrHbmUe, StatusCode::kExecHwErrHbmUe,
                     "Uncorrectable HBM memory error is detected. Execution results may be "
                     "invalid. [ND 0][NC 0] HBM 0");
}

TEST_F(FaultInjectionTest, RepairableHbmUePoisonsTheStackUntilReinit) {
  ExpectLastingFault("repairable_hbm_ue", StatusCode::kExecHwErrRepairableHbmUe,
                     StatusCode::kExecHwErrRepairableHbmUe, "repairable");
}

TEST_F(FaultInjectionTest, NcUeKillsTheCoreOnly) {
  ExpectLastingFault("nc_ue", StatusCode::kExecHwErrNcUe, StatusCode::kOk,
                     "[ND 0][NC 0] Uncorrectable memory error is detected (SBUF/PSUM parity)");
}

TEST_F(FaultInjectionTest, DmaAbortKillsTheCoreOnly) {
  ExpectLastingFault("dma_abort", StatusCode::kExecHwErrDmaAbort, StatusCode::kOk,
                     "[ND 0][NC 0] DMA TX engine 0 is in an abort state");
}

TEST_F(FaultInjectionTest, CollectivesFailsOneExecution) {
  ExpectTransientFault(
      "collectives", StatusCode::kExecHwErrCollectives,
      "missing collectives status on Neuron Device 0 NC 0, model " + std::string(kModel));
}

TEST_F(FaultInjectionTest, TimeoutFailsOneExecution) {
  ExpectTransientFault("timeout", StatusCode::kTimeout,
                       "execution timeout (600000 ms) on Neuron Device 0 NC 0");
}

TEST_F(FaultInjectionTest, NqOverflowFailsOneExecutionAndSuggestsTheFix) {
  ExpectTransientFault("nq_overflow", StatusCode::kExecSwNqOverflow,
                       "NEURON_RT_ENABLE_DGE_NOTIFICATIONS=0");
}

TEST_F(FaultInjectionTest, HangTimesOutAfterTheExecTimeoutUntilReinit) {
  setenv("NEURON_RT_EXEC_TIMEOUT", "1", 1);
  ASSERT_NO_FATAL_FAILURE(StartWith("hang:nc=0,exec=1"));
  Setup v0 = Prepare(0), v1 = Prepare(1);
  // The outcome, not the host time it took: the status names the 1000 ms timeout it waited.
  Status hung = Run(v0);
  EXPECT_EQ(hung.code(), StatusCode::kTimeout) << hung.ToString();
  EXPECT_NE(hung.message().find("execution timeout (1000 ms) on Neuron Device 0 NC 0"),
            std::string::npos)
      << hung.message();
  Status still = Run(v0);  // the core still does not answer
  EXPECT_EQ(still.code(), StatusCode::kTimeout) << still.ToString();
  EXPECT_NE(still.message().find("has not answered since an earlier execution hung"),
            std::string::npos);
  Status neighbour = Run(v1);  // only the core hangs
  EXPECT_TRUE(neighbour.ok()) << neighbour.ToString();

  setenv("TRNSIM_FAULTS", "", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  Setup fresh = Prepare(0);
  EXPECT_TRUE(Run(fresh).ok());
}

TEST_F(FaultInjectionTest, CorruptChangesOutputsSilentlyAndFailOnNanCatchesIt) {
  ASSERT_NO_FATAL_FAILURE(StartWith("corrupt:nc=0,exec=1"));
  Setup v0 = Prepare(0);
  Status corrupted = Run(v0);
  EXPECT_TRUE(corrupted.ok()) << corrupted.ToString();  // silent
  std::vector<uint8_t> out = Read(v0.out, kBytes);
  const std::vector<uint8_t> clean = Filled(3.0f);
  int changed_words = 0;
  for (size_t i = 0; i < kBytes; i += 4) {
    if (std::memcmp(&out[i], &clean[i], 4) == 0) continue;
    ++changed_words;
    uint32_t word;
    std::memcpy(&word, &out[i], 4);
    EXPECT_EQ(word, 0xFFFFFFFFu) << "word " << i / 4;
  }
  EXPECT_GE(changed_words, 1);
  EXPECT_LE(changed_words, 4);
  EXPECT_TRUE(Run(v0).ok());
  EXPECT_EQ(Read(v0.out, kBytes), clean);  // the next execution is clean

  setenv("NEURON_FAIL_ON_NAN", "1", 1);
  ASSERT_NO_FATAL_FAILURE(Start("trn2.3xlarge", 1));
  Setup checked = Prepare(0);
  Status caught = Run(checked);
  EXPECT_EQ(caught.code(), StatusCode::kExecCompletedWithNumErr) << caught.ToString();
  EXPECT_NE(caught.message().find("output 'out'"), std::string::npos) << caught.message();
}

TEST_F(FaultInjectionTest, LoadOomFailsTheLoadAndKeepsNothing) {
  ASSERT_NO_FATAL_FAILURE(StartWith("load_oom:model=vector_add*,nc=1"));
  StatusOr<VncMemoryStats> before = rt().tensors().MemoryStats(1);
  ASSERT_TRUE(before.ok());
  std::vector<uint8_t> neff = ReadNeffFile(kModel);
  StatusOr<model::Model*> refused = rt().models().Load(neff, 1, -1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResource) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("Failed to allocate"), std::string::npos);
  EXPECT_NE(refused.status().message().find("usage: model code) on ND 0:NC 1"), std::string::npos)
      << refused.status().message();
  StatusOr<VncMemoryStats> after = rt().tensors().MemoryStats(1);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->bytes_used, before->bytes_used);
  // Other cores load and run.
  Setup v0 = Prepare(0);
  EXPECT_TRUE(Run(v0).ok());
}

TEST_F(FaultInjectionTest, MalformedSpecsFailInit) {
  setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
  setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
  setenv("TRNSIM_FAULTS", "hbm_ue:exec=1;hbm_ue:exec=first", 1);
  Status init = rt().Init(kNoFramework, "test", "test");
  EXPECT_EQ(init.code(), StatusCode::kInvalid) << init.ToString();
  EXPECT_NE(init.message().find("TRNSIM_FAULTS rule 2 'hbm_ue:exec=first': exec='first'"),
            std::string::npos)
      << init.message();
  setenv("TRNSIM_FAULTS", "nc_ue:nc=8", 1);  // 8 logical cores: 0..7
  init = rt().Init(kNoFramework, "test", "test");
  EXPECT_EQ(init.code(), StatusCode::kInvalid) << init.ToString();
  EXPECT_NE(init.message().find("nc=8 is not one of this process's 8 logical cores"),
            std::string::npos)
      << init.message();
}

// Two runs of one faulted program: the same statuses and the same output bytes, execution by
// execution, with faults of several probabilistic rules on two cores.
TEST_F(FaultInjectionTest, SameSpecSameFaultsEveryRun) {
  const std::string spec =
      "collectives:prob=0.25,seed=11;corrupt:prob=0.4,seed=12;nq_overflow:nc=1,prob=0.3,seed=13";
  auto run_program = [&](std::vector<StatusCode>* codes, std::vector<size_t>* outputs) {
    ASSERT_NO_FATAL_FAILURE(StartWith(spec));
    Setup v0 = Prepare(0), v1 = Prepare(1);
    for (int i = 0; i < 8; ++i) {
      for (const Setup* s : {&v0, &v1}) {
        codes->push_back(Run(*s).code());
        std::vector<uint8_t> out = Read(s->out, kBytes);
        outputs->push_back(std::hash<std::string>()(std::string(out.begin(), out.end())));
      }
    }
  };
  std::vector<StatusCode> codes_a, codes_b;
  std::vector<size_t> outputs_a, outputs_b;
  ASSERT_NO_FATAL_FAILURE(run_program(&codes_a, &outputs_a));
  ASSERT_NO_FATAL_FAILURE(run_program(&codes_b, &outputs_b));
  EXPECT_EQ(codes_a, codes_b);
  EXPECT_EQ(outputs_a, outputs_b);
  // The program is not trivially fault-free or all-faults: both outcomes occur.
  const std::vector<uint8_t> clean = Filled(3.0f);
  const size_t clean_hash = std::hash<std::string>()(std::string(clean.begin(), clean.end()));
  int failed = 0, corrupted = 0, clean_runs = 0;
  for (size_t i = 0; i < codes_a.size(); ++i) {
    if (codes_a[i] != StatusCode::kOk) {
      ++failed;
    } else if (outputs_a[i] != clean_hash) {
      ++corrupted;
    } else {
      ++clean_runs;
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(corrupted, 0);
  EXPECT_GT(clean_runs, 0);
}

}  // namespace
}  // namespace trnsim::runtime::execution::testing
