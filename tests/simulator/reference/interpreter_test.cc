// Reference interpreter: scheduling, synchronisation, control flow, DMA, bounds, and the
// worked examples of docs/isa.md §11.
#include <cstring>

#include "interp_test_util.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::reference::testing {
namespace {

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> As(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

TEST(interp_Examples, VectorAdd) {
  Harness h;
  std::vector<float> a(128 * 512), b(128 * 512);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i) * 0.5f;
    b[i] = float(i % 7) - 3.0f;
  }
  h.hbm.vars[0] = Bytes(a);
  h.hbm.vars[1] = Bytes(b);
  h.hbm.vars[2] = std::vector<uint8_t>(128 * 512 * 4);
  auto r = h.Run({R"(.engine sp
dma_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 src=hbm[var0 + 0, [128 x 512, 512 x 1]] fp32 queue=0 then S[0] += 1 @complete
dma_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 src=hbm[var1 + 0, [128 x 512, 512 x 1]] fp32 queue=1 then S[0] += 1 @complete
wait S[1] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, 4096 + [512 x 1]] fp32 queue=0 then S[2] += 1 @complete
wait S[2] >= 1 notify_end code=0
)",
                  R"(.engine dve
wait S[0] >= 2 tensor_tensor dst=sbuf[p0:128, 4096 + [512 x 1]] fp32 in0=sbuf[p0:128, 0 + [512 x 1]] fp32 in1=sbuf[p0:128, 2048 + [512 x 1]] fp32 op0=add then S[1] += 1 @complete
notify_end code=0
)"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->steps, 6u);
  auto c = As<float>(h.hbm.vars[2]);
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_EQ(h.state.sem[0], 2u);
  EXPECT_EQ(h.state.sem[2], 1u);
}

TEST(interp_Examples, Matmul) {
  Harness h;
  // A [K=128, M=128], B [K=128, N=512], small integers: every product and sum is exact.
  std::vector<uint16_t> a(128 * 128), b(128 * 512);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    af[i] = float(int(i % 5) - 2);
    a[i] = numerics::Fp32ToBf16(af[i]);
  }
  for (size_t i = 0; i < b.size(); ++i) {
    bf[i] = float(int(i % 3) - 1);
    b[i] = numerics::Fp32ToBf16(bf[i]);
  }
  h.hbm.vars[0] = Bytes(a);
  h.hbm.vars[1] = Bytes(b);
  h.hbm.vars[2] = std::vector<uint8_t>(128 * 512 * 4);
  auto r = h.Run({R"(.engine sp
dma_copy dst=sbuf[p0:128, 0 + [128 x 1]] bf16 src=hbm[var0 + 0, [128 x 128, 128 x 1]] bf16 queue=0 then S[0] += 1 @complete
dma_copy dst=sbuf[p0:128, 256 + [512 x 1]] bf16 src=hbm[var1 + 0, [128 x 512, 512 x 1]] bf16 queue=1 then S[0] += 1 @complete
wait S[2] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, 2048 + [512 x 1]] fp32 queue=0 then S[3] += 1 @complete
wait S[3] >= 1 notify_end code=0
)",
                  R"(.engine pe
wait S[0] >= 2 load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16
multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 256 + [512 x 1]] bf16 first last then S[1] += 1 @complete
notify_end code=0
)",
                  R"(.engine act
wait S[1] >= 1 tensor_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 in=psum[p0:128, bank0 + [512 x 1]] fp32 then S[2] += 1 @complete
notify_end code=0
)"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto c = As<float>(h.hbm.vars[2]);
  for (int m = 0; m < 128; m += 13)
    for (int n = 0; n < 512; n += 31) {
      float want = 0;
      for (int k = 0; k < 128; ++k) want += af[k * 128 + m] * bf[k * 512 + n];
      ASSERT_EQ(c[m * 512 + n], want) << m << "," << n;
    }
}

