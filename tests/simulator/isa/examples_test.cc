// The worked examples of docs/isa.md §11, verbatim: each stream parses, validates on Trainium2,
// encodes, decodes back to the same program and disassembles to the same text.
#include <gtest/gtest.h>

#include "simulator/isa/encoding.h"

namespace trnsim::isa {
namespace {

// §11.1 vector add: c = a + b, [128, 512] fp32; var0 = a, var1 = b, var2 = c.
constexpr const char* kVectorAddSp = R"(.engine sp
dma_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 src=hbm[var0 + 0, [128 x 512, 512 x 1]] fp32 queue=0 then S[0] += 1 @complete
dma_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 src=hbm[var1 + 0, [128 x 512, 512 x 1]] fp32 queue=1 then S[0] += 1 @complete
wait S[1] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, 4096 + [512 x 1]] fp32 queue=0 then S[2] += 1 @complete
wait S[2] >= 1 notify_end code=0
)";
constexpr const char* kVectorAddDve = R"(.engine dve
wait S[0] >= 2 tensor_tensor dst=sbuf[p0:128, 4096 + [512 x 1]] fp32 in0=sbuf[p0:128, 0 + [512 x 1]] fp32 in1=sbuf[p0:128, 2048 + [512 x 1]] fp32 op0=add then S[1] += 1 @complete
notify_end code=0
)";

// §11.2 matmul: C[128, 512] fp32 = A[128(K), 128(M)]^T . B[128(K), 512(N)], A and B bf16;
// var0 = A, var1 = B, var2 = C.
constexpr const char* kMatmulSp = R"(.engine sp
dma_copy dst=sbuf[p0:128, 0 + [128 x 1]] bf16 src=hbm[var0 + 0, [128 x 128, 128 x 1]] bf16 queue=0 then S[0] += 1 @complete
dma_copy dst=sbuf[p0:128, 256 + [512 x 1]] bf16 src=hbm[var1 + 0, [128 x 512, 512 x 1]] bf16 queue=1 then S[0] += 1 @complete
wait S[2] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, 2048 + [512 x 1]] fp32 queue=0 then S[3] += 1 @complete
wait S[3] >= 1 notify_end code=0
)";
constexpr const char* kMatmulPe = R"(.engine pe
wait S[0] >= 2 load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16
multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 256 + [512 x 1]] bf16 first last then S[1] += 1 @complete
notify_end code=0
)";
constexpr const char* kMatmulAct = R"(.engine act
wait S[1] >= 1 tensor_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 in=psum[p0:128, bank0 + [512 x 1]] fp32 then S[2] += 1 @complete
notify_end code=0
)";

// §11.3 a register loop: d = relu(x) over four [128, 512] bf16 tiles of var0 into var1, with a
// double-buffered load (S[0] counts loaded tiles, consumed with -=) and dynamic offsets.
constexpr const char* kLoopSp = R"(.engine sp
reg_set r0 = 0
wait S[1] >= 1 dma_copy dst=sbuf[p0:128, 0 + r0*1024 + [512 x 1]] bf16 src=hbm[var0 + 0 + r0*1024, [128 x 2048, 512 x 1]] bf16 queue=0 then S[1] -= 1 @read then S[0] += 1 @complete
reg_add r0 += 1
branch r0 < 4 -> 1
wait S[2] >= 4 dma_copy dst=hbm[var1 + 0, [128 x 2048, 2048 x 1]] bf16 src=sbuf[p0:128, 8192 + [2048 x 1]] bf16 queue=1 then S[3] += 1 @complete
wait S[3] >= 1 notify_end code=0
)";
constexpr const char* kLoopAct = R"(.engine act
sem_update S[1] = 2
reg_set r0 = 0
wait S[0] >= 1 activation dst=sbuf[p0:128, 8192 + r0*1024 + [512 x 1]] bf16 in=sbuf[p0:128, 0 + r0*1024 + [512 x 1]] bf16 bias=0.0 scale=1.0 alpha=0.0 func=relu reduce_cmd=idle then S[0] -= 1 @read then S[1] += 1 @complete then S[2] += 1 @complete
reg_add r0 += 1
branch r0 < 4 -> 2
notify_end code=0
)";

// §10.2 and §10.3: single lines that parse, print back identically and are valid on an engine.
constexpr const char* kLines[] = {
    "wait S[3] >= 16 multiply_moving dst=psum[p0:128, bank2 + [512 x 1]] fp32 moving=sbuf[p0:128, "
    "4096 + [512 x 1]] bf16 first last then S[5] += 1 @complete",
    "activation dst=sbuf[p0:128, 0 + [512 x 1]] bf16 in=psum[p0:128, bank0 + [512 x 1]] fp32 "
    "bias=sbuf[p0:128, 8192 + [1 x 1]] fp32 scale=0.125 alpha=0.0 func=exp "
    "reduce_cmd=reset_reduce",
    "tensor_scalar dst=sbuf[p0:128, 0 + [512 x 1]] int32 in=sbuf[p0:128, 2048 + [512 x 1]] int32 "
    "operand0=255 operand1=4 op0=bitwise_and op1=left_shift",
    "tensor_reduce dst=sbuf[p0:128, 0 + [4 x 1]] fp32 in=sbuf[p0:128, 4096 + [4 x 1024, 8 x 128, "
    "128 x 1]] bf16 op0=maximum axes=2 negate",
    "dma_copy dst=sbuf[p0:128, 0 + [1024 x 1]] fp32 src=hbm[var3 + 0, [128 x 1024, 1024 x 1]] fp32 "
    "queue=1 then S[0] += 1 @complete",
    "branch r1 < 16 -> 2",
    "tensor_copy dst=sbuf[p64:96, 0 + [4 x 256, 64 x 2]] fp32 in=sbuf[p0:32, 0 + [256 x 1]] fp32",
    "iota dst=sbuf[p0:128, 0 + r0*1024 + [512 x 1]] bf16 expr=iota[0, [128 x 1, 512 x 0]] int32",
};

TEST(ExampleLinesTest, ParsePrintAndValidate) {
  IsaLimits limits = LimitsFor(simulator::Trainium2Spec());
  for (const char* line : kLines) {
    StatusOr<Instruction> inst = ParseInstruction(line);
    ASSERT_TRUE(inst.ok()) << line << ": " << inst.status().ToString();
    EXPECT_EQ(FormatInstruction(*inst), line);
    bool valid = false;
    for (int e = 0; e < kEngineCount; ++e) {
      valid = valid || ValidateForEngine(static_cast<Engine>(e), *inst, limits).ok();
    }
    EXPECT_TRUE(valid) << line << ": " << Validate(*inst, limits).ToString();
  }
}

class ExamplesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ExamplesTest, AssemblesValidatesAndRoundTrips) {
  IsaLimits limits = LimitsFor(simulator::Trainium2Spec());
  StatusOr<Program> p = ParseProgram(GetParam());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  StatusOr<std::vector<uint8_t>> bytes = EncodeStream(p->engine, p->instructions, limits);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  StatusOr<Program> back = DecodeStream(*bytes, limits);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, *p);
  EXPECT_EQ(FormatProgram(*back), GetParam());
}

INSTANTIATE_TEST_SUITE_P(DocsIsaMd, ExamplesTest,
                         ::testing::Values(kVectorAddSp, kVectorAddDve, kMatmulSp, kMatmulPe,
                                           kMatmulAct, kLoopSp, kLoopAct));

}  // namespace
}  // namespace trnsim::isa
