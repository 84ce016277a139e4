// Validation, per-opcode rules: PE, ACT, DVE, POOL, control, and whole programs (docs/isa.md §9).
#include <gtest/gtest.h>

#include "tests/simulator/isa/validate_case.h"

namespace trnsim::isa {
namespace {

using testing::Base;
using testing::Case;
using testing::Check;
const IsaLimits& Trn2() { return testing::Trn2Limits(); }

using I = Instruction;
using E = Engine;
constexpr Opcode kTT = Opcode::kTensorTensor;
constexpr Opcode kMM = Opcode::kMultiplyMoving;

TEST(ValidateTest, PeRules) {
  const Case cases[] = {
      {"K", Opcode::kLoadStationary, [](I& i, E&) { i.ap[1].num_partitions = 129; }, "exceed"},
      {"stationary free", Opcode::kLoadStationary, [](I& i, E&) { i.ap[1].sizes[0] = 129; },
       "stationary free size 129 > 128"},
      {"PE dtype", Opcode::kLoadStationary, [](I& i, E&) { i.ap[1].dtype = Dtype::kInt8; },
       "not a PE input type"},
      {"double_row dtype", Opcode::kLoadStationary, [](I& i, E&) { i.flags = kFlagDoubleRow; },
       "double_row needs fp8"},
      {"moving free", kMM,
       [](I& i, E&) {
         i.ap[0].sizes[0] = 1024;
         i.ap[1].sizes[0] = 1024;
       },
       "moving free size 1024 > 512"},
      {"dst fp32", kMM, [](I& i, E&) { i.ap[0].dtype = Dtype::kFloat16; }, "dst must be fp32"},
      {"dst bf16 on NC-v3", kMM, [](I& i, E&) { i.ap[0].dtype = Dtype::kBfloat16; }, "needs NC-v4"},
      {"dst shape", kMM, [](I& i, E&) { i.ap[0].sizes[0] = 256; }, "must be [M <= 128, 512]"},
      {"M", kMM, [](I& i, E&) { i.ap[0].num_partitions = 129; }, "exceed"},
      {"first + accumulate", kMM, [](I& i, E&) { i.flags |= kFlagAccumulate; },
       "first excludes accumulate"},
      {"transpose + accumulate", kMM, [](I& i, E&) { i.flags = kFlagTranspose | kFlagAccumulate; },
       "transpose excludes"},
      {"bank crossing", kMM,
       [](I& i, E&) {
         i.ap[0].offset = 2048 + 1024;
         i.ap[0].sizes[0] = 512;
       },
       "crosses a PSUM bank"},
      {"nc_transpose shape", Opcode::kNcTranspose, [](I& i, E&) { i.ap[0].num_partitions = 32; },
       "must be the transpose"},
      {"nc_transpose dtype", Opcode::kNcTranspose,
       [](I& i, E&) { i.ap[0].dtype = Dtype::kFloat32; }, "share a dtype"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, Trainium3AllowsBf16AndLongMoving) {
  IsaLimits trn3 = LimitsFor(simulator::Trainium3Spec());
  testing::Sample s = Base(kMM);
  s.inst.ap[0] = PsumAp(0, 128, 0, Dtype::kBfloat16, {{4096, 1}});
  s.inst.ap[1] = SbufAp(0, 128, 0, Dtype::kBfloat16, {{4096, 1}});
  EXPECT_TRUE(ValidateForEngine(Engine::kPe, s.inst, trn3).ok());
  EXPECT_FALSE(ValidateForEngine(Engine::kPe, s.inst, Trn2()).ok());
}

TEST(ValidateTest, ActAndElementwiseRules) {
  const Case cases[] = {
      {"shape", kTT, [](I& i, E&) { i.ap[1].sizes[0] = 256; }, "differ in shape"},
      {"both PSUM", kTT, [](I& i, E&) { i.ap[1] = i.ap[2]; }, "both in PSUM"},
      {"engine dtype", kTT, [](I& i, E&) { i.ap[0].dtype = Dtype::kInt64; }, "not a datapath type"},
      {"fp32r off PE", kTT, [](I& i, E&) { i.ap[0].dtype = Dtype::kFloat32r; },
       "not a datapath type"},
      {"bitvec on float", kTT, [](I& i, E&) { i.op0 = AluOp::kBitwiseXor; }, "integer dtype"},
      {"alpha", Opcode::kActivation, [](I& i, E&) { i.set_imm_f32(2, 0.5f); }, "prelu only"},
      {"bias shape", Opcode::kActivation,
       [](I& i, E&) {
         i.imm[1] = 0;
         i.ap[2] = i.ap[0];
       },
       "must be [128, 1]"},
      {"reduce_res shape", Opcode::kActivationReduce, [](I& i, E&) { i.ap[4].sizes[0] = 2; },
       "reduce_res"},
      {"read_accumulator shape", Opcode::kReadAccumulator, [](I& i, E&) { i.ap[0].sizes[0] = 4; },
       "must be [128, 1]"},
      {"mixed ALU classes", Opcode::kTensorScalar,
       [](I& i, E& e) {
         i.op1 = AluOp::kRightShift;
         e = Engine::kDve;
       },
       "mix bitvec and arithmetic"},
      {"ACT tensor_scalar pairs", Opcode::kTensorScalar, [](I& i, E&) { i.op0 = AluOp::kSubtract; },
       "ACT tensor_scalar takes"},
      {"bitvec on POOL", Opcode::kTensorScalar,
       [](I& i, E& e) {
         i.op0 = AluOp::kBitwiseOr;
         i.op1 = AluOp::kBypass;
         i.imm[0] = 0;
         i.imm[1] = 0;
         i.ap[3] = {};
         i.ap[0].dtype = i.ap[1].dtype = Dtype::kInt32;
         e = Engine::kPool;
       },
       "DVE only"},
      {"reduction op", Opcode::kTensorReduce, [](I& i, E&) { i.op0 = AluOp::kPower; },
       "not a reduction"},
      {"axes", Opcode::kTensorReduce, [](I& i, E&) { i.count = 4; }, "axes 4 not in 1..3"},
      {"reduce dst", Opcode::kTensorReduce, [](I& i, E&) { i.count = 1; }, "after reducing"},
      {"predicate dtype", Opcode::kTensorCopyPredicated,
       [](I& i, E&) { i.ap[2].dtype = Dtype::kFloat32; }, "predicate is uint8"},
      {"predicated dtypes", Opcode::kTensorCopyPredicated,
       [](I& i, E&) { i.ap[0].dtype = Dtype::kBfloat16; }, "share a dtype"},
      {"DVE transpose size", Opcode::kTranspose,
       [](I& i, E&) {
         i.ap[1].sizes[0] = 33;
         i.ap[0].num_partitions = 33;
         i.ap[0].start_partition = i.ap[1].start_partition = 0;
       },
       "exceeds [32, 32]"},
      {"DVE transpose quadrant", Opcode::kTranspose, [](I& i, E&) { i.ap[0].start_partition = 64; },
       "same 32-partition quadrant"},
      {"bn_stats free", Opcode::kBnStats, [](I& i, E&) { i.ap[1].sizes[0] = 513; },
       "not in 1..512"},
      {"bn_stats dst", Opcode::kBnStats, [](I& i, E&) { i.ap[0].sizes[0] = 5; },
       "must be [128, 6]"},
      {"bn_aggr", Opcode::kBnAggr, [](I& i, E&) { i.ap[1].sizes[0] = 13; }, "multiple of 3"},
      {"max8 min", Opcode::kMax8, [](I& i, E&) { i.ap[1].sizes[0] = 7; }, "not in 8..16384"},
      {"find_index8 dtype", Opcode::kNcFindIndex8, [](I& i, E&) { i.ap[0].dtype = Dtype::kInt32; },
       "uint16 or uint32"},
      {"match_replace8 vals", Opcode::kNcMatchReplace8, [](I& i, E&) { i.ap[2].sizes[0] = 7; },
       "must be [128, 8]"},
      {"tsr reduce op", Opcode::kTensorScalarReduce, [](I& i, E&) { i.op1 = AluOp::kSubtract; },
       "add, multiply, maximum or minimum"},
      {"scan arithmetic", Opcode::kTensorTensorScan, [](I& i, E&) { i.op1 = AluOp::kBitwiseAnd; },
       "must be arithmetic"},
      {"stt both PSUM", Opcode::kScalarTensorTensor,
       [](I& i, E&) {
         i.ap[1] = i.ap[3] = PsumAp(0, 128, 0, Dtype::kFloat32, {{512, 1}});
       },
       "both in PSUM"},
      {"iota shape", Opcode::kIota, [](I& i, E&) { i.ap[1].num_partitions = 64; },
       "differ in shape"},
      {"affine_select on_true", Opcode::kAffineSelect, [](I& i, E&) { i.ap[2].sizes[0] = 64; },
       "differ in shape"},
      {"local_gather elems", Opcode::kLocalGather, [](I& i, E&) { i.count = 3; },
       "not in {1, 2, 4, 8, 16, 32}"},
      {"local_gather groups", Opcode::kLocalGather,
       [](I& i, E&) {
         for (int s = 0; s < 3; ++s) i.ap[s].num_partitions = 24;
       },
       "16-partition groups"},
      {"local_gather indices", Opcode::kLocalGather,
       [](I& i, E&) {
         i.ap[2].sizes[0] = 512;
         i.ap[0].sizes[0] = 2048;
       },
       "indices per 16-partition group"},
      {"local_gather index dtype", Opcode::kLocalGather,
       [](I& i, E&) { i.ap[2].dtype = Dtype::kInt16; }, "index is uint16"},
      {"partition_reduce op", Opcode::kTensorPartitionReduce,
       [](I& i, E&) { i.op0 = AluOp::kSubtract; }, "op0 must be add"},
      {"partition_reduce dst", Opcode::kTensorPartitionReduce,
       [](I& i, E&) { i.ap[0].num_partitions = 32; }, "must be [1, 512]"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, ControlRules) {
  const Case cases[] = {
      {"reg_add operand", Opcode::kRegAdd, [](I& i, E&) { i.reg1 = 3; }, "either reg1"},
      {"reg_load shape", Opcode::kRegLoad, [](I& i, E&) { i.ap[0].sizes[0] = 2; },
       "one int32/uint32"},
      {"reg_store dtype", Opcode::kRegStore, [](I& i, E&) { i.ap[0].dtype = Dtype::kFloat32; },
       "one int32/uint32"},
      {"dma count", Opcode::kDmaTrigger, [](I& i, E&) { i.count = 0; }, "count must be >= 1"},
      {"dma queue", Opcode::kDmaCopy, [](I& i, E&) { i.index = 16; }, "DMA queue 16 >= 16"},
      {"dma elements", Opcode::kDmaCopy, [](I& i, E&) { i.ap[1].sizes[0] = 256; }, "elements"},
      {"dma 64-bit cast", Opcode::kDmaCopy, [](I& i, E&) { i.ap[1].dtype = Dtype::kInt64; },
       "64-bit"},
      {"dma both dge", Opcode::kDmaCopy, [](I& i, E&) { i.flags = kFlagSwdge | kFlagHwdge; },
       "exclusive"},
      {"swdge off POOL", Opcode::kDmaCopy,
       [](I& i, E& e) {
         i.flags = kFlagSwdge;
         e = Engine::kSp;
       },
       "only POOL"},
      {"hwdge off SP/ACT", Opcode::kDmaCopy,
       [](I& i, E& e) {
         i.flags = kFlagHwdge;
         e = Engine::kPool;
       },
       "only SP or ACT"},
      {"dge on dma_trigger", Opcode::kDmaTrigger, [](I& i, E&) { i.flags = kFlagHwdge; },
       "not accepted"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, CollectiveRules) {
  constexpr Opcode kCC = Opcode::kCollective;
  auto kind = [](I& i, CollectiveKind k) { i.count = static_cast<uint8_t>(k); };
  const Case cases[] = {
      {"collective kind", kCC, [](I& i, E&) { i.count = 5; }, "kind 5 is not a collective"},
      {"collective dst on chip", kCC,
       [](I& i, E&) {
         i.ap[0] = SbufAp(0, 128, 0, Dtype::kFloat32, {{512, 1}});
       },
       "memory sbuf is not allowed"},
      {"collective src on chip", kCC,
       [](I& i, E&) {
         i.ap[1] = SbufAp(0, 128, 0, Dtype::kFloat32, {{512, 1}});
       },
       "memory sbuf is not allowed"},
      {"collective dtypes", kCC, [](I& i, E&) { i.ap[1].dtype = Dtype::kBfloat16; },
       "dst and src must share a dtype"},
      {"reduction op", kCC, [](I& i, E&) { i.op0 = AluOp::kSubtract; },
       "reduces with add, multiply, maximum or minimum, not subtract"},
      {"bitvec reduction", kCC, [](I& i, E&) { i.op0 = AluOp::kBitwiseOr; }, "not bitwise_or"},
      {"missing reduction", kCC, [](I& i, E&) { i.op0 = AluOp::kBypass; }, "not bypass"},
      {"no reduction for gather", kCC,
       [&](I& i, E&) {
         kind(i, CollectiveKind::kAllGather);
         i.ap[0].num_partitions = 256;
       },
       "all_gather does not reduce: op0 must be bypass"},
      {"reduce 64-bit", kCC,
       [](I& i, E&) {
         i.ap[0].dtype = Dtype::kInt64;
         i.ap[1].dtype = Dtype::kInt64;
       },
       "all_reduce cannot reduce int64"},
      {"reduce fp32r", kCC,
       [](I& i, E&) {
         i.ap[0].dtype = Dtype::kFloat32r;
         i.ap[1].dtype = Dtype::kFloat32r;
       },
       "cannot reduce fp32r"},
      {"negative group", kCC, [](I& i, E&) { i.imm[0] = static_cast<uint32_t>(-2); },
       "group size -2 is negative"},
      {"zero stride", kCC, [](I& i, E&) { i.imm[1] = 0; }, "stride 0 must be >= 1"},
      {"shift outside permute", kCC, [](I& i, E&) { i.imm[2] = 1; }, "shift is used by permute"},
      {"all_reduce sizes", kCC, [](I& i, E&) { i.ap[1].sizes[0] = 256; }, "|dst| = |src|"},
      {"all_gather sizes", kCC,
       [&](I& i, E&) {
         kind(i, CollectiveKind::kAllGather);
         i.op0 = AluOp::kBypass;
         i.imm[0] = 4;
         i.ap[0].num_partitions = 64;  // 2 x |src|, not 4 x
         i.ap[1].num_partitions = 32;
       },
       "|dst| = G x |src|"},
      {"all_gather world sizes", kCC,
       [&](I& i, E&) {
         kind(i, CollectiveKind::kAllGather);
         i.op0 = AluOp::kBypass;
         i.ap[1].num_partitions = 3;  // 65536 elements are not a multiple of 1536
       },
       "|dst| = G x |src|"},
      {"reduce_scatter sizes", kCC,
       [&](I& i, E&) {
         kind(i, CollectiveKind::kReduceScatter);
         i.imm[0] = 2;  // |src| = |dst|
       },
       "|src| = G x |dst|"},
      {"all_to_all blocks", kCC,
       [&](I& i, E&) {
         kind(i, CollectiveKind::kAllToAll);
         i.op0 = AluOp::kBypass;
         i.imm[0] = 3;
       },
       "a multiple of G"},
      {"collective fields", kCC, [](I& i, E&) { i.op1 = AluOp::kAdd; }, "op1 is unused"},
      {"collective flags", kCC, [](I& i, E&) { i.flags = kFlagNegate; }, "flag negate"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, PairRules) {
  constexpr Opcode kCB = Opcode::kCoreBarrier;
  constexpr Opcode kSR = Opcode::kSendRecv;
  const Case cases[] = {
      {"barrier semaphore", kCB, [](I& i, E&) { i.index = 256; }, "semaphore 256 >= 256"},
      {"barrier operand", kCB,
       [](I& i, E&) {
         i.ap[0] = SbufAp(0, 1, 0, Dtype::kFloat32, {{1, 1}});
       },
       "operand slot 0 is not used"},
      {"barrier fields", kCB, [](I& i, E&) { i.count = 1; }, "count is unused"},
      {"peer semaphore", kSR, [](I& i, E&) { i.index = 300; }, "peer semaphore 300 >= 256"},
      {"sendrecv queue", kSR, [](I& i, E&) { i.count = 16; }, "DMA queue 16 >= 16"},
      {"sendrecv hbm dst", kSR,
       [](I& i, E&) {
         i.ap[0] = HbmAp(1, 0, Dtype::kBfloat16, 64, 256, {{256, 1}});
       },
       "memory hbm is not allowed"},
      {"sendrecv psum src", kSR,
       [](I& i, E&) {
         i.ap[1] = PsumAp(0, 64, 0, Dtype::kBfloat16, {{256, 1}});
       },
       "memory psum is not allowed"},
      {"sendrecv cast", kSR,
       [](I& i, E&) {
         i.ap[1].dtype = Dtype::kFloat32;
         i.ap[1].sizes[0] = 128;
       },
       "dst and src must share a dtype"},
      {"sendrecv elements", kSR, [](I& i, E&) { i.ap[1].sizes[0] = 128; },
       "dst has 16384 elements, src 8192"},
      {"sendrecv flags", kSR, [](I& i, E&) { i.flags = kFlagNegate; }, "flag negate"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, DebugPrintRules) {
  constexpr Opcode kDP = Opcode::kDebugPrint;
  const Case cases[] = {
      {"prefix id", kDP, [](I& i, E&) { i.index = 65536; }, "prefix 65536 >= 65536"},
      {"no src", kDP, [](I& i, E&) { i.ap[1] = AccessPattern{}; }, "operand src is required"},
      {"a dst", kDP,
       [](I& i, E&) {
         i.ap[0] = SbufAp(0, 1, 0, Dtype::kFloat32, {{1, 1}});
       },
       "operand slot 0 is not used"},
      {"psum src", kDP,
       [](I& i, E&) {
         i.ap[1] = PsumAp(0, 64, 0, Dtype::kFloat32, {{256, 1}});
       },
       "memory psum is not allowed"},
      {"too large", kDP,
       [](I& i, E&) {
         i.ap[1] = HbmAp(1, 0, Dtype::kUint64, 65535, 0, {{65535, 0}, {65535, 0}});
       },
       "more than a debug print carries (67108864 bytes)"},
      {"64 MiB + 1 element", kDP,
       [](I& i, E&) {
         i.ap[1] = HbmAp(1, 0, Dtype::kUint8, 1025, 65536, {{64, 1024}, {1024, 1}});
       },
       "more than a debug print carries"},
      {"fields", kDP, [](I& i, E&) { i.count = 1; }, "count is unused"},
      {"flags", kDP, [](I& i, E&) { i.flags = kFlagNegate; }, "flag negate"},
      {"imm", kDP, [](I& i, E&) { i.imm[0] = 1; }, "imm0 is unused"},
  };
  for (const Case& c : cases) Check(c);
  // Exactly 64 MiB passes, on any engine, in any dtype (64-bit included), SBUF or HBM.
  I big{kDP};
  big.ap[1] = HbmAp(1, 0, Dtype::kUint8, 1024, 65536, {{64, 1024}, {1024, 1}});
  big.index = 65535;
  for (int e = 0; e < kEngineCount; ++e) {
    EXPECT_TRUE(ValidateForEngine(static_cast<Engine>(e), big, Trn2()).ok()) << e;
  }
  I tile{kDP};
  tile.ap[1] = SbufAp(0, 128, 0, Dtype::kFloat8E5, {{2, 1}});
  EXPECT_TRUE(ValidateForEngine(Engine::kPool, tile, Trn2()).ok());
}

TEST(ValidateTest, CollectiveShapesThatPass) {
  I i{Opcode::kCollective};
  i.imm[1] = 1;
  i.count = static_cast<uint8_t>(CollectiveKind::kPermute);
  i.imm[2] = static_cast<uint32_t>(-3);  // any shift, taken mod G
  i.ap[0] = HbmAp(1, 0, Dtype::kUint64, 4, 8, {{8, 1}});
  i.ap[1] = HbmAp(2, 0, Dtype::kUint64, 1, 0, {{32, 1}});  // same count, another layout
  EXPECT_TRUE(ValidateForEngine(Engine::kSp, i, Trn2()).ok());
  i.count = static_cast<uint8_t>(CollectiveKind::kReduceScatter);
  i.imm[2] = 0;
  i.op0 = AluOp::kMultiply;
  i.ap[0].dtype = i.ap[1].dtype = Dtype::kFloat8E5;
  i.ap[0].num_partitions = 1;  // |src| = 4 |dst|, group = the world
  EXPECT_TRUE(ValidateForEngine(Engine::kPe, i, Trn2()).ok());
  i.imm[0] = 4;
  EXPECT_TRUE(ValidateForEngine(Engine::kPool, i, Trn2()).ok());
  i.imm[0] = 8;
  EXPECT_FALSE(ValidateForEngine(Engine::kPool, i, Trn2()).ok());
}

TEST(ValidateTest, ProgramRules) {
  I end{Opcode::kNotifyEnd};
  I branch{Opcode::kBranch};
  branch.reg0 = 1;
  branch.imm[0] = 4;
  branch.target = 2;
  Status st = ValidateProgram(Engine::kSp, std::vector<I>{branch, end}, Trn2());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "instruction 0 (branch): target 2 is outside the stream of 2 instructions");
  branch.target = -1;
  EXPECT_FALSE(ValidateProgram(Engine::kSp, std::vector<I>{branch, end}, Trn2()).ok());
  branch.target = 1;
  EXPECT_TRUE(ValidateProgram(Engine::kSp, std::vector<I>{branch, end}, Trn2()).ok());

  st = ValidateProgram(Engine::kSp, std::vector<I>{end, I{Opcode::kNop}}, Trn2());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("instruction 1 (nop): a stream must end with notify_end"),
            std::string::npos);
  EXPECT_FALSE(ValidateProgram(Engine::kSp, std::vector<I>{}, Trn2()).ok());

  testing::Sample tt = Base(kTT);
  tt.inst.ap[1].sizes[0] = 7;
  st = ValidateProgram(Engine::kDve, std::vector<I>{I{Opcode::kNop}, tt.inst, end}, Trn2());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("instruction 1 (tensor_tensor): ", 0), 0u) << st.message();
  st = ValidateProgram(static_cast<Engine>(7), std::vector<I>{end}, Trn2());
  EXPECT_FALSE(st.ok());
  I unknown{static_cast<Opcode>(0x7F)};
  EXPECT_FALSE(Validate(unknown, Trn2()).ok());
}

}  // namespace
}  // namespace trnsim::isa