TEST(interp_Examples, RegisterLoopWithCredits) {
  Harness h;
  std::vector<uint16_t> x(128 * 2048);
  for (size_t i = 0; i < x.size(); ++i) x[i] = numerics::Fp32ToBf16(float(int(i % 9) - 4));
  h.hbm.vars[0] = Bytes(x);
  h.hbm.vars[1] = std::vector<uint8_t>(x.size() * 2);
  auto r = h.Run({R"(.engine sp
reg_set r0 = 0
wait S[1] >= 1 dma_copy dst=sbuf[p0:128, 0 + r0*1024 + [512 x 1]] bf16 src=hbm[var0 + 0 + r0*1024, [128 x 2048, 512 x 1]] bf16 queue=0 then S[1] -= 1 @read then S[0] += 1 @complete
reg_add r0 += 1
branch r0 < 4 -> 1
wait S[2] >= 4 dma_copy dst=hbm[var1 + 0, [128 x 2048, 2048 x 1]] bf16 src=sbuf[p0:128, 8192 + [2048 x 1]] bf16 queue=1 then S[3] += 1 @complete
wait S[3] >= 1 notify_end code=0
)",
                  R"(.engine act
sem_update S[1] = 2
reg_set r0 = 0
wait S[0] >= 1 activation dst=sbuf[p0:128, 8192 + r0*1024 + [512 x 1]] bf16 in=sbuf[p0:128, 0 + r0*1024 + [512 x 1]] bf16 bias=0.0 scale=1.0 alpha=0.0 func=relu reduce_cmd=idle then S[0] -= 1 @read then S[1] += 1 @complete then S[2] += 1 @complete
reg_add r0 += 1
branch r0 < 4 -> 2
notify_end code=0
)"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto d = As<uint16_t>(h.hbm.vars[1]);
  for (size_t i = 0; i < d.size(); ++i) {
    float v = numerics::Bf16ToFp32(x[i]);
    ASSERT_EQ(numerics::Bf16ToFp32(d[i]), v > 0 ? v : 0.0f) << i;
  }
  EXPECT_EQ(h.state.sem[2], 4u);
}

