// Validation, generic rules: fields, operands, access patterns, synchronisation (docs/isa.md §9).
// One failing case per rule, each NRT_INVALID naming the mnemonic and the rule.
#include <gtest/gtest.h>

#include "tests/simulator/isa/validate_case.h"

namespace trnsim::isa {
namespace {

using testing::Base;
using testing::Case;
using testing::Check;

using I = Instruction;
using E = Engine;
constexpr Opcode kTT = Opcode::kTensorTensor;
constexpr Opcode kMM = Opcode::kMultiplyMoving;

TEST(ValidateTest, GenericRules) {
  const Case cases[] = {
      {"engine", kTT, [](I&, E& e) { e = Engine::kPe; }, "not an instruction of the pe engine"},
      {"unused field", Opcode::kNop, [](I& i, E&) { i.op0 = AluOp::kAdd; }, "op0 is unused"},
      {"unused target", Opcode::kNop, [](I& i, E&) { i.target = 3; }, "target is unused"},
      {"unused imm", kTT, [](I& i, E&) { i.imm[2] = 1; }, "imm2 is unused"},
      {"flag", kTT, [](I& i, E&) { i.flags = kFlagAccumulate; }, "flag accumulate"},
      {"reserved flag bit", kTT, [](I& i, E&) { i.flags = 0x8000; }, "bit 15"},
      {"required operand", kTT, [](I& i, E&) { i.ap[2] = {}; }, "operand in1 is required"},
      {"unused slot", kTT, [](I& i, E&) { i.ap[4] = i.ap[1]; }, "slot 4 is not used"},
      {"absent slot not zero", kTT, [](I& i, E&) { i.ap[3].offset = 4; }, "absent operand slot 3"},
      {"imm with tensor", Opcode::kActivation,
       [](I& i, E&) {
         i.ap[3] = i.ap[0];
         i.ap[3].num_partitions = 128;
       },
       "given as a tensor"},
      {"op0 range", kTT, [](I& i, E&) { i.op0 = static_cast<AluOp>(kAluOpCount); },
       "op0 out of range"},
      {"func range", Opcode::kActivation, [](I& i, E&) { i.func = static_cast<ActFunc>(26); },
       "activation function 26 out of range"},
      {"reduce_cmd range", Opcode::kActivation,
       [](I& i, E&) { i.reduce_cmd = static_cast<ReduceCmd>(4); }, "reduce_cmd out of range"},
      {"cmp range", Opcode::kAffineSelect, [](I& i, E&) { i.cmp = static_cast<CmpOp>(6); },
       "cmp out of range"},
      {"register", Opcode::kRegSet, [](I& i, E&) { i.reg0 = 64; }, "register r64 >= 64"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, AccessPatternRules) {
  const Case cases[] = {
      {"dtype", kTT, [](I& i, E&) { i.ap[0].dtype = Dtype::kUnknown; }, "dtype 0 invalid"},
      {"dtype range", kTT, [](I& i, E&) { i.ap[0].dtype = static_cast<Dtype>(77); }, "invalid"},
      {"no dims", kTT, [](I& i, E&) { i.ap[0].num_dims = 0; }, "free dims 0"},
      {"5 dims", kTT, [](I& i, E&) { i.ap[0].num_dims = 5; }, "free dims 5"},
      {"zero size", kTT, [](I& i, E&) { i.ap[0].sizes[0] = 0; }, "free size 0 is 0"},
      {"unused dim", kTT, [](I& i, E&) { i.ap[0].strides[3] = 1; }, "unused free dim 3"},
      {"no partitions", kTT, [](I& i, E&) { i.ap[0].num_partitions = 0; }, "count is 0"},
      {"too many partitions", kTT, [](I& i, E&) { i.ap[0].num_partitions = 129; },
       "exceed the 128"},
      {"start rule 64", kTT,
       [](I& i, E&) {
         for (int s = 0; s < 3; ++s) {
           i.ap[s].num_partitions = 64;
           i.ap[s].start_partition = 32;
         }
       },
       "start-partition rule"},
      {"start rule 128", kTT,
       [](I& i, E&) {
         i.ap[0].num_partitions = 100;
         i.ap[0].start_partition = 64;
       },
       "exceed"},
      {"start rule 32", kTT,
       [](I& i, E&) {
         for (int s = 0; s < 3; ++s) {
           i.ap[s].num_partitions = 16;
           i.ap[s].start_partition = 8;
         }
       },
       "start-partition rule"},
      {"int16 stride", kTT, [](I& i, E&) { i.ap[0].strides[0] = 40000; }, "does not fit int16"},
      {"sbuf end", kTT, [](I& i, E&) { i.ap[0].offset = 224 * 1024 - 4; },
       "outside the 229376-byte SBUF"},
      {"sbuf negative", kTT, [](I& i, E&) { i.ap[0].strides[0] = -1; }, "outside"},
      {"psum end", kTT, [](I& i, E&) { i.ap[2].offset = 16 * 1024 - 4; }, "16384-byte PSUM"},
      {"psum align", kTT, [](I& i, E&) { i.ap[2].offset = 2; }, "4-byte aligned"},
      {"var_id on chip", kTT, [](I& i, E&) { i.ap[0].var_id = 1; }, "HBM-only"},
      {"register offset", kTT, [](I& i, E&) { i.ap[0].offset_reg = 64; }, "offset register r64"},
      {"register stride", kTT, [](I& i, E&) { i.ap[0].reg_stride_bytes = 4; },
       "register stride without"},
      {"hbm before var", Opcode::kDmaCopy, [](I& i, E&) { i.ap[1].offset = -8; },
       "before the start of variable 3"},
      {"hbm start", Opcode::kDmaCopy, [](I& i, E&) { i.ap[1].start_partition = 32; },
       "no start partition"},
      {"pattern dtype", Opcode::kIota, [](I& i, E&) { i.ap[1].dtype = Dtype::kFloat32; }, "int32"},
      {"pattern register", Opcode::kIota, [](I& i, E&) { i.ap[1].offset_reg = 1; },
       "no partition start"},
      {"pattern base", Opcode::kIota, [](I& i, E&) { i.ap[1].offset = int64_t{1} << 40; },
       "fit int32"},
      {"memory", kTT, [](I& i, E&) { i.ap[0].memory = Memory::kHbm; }, "memory hbm is not allowed"},
      {"PE reads SBUF only", Opcode::kLoadStationary,
       [](I& i, E&) {
         i.ap[1] = PsumAp(0, 128, 0, Dtype::kBfloat16, {{128, 1}});
       },
       "memory psum is not allowed"},
      {"PE writes PSUM only", kMM, [](I& i, E&) { i.ap[0].memory = Memory::kSbuf; },
       "memory sbuf is not allowed"},
      {"POOL no PSUM", Opcode::kTensorCopy,
       [](I& i, E&) {
         i.ap[1] = PsumAp(0, 128, 0, Dtype::kFloat32, {{512, 1}});
       },
       "POOL cannot access PSUM"},
      {"DMA no PSUM", Opcode::kDmaCopy,
       [](I& i, E&) {
         i.ap[0] = PsumAp(0, 128, 0, Dtype::kBfloat16, {{512, 1}});
       },
       "memory psum"},
  };
  for (const Case& c : cases) Check(c);
}

TEST(ValidateTest, SyncRules) {
  const Case cases[] = {
      {"wait semaphore", kTT,
       [](I& i, E&) {
         AddWait(i, {WaitKind::kSemaphore, CmpOp::kGe, 256, 1});
       },
       "semaphore 256 >= 256"},
      {"wait event", kTT,
       [](I& i, E&) {
         AddWait(i, {WaitKind::kEvent, CmpOp::kEq, 300, 1});
       },
       "event 300"},
      {"event wait form", kTT,
       [](I& i, E&) {
         AddWait(i, {WaitKind::kEvent, CmpOp::kGe, 1, 1});
       },
       "== or != against 0 or 1"},
      {"wait kind", kTT,
       [](I& i, E&) {
         AddWait(i, {static_cast<WaitKind>(9), CmpOp::kGe, 1, 1});
       },
       "wait kind 9"},
      {"wait cmp", kTT,
       [](I& i, E&) {
         AddWait(i, {WaitKind::kSemaphore, static_cast<CmpOp>(8), 1, 1});
       },
       "wait comparison"},
      {"update semaphore", kTT,
       [](I& i, E&) {
         AddUpdate(i, {UpdateOp::kSemAdd, UpdateWhen::kComplete, 999, 1});
       },
       "semaphore 999"},
      {"update event", kTT,
       [](I& i, E&) {
         AddUpdate(i, {UpdateOp::kEventSet, UpdateWhen::kRead, 256, 0});
       },
       "event 256"},
      {"event value", kTT,
       [](I& i, E&) {
         AddUpdate(i, {UpdateOp::kEventClear, UpdateWhen::kRead, 2, 5});
       },
       "no value"},
      {"update op", kTT,
       [](I& i, E&) {
         AddUpdate(i, {static_cast<UpdateOp>(0), UpdateWhen::kRead, 2, 5});
       },
       "update op 0"},
      {"update when", kTT,
       [](I& i, E&) {
         AddUpdate(i, {UpdateOp::kSemAdd, static_cast<UpdateWhen>(2), 2, 5});
       },
       "timing"},
      {"too many waits", kTT, [](I& i, E&) { i.num_waits = 5; }, "more than 4 waits"},
      {"sem_wait index", Opcode::kSemWait, [](I& i, E&) { i.index = 256; }, "semaphore 256"},
      {"sem_update op", Opcode::kSemUpdate, [](I& i, E&) { i.sem_op = UpdateOp::kEventSet; },
       "add, sub or set"},
      {"event index", Opcode::kEventSet, [](I& i, E&) { i.index = 256; }, "event 256 >= 256"},
  };
  for (const Case& c : cases) Check(c);
}

}  // namespace
}  // namespace trnsim::isa
