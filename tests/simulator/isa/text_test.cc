// The text form: exact round trips of every opcode, the documented syntax, and parse errors.
#include <gtest/gtest.h>

#include <random>

#include "simulator/isa/encoding.h"
#include "tests/simulator/isa/samples.h"

namespace trnsim::isa {
namespace {

TEST(TextTest, EveryOpcodeRoundTrips) {
  for (const testing::Sample& s : testing::Samples()) {
    std::string text = FormatInstruction(s.inst);
    StatusOr<Instruction> back = ParseInstruction(text);
    ASSERT_TRUE(back.ok()) << text << "\n" << back.status().ToString();
    EXPECT_EQ(*back, s.inst) << text;
    EXPECT_EQ(FormatInstruction(*back), text);
  }
}

TEST(TextTest, ProgramsRoundTrip) {
  for (int e = 0; e < kEngineCount; ++e) {
    Program p{static_cast<Engine>(e), testing::SampleStream(static_cast<Engine>(e))};
    StatusOr<Program> back = ParseProgram(FormatProgram(p));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, p);
  }
}

TEST(TextTest, CanonicalForms) {
  Instruction mm{Opcode::kMultiplyMoving};
  mm.flags = kFlagGroupFirst | kFlagGroupLast;
  mm.ap[0] = PsumAp(0, 128, 2 * 2048, Dtype::kFloat32, {{512, 1}});
  mm.ap[1] = SbufAp(0, 128, 4096, Dtype::kBfloat16, {{512, 1}});
  AddWait(mm, {WaitKind::kSemaphore, CmpOp::kGe, 3, 16});
  AddUpdate(mm, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 5, 1});
  EXPECT_EQ(FormatInstruction(mm),
            "wait S[3] >= 16 multiply_moving dst=psum[p0:128, bank2 + [512 x 1]] fp32 "
            "moving=sbuf[p0:128, 4096 + [512 x 1]] bf16 first last then S[5] += 1 @complete");

  Instruction dma{Opcode::kDmaCopy};
  dma.index = 1;
  dma.ap[0] = SbufAp(0, 128, 0, Dtype::kFloat32, {{1024, 1}});
  dma.ap[1] = HbmAp(3, 0, Dtype::kFloat32, 128, 1024, {{1024, 1}});
  dma.ap[0].offset_reg = 2;
  dma.ap[0].reg_stride_bytes = 4096;
  AddUpdate(dma, {UpdateOp::kEventSet, UpdateWhen::kRead, 4, 0});
  EXPECT_EQ(FormatInstruction(dma),
            "dma_copy dst=sbuf[p0:128, 0 + r2*4096 + [1024 x 1]] fp32 "
            "src=hbm[var3 + 0, [128 x 1024, 1024 x 1]] fp32 queue=1 then E[4] set @read");

  Instruction br{Opcode::kBranch};
  br.reg0 = 1;
  br.cmp = CmpOp::kLt;
  br.imm[0] = 16;
  br.target = 2;
  EXPECT_EQ(FormatInstruction(br), "branch r1 < 16 -> 2");
  Instruction add{Opcode::kRegAdd};
  add.reg0 = 1;
  add.reg1 = 7;
  add.flags = kFlagRegOperand;
  EXPECT_EQ(FormatInstruction(add), "reg_add r1 += r7");
  Instruction sw{Opcode::kSemWait};
  sw.index = 9;
  sw.cmp = CmpOp::kEq;
  sw.imm[0] = 4;
  EXPECT_EQ(FormatInstruction(sw), "sem_wait S[9] == 4");

  Instruction act{Opcode::kActivation};
  act.func = ActFunc::kExp;
  act.set_imm_f32(0, 1.0f);
  act.ap[0] = SbufAp(0, 128, 0, Dtype::kFloat32, {{512, 1}});
  act.ap[1] = PsumAp(0, 128, 64, Dtype::kFloat32, {{512, 1}});
  EXPECT_EQ(FormatInstruction(act),
            "activation dst=sbuf[p0:128, 0 + [512 x 1]] fp32 in=psum[p0:128, bank0 + 64 + "
            "[512 x 1]] fp32 bias=0.0 scale=1.0 alpha=0.0 func=exp reduce_cmd=idle");
}