TEST(interp_Sync, DeadlockNamesEachStuckEngine) {
  Harness h;
  auto r = h.Run({".engine dve\nwait S[7] >= 1 nop\nnotify_end code=0\n",
                  ".engine pool\nevent_wait E[3]\nnotify_end code=0\n",
                  ".engine sp\nnotify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("dve instruction 0 (nop) waits for S[7] >= 1 (S[7] = 0)"), std::string::npos)
      << m;
  EXPECT_NE(m.find("pool instruction 0 (event_wait) waits for event_wait E[3] == 1"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("sp instruction"), std::string::npos) << m;
}

TEST(interp_Sync, EventsAndSemaphoresOrderEngines) {
  Harness h;
  // pool waits for dve's event, then signals sp by semaphore; sp records the order in SBUF.
  auto r =
      h.Run({".engine dve\nmemset dst=sbuf[p0:1, 0 + [1 x 1]] int32 value=5\n"
             "event_set E[9]\nnotify_end code=0\n",
             ".engine pool\nevent_wait E[9]\ntensor_scalar dst=sbuf[p0:1, 4 + [1 x 1]] int32 "
             "in=sbuf[p0:1, 0 + [1 x 1]] int32 operand0=3.0 operand1=0.0 op0=add op1=bypass\n"
             "sem_update S[4] += 1\nnotify_end code=0\n",
             ".engine sp\nsem_wait S[4] >= 1\nreg_load r3 src=sbuf[p0:1, 4 + [1 x 1]] int32\n"
             "reg_store r3 dst=sbuf[p0:1, 8 + [1 x 1]] int32\nnotify_end code=0\n"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(h.Get<int32_t>(0, 4, 2), (std::vector<int32_t>{8, 8}));
  EXPECT_EQ(h.state.event[9], 1);
}

TEST(interp_Control, RunawayLoopHitsStepBudget) {
  Harness h;
  RunOptions opt;
  opt.max_steps = 1000;
  auto r = h.Run({".engine pool\nreg_add r1 += 1\nbranch r1 != 0 -> 0\nnotify_end code=0\n"}, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  EXPECT_NE(r.status().message().find("step budget of 1000"), std::string::npos)
      << r.status().message();
}

TEST(interp_Control, BranchWithRegisterOperandCountsLoop) {
  Harness h;
  auto r =
      h.Run({".engine act\nreg_set r2 = 5\nreg_add r1 += 1\nbranch r1 < r2 -> 1\n"
             "notify_end code=0\n"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(h.state.regs[1][1], 5);
  EXPECT_EQ(r->executed[1], 1u + 5 * 2 + 1);
}

TEST(interp_Bounds, HbmVariableTooSmall) {
  Harness h;
  h.hbm.vars[0] = std::vector<uint8_t>(100);
  auto r =
      h.Run({".engine sp\ndma_copy dst=sbuf[p0:1, 0 + [32 x 1]] fp32 "
             "src=hbm[var0 + 0, [1 x 32, 32 x 1]] fp32 queue=0\nnotify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("sp instruction 0 (dma_copy)"), std::string::npos);
  EXPECT_NE(r.status().message().find("of 100"), std::string::npos) << r.status().message();
}

TEST(interp_Bounds, UnknownVarId) {
  Harness h;
  auto r =
      h.Run({".engine sp\ndma_copy dst=hbm[var9 + 0, [1 x 4, 4 x 1]] fp32 "
             "src=sbuf[p0:1, 0 + [4 x 1]] fp32 queue=0\nnotify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown HBM var_id 9"), std::string::npos)
      << r.status().message();
}

TEST(interp_Bounds, RegisterOffsetPastSbuf) {
  Harness h;
  auto r =
      h.Run({".engine dve\nreg_set r0 = 1000\n"
             "memset dst=sbuf[p0:1, 0 + r0*1024 + [4 x 1]] fp32 value=1.0\n"
             "notify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outside its memory"), std::string::npos)
      << r.status().message();
  // Negative register values are caught too.
  Harness h2;
  auto r2 =
      h2.Run({".engine dve\nreg_set r0 = -1\n"
              "memset dst=sbuf[p0:1, 0 + r0*4 + [4 x 1]] fp32 value=1.0\n"
              "notify_end code=0\n"});
  ASSERT_FALSE(r2.ok());
}

TEST(interp_Control, DmaTriggerWithoutDescriptorsIsReported) {
  // Every opcode is executed now; dma_trigger needs RunOptions::descriptors (dma_trigger_test.cc).
  Harness h;
  auto r = h.Run({".engine sp\ndma_trigger desc=0 count=1\nnotify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("dma_trigger descriptor 0 is not in SP.json"),
            std::string::npos)
      << r.status().message();
}

TEST(interp_Control, MultiplyMovingBeforeLoadIsAnError) {
  Harness h;
  auto r =
      h.Run({".engine pe\nmultiply_moving dst=psum[p0:4, bank0 + [4 x 1]] fp32 "
             "moving=sbuf[p0:4, 0 + [4 x 1]] bf16\nnotify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("before load_stationary"), std::string::npos);
}

TEST(interp_Control, UpdatesReadThenComplete) {
  Harness h;
  // @read applies before @complete: S[0] = 5 then S[0] += 1 -> 6 regardless of listed order.
  auto r =
      h.Run({".engine sp\nnop then S[0] += 1 @complete then S[0] = 5 @read\n"
             "notify_end code=0\n"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(h.state.sem[0], 6u);
}

TEST(interp_Dma, StridedHbmGatherWithConversion) {
  Harness h;
  // var0 is a row-major [4, 4] fp32 matrix; reading rows x partition_stride 1, free stride 4
  // loads its transpose, converted to bf16.
  std::vector<float> m(16);
  for (int i = 0; i < 16; ++i) m[i] = float(i) + 0.5f;
  h.hbm.vars[0] = Bytes(m);
  h.hbm.vars[1] = std::vector<uint8_t>(16 * 2);
  auto r = h.Run(
      {".engine sp\n"
       "dma_copy dst=sbuf[p0:4, 0 + [4 x 1]] bf16 src=hbm[var0 + 0, [4 x 1, 4 x 4]] fp32 queue=0\n"
       "barrier\n"
       "dma_copy dst=hbm[var1 + 0, [4 x 4, 4 x 1]] bf16 src=sbuf[p0:4, 0 + [4 x 1]] bf16 queue=1\n"
       "notify_end code=0\n"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto out = As<uint16_t>(h.hbm.vars[1]);
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(numerics::Bf16ToFp32(out[p * 4 + i]), m[i * 4 + p]) << p << "," << i;
}

TEST(interp_Bounds, HbmRegisterOffsetAndHugePattern) {
  Harness h;
  h.hbm.vars[0] = std::vector<uint8_t>(64);
  auto r =
      h.Run({".engine sp\nreg_set r5 = 4\n"
             "dma_copy dst=sbuf[p0:1, 0 + [4 x 1]] fp32 src=hbm[var0 + 0 + r5*16, [1 x 4, 4 x 1]] "
             "fp32 queue=0\n"
             "notify_end code=0\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("register value 4"), std::string::npos)
      << r.status().message();
  Harness h2;
  auto r2 =
      h2.Run({".engine dve\nmemset dst=sbuf[p0:128, 0 + [65535 x 0, 65535 x 0]] fp32 "
              "value=1.0\nnotify_end code=0\n"});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("too large"), std::string::npos) << r2.status().message();
}

}  // namespace
}  // namespace trnsim::reference::testing