TEST(TextTest, CollectiveForms) {
  Instruction cc{Opcode::kCollective};
  cc.count = static_cast<uint8_t>(CollectiveKind::kReduceScatter);
  cc.op0 = AluOp::kMaximum;
  cc.index = 12;
  cc.imm[0] = 4;
  cc.imm[1] = 2;
  cc.ap[0] = HbmAp(2, 0, Dtype::kFloat32, 1, 0, {{256, 1}});
  cc.ap[1] = HbmAp(1, 0, Dtype::kFloat32, 4, 256, {{256, 1}});
  AddUpdate(cc, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 3, 1});
  const std::string text =
      "collective dst=hbm[var2 + 0, [1 x 0, 256 x 1]] fp32 src=hbm[var1 + 0, [4 x 256, 256 x 1]] "
      "fp32 group=4 stride=2 op0=maximum kind=reduce_scatter id=12 then S[3] += 1 @complete";
  EXPECT_EQ(FormatInstruction(cc), text);
  StatusOr<Instruction> back = ParseInstruction(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, cc);

  // Omitted keys: group 0 (the world), stride 1, op0 bypass, id 0, and shift 0 — or 1 for a
  // permute, which prints it.
  StatusOr<Instruction> permute = ParseInstruction(
      "collective kind=permute dst=hbm[var2 + 0, [1 x 0, 64 x 1]] bf16 "
      "src=hbm[var1 + 0, [1 x 0, 64 x 1]] bf16");
  ASSERT_TRUE(permute.ok()) << permute.status().ToString();
  EXPECT_EQ(permute->imm[0], 0u);
  EXPECT_EQ(permute->imm[1], 1u);
  EXPECT_EQ(permute->imm[2], 1u);
  EXPECT_EQ(permute->op0, AluOp::kBypass);
  EXPECT_EQ(FormatInstruction(*permute),
            "collective dst=hbm[var2 + 0, [1 x 0, 64 x 1]] bf16 src=hbm[var1 + 0, [1 x 0, 64 x "
            "1]] bf16 group=0 stride=1 shift=1 op0=bypass kind=permute id=0");
  StatusOr<Instruction> gather = ParseInstruction(
      "collective dst=hbm[var2 + 0, [1 x 0, 64 x 1]] bf16 src=hbm[var1 + 0, [1 x 0, 32 x 1]] "
      "bf16 kind=all_gather group=2");
  ASSERT_TRUE(gather.ok()) << gather.status().ToString();
  EXPECT_EQ(gather->imm[2], 0u);
  EXPECT_TRUE(ValidateForEngine(Engine::kSp, *gather, LimitsFor(simulator::Trainium2Spec())).ok());
  StatusOr<Instruction> back_shift = ParseInstruction(FormatInstruction(*permute));
  ASSERT_TRUE(back_shift.ok());
  EXPECT_EQ(*back_shift, *permute);
  // A shift on a non-permute (invalid) still prints, so the text stays faithful.
  Instruction odd = *gather;
  odd.imm[2] = 5;
  EXPECT_NE(FormatInstruction(odd).find("shift=5"), std::string::npos);
  EXPECT_EQ(*ParseInstruction(FormatInstruction(odd)), odd);

  // The examples of docs/isa.md §10.3 are canonical.
  for (const char* line :
       {"collective dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=hbm[var1 + 0, [128 x 512, "
        "512 x 1]] fp32 group=0 stride=1 op0=add kind=all_reduce id=1 then S[4] += 1 @complete",
        "collective dst=hbm[var2 + 0, [1 x 0, 4096 x 1]] bf16 src=hbm[var1 + 0, [1 x 0, 4096 x "
        "1]] bf16 group=8 stride=1 shift=1 op0=bypass kind=permute id=2"}) {
    StatusOr<Instruction> i = ParseInstruction(line);
    ASSERT_TRUE(i.ok()) << line << "\n" << i.status().ToString();
    EXPECT_EQ(FormatInstruction(*i), line);
    EXPECT_TRUE(ValidateForEngine(Engine::kPool, *i, LimitsFor(simulator::Trainium2Spec())).ok());
  }
  for (const char* bad : {"collective kind=broadcast", "collective kind=all_reduce kind=permute",
                          "collective kind=300", "collective queue=1", "collective id=-1"}) {
    StatusOr<Instruction> r = ParseInstruction(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  StatusOr<Instruction> unknown = ParseInstruction("collective kind=broadcast");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown collective kind broadcast"), std::string::npos)
      << unknown.status().message();
}

TEST(TextTest, PairForms) {
  Instruction barrier{Opcode::kCoreBarrier};
  barrier.index = 17;
  AddUpdate(barrier, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 2, 1});
  EXPECT_EQ(FormatInstruction(barrier), "core_barrier sem=17 then S[2] += 1 @complete");
  StatusOr<Instruction> b = ParseInstruction(FormatInstruction(barrier));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*b, barrier);
  StatusOr<Instruction> b0 = ParseInstruction("core_barrier");  // sem defaults to 0
  ASSERT_TRUE(b0.ok()) << b0.status().ToString();
  EXPECT_EQ(b0->index, 0u);

  Instruction sr{Opcode::kSendRecv};
  sr.count = 2;
  sr.index = 5;
  sr.ap[0] = SbufAp(0, 32, 1024, Dtype::kBfloat16, {{64, 1}});
  sr.ap[1] = SbufAp(32, 32, 0, Dtype::kBfloat16, {{64, 1}});
  const std::string text =
      "sendrecv dst=sbuf[p0:32, 1024 + [64 x 1]] bf16 src=sbuf[p32:64, 0 + [64 x 1]] bf16 "
      "queue=2 peer_sem=5";
  EXPECT_EQ(FormatInstruction(sr), text);
  StatusOr<Instruction> back = ParseInstruction(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, sr);
  for (const char* bad : {"core_barrier sem=1 sem=2", "core_barrier queue=1", "core_barrier id=3",
                          "sendrecv peer_sem=-1", "sendrecv queue=256", "sendrecv sem=1"}) {
    EXPECT_FALSE(ParseInstruction(bad).ok()) << bad;
  }
}

TEST(TextTest, DebugPrintForm) {
  Instruction print{Opcode::kDebugPrint};
  print.index = 7;
  print.ap[1] = HbmAp(3, 64, Dtype::kFloat8E4, 4, 32, {{2, 16}, {16, 1}});
  AddWait(print, {WaitKind::kSemaphore, CmpOp::kGe, 1, 2});
  const std::string text =
      "wait S[1] >= 2 debug_print src=hbm[var3 + 64, [4 x 32, 2 x 16, 16 x 1]] fp8e4 prefix=7";
  EXPECT_EQ(FormatInstruction(print), text);
  StatusOr<Instruction> back = ParseInstruction(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, print);
  StatusOr<Instruction> zero = ParseInstruction("debug_print src=sbuf[p0:1, 0 + [4 x 1]] int32");
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();  // prefix defaults to 0
  EXPECT_EQ(zero->index, 0u);
  for (const char* bad : {"debug_print src=sbuf[p0:1, 0 + [4 x 1]] int32 prefix=-1",
                          "debug_print dst=sbuf[p0:1, 0 + [4 x 1]] int32",
                          "debug_print src=sbuf[p0:1, 0 + [4 x 1]] int32 queue=1"}) {
    EXPECT_FALSE(ParseInstruction(bad).ok()) << bad;
  }
  // Parsing checks syntax only; a debug_print without src is refused by validation.
  StatusOr<Instruction> bare = ParseInstruction("debug_print prefix=1");
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_FALSE(Validate(*bare, LimitsFor(simulator::Trainium2Spec())).ok());
}

TEST(TextTest, LenientInput) {
  // Shorthand dims, plain PSUM byte offsets, omitted defaults, keys in any order, comments.
  StatusOr<Instruction> a = ParseInstruction(
      "  activation func=exp in=psum[p0:128, 4096 + [512]] fp32 dst=sbuf[p0:128, 0 + [512]] bf16"
      "   # exp of a PSUM bank");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->func, ActFunc::kExp);
  EXPECT_EQ(a->imm_f32(0), 1.0f);  // scale defaults to 1.0
  EXPECT_EQ(a->ap[1].offset, 4096);
  EXPECT_EQ(a->ap[1].strides[0], 1);
  EXPECT_EQ(FormatAccessPattern(a->ap[1]), "psum[p0:128, bank2 + [512 x 1]] fp32");
}

TEST(TextTest, Immediates) {
  Instruction m{Opcode::kMemset};
  m.ap[0] = SbufAp(0, 1, 0, Dtype::kFloat32, {{1, 1}});
  for (uint32_t bits :
       {0x00000000u, 0x80000000u, 0x3F800000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7FC00001u,
        0xFFC00000u, 0x00000001u, 0x7F7FFFFFu, 0x3EAAAAABu}) {
    m.imm[0] = bits;
    std::string text = FormatInstruction(m);
    StatusOr<Instruction> back = ParseInstruction(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(back->imm[0], bits) << text;
  }
  m.ap[0].dtype = Dtype::kInt32;
  m.imm[0] = 0x80000000u;
  EXPECT_NE(FormatInstruction(m).find("value=-2147483648"), std::string::npos);
  StatusOr<Instruction> hex =
      ParseInstruction("memset dst=sbuf[p0:1, 0 + [1 x 1]] uint32 value=0xdeadbeef");
  ASSERT_TRUE(hex.ok());
  EXPECT_EQ(hex->imm[0], 0xDEADBEEFu);
}

TEST(TextTest, AccessPatternSyntax) {
  struct Case {
    const char* text;
    bool ok;
  };
  for (const Case& c :
       {Case{"sbuf[p0:128, 4096 + [512 x 1]] bf16", true},
        Case{"sbuf[p32:64, 0 + [4 x 128, 128 x 1]] fp8e4", true},
        Case{"psum[p0:128, bank7 + [512 x 1]] fp32", true},
        Case{"hbm[var0 + 64 + r3*-128, [1 x 0, 16 x 1]] int8", true},
        Case{"iota[-5, [128 x 1, 64 x 2]] int32", true},
        Case{"sbuf[p0:128, 0 + [1 x 1, 1 x 1, 1 x 1, 1 x 1, 1 x 1]] fp32", false},
        Case{"sbuf[p4:2, 0 + [8]] fp32", false}, Case{"sbuf[p0:128, 0 + [70000]] fp32", false},
        Case{"sbuf[p0:128, 0 + [8]] float99", false}, Case{"dram[p0:1, 0 + [8]] fp32", false},
        Case{"hbm[var1 + 0, [8 x 1]] fp32", false},
        Case{"sbuf[p0:128, 0 + [8]] fp32 junk", false}}) {
    StatusOr<AccessPattern> ap = ParseAccessPattern(c.text);
    EXPECT_EQ(ap.ok(), c.ok) << c.text;
    if (ap.ok()) {
      EXPECT_EQ(FormatAccessPattern(*ap), c.text);
    }
  }
}

TEST(TextTest, ParseErrors) {
  for (const char* bad :
       {"",
        "frobnicate",
        "tensor_tensor op0=add op0=add",
        "tensor_tensor op0=blend",
        "tensor_tensor nonsense=1",
        "tensor_tensor accumulate",
        "activation func=cosh",
        "wait S[3] >= tensor_copy",
        "wait Q[3] >= 1 nop",
        "nop then S[1] *= 2 @complete",
        "nop then S[1] += 2",
        "nop then E[1] toggle @read",
        "branch r1 < 3",
        "reg_set x1 = 2",
        "reg_add r1 = 2",
        "sem_wait S[300000] >= 1",
        "sem_update S[1] ^= 1",
        "dma_trigger desc=1 count=300",
        "tensor_copy dst=1.0",
        "wait S[1] >= 1 wait S[1] >= 1 wait S[1] >= 1 wait S[1] >= 1 wait S[1] >= 1 nop",
        "memset dst=sbuf[p0:1, 0 + [1]] fp32 value=1.5.5"}) {
    StatusOr<Instruction> r = ParseInstruction(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    }
  }
  EXPECT_FALSE(ParseProgram("nop\n").ok());  // no .engine line
  EXPECT_FALSE(ParseProgram(".engine gpu\nnop\n").ok());
  StatusOr<Program> p = ParseProgram(".engine sp\n# comment\n\nnop\nbogus\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("line 5"), std::string::npos) << p.status().message();
}

// Mutated canonical lines (characters replaced, dropped, duplicated) and random text must give a
// status, never a crash; whatever parses must print and re-parse to itself.
TEST(TextTest, MutatedLinesNeverCrash) {
  std::mt19937 rng(4242);
  const std::string alphabet = "abcdefprsx0123456789[]:+-*=.,<>!@# _SEx";
  std::vector<std::string> lines;
  for (const testing::Sample& s : testing::Samples()) lines.push_back(FormatInstruction(s.inst));
  for (int trial = 0; trial < 20000; ++trial) {
    std::string line = lines[rng() % lines.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !line.empty(); ++e) {
      size_t pos = rng() % line.size();
      switch (rng() % 3) {
        case 0:
          line[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          line.erase(pos, 1 + rng() % 8);
          break;
        default:
          line.insert(pos, line.substr(pos, 1 + rng() % 8));
          break;
      }
    }
    StatusOr<Instruction> r = ParseInstruction(line);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
      continue;
    }
    StatusOr<Instruction> again = ParseInstruction(FormatInstruction(*r));
    ASSERT_TRUE(again.ok()) << line << " -> " << FormatInstruction(*r);
    if (Validate(*r, LimitsFor(simulator::Trainium2Spec())).ok()) {
      EXPECT_EQ(*again, *r) << line;
    }
  }
  for (int trial = 0; trial < 5000; ++trial) {
    std::string junk(rng() % 80, ' ');
    for (char& c : junk) c = static_cast<char>(rng() % 128);
    (void)ParseInstruction(junk);
    (void)ParseAccessPattern(junk);
    (void)ParseProgram(".engine dve\n" + junk);
  }
}

}  // namespace
}  // namespace trnsim::isa
