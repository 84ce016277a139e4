// The ACT/DVE/POOL fast path (simulator/core/fast_vector.h) against the reference interpreter:
// seeded random instructions run through TryFastVector on one CoreState and through
// reference::ExecuteDatapath on a copy; SBUF, PSUM and the ACT accumulators must be
// byte-identical afterwards. Declined instructions must leave every byte untouched.
#include "simulator/core/fast_vector.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "simulator/isa/text.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {
namespace {

using isa::AccessPattern;
using isa::AluOp;
using isa::Dtype;
using isa::Engine;
using isa::Instruction;
using isa::Opcode;
using reference::CoreState;

isa::IsaLimits Limits() { return isa::LimitsFor(Trainium2Spec()); }

void ExpectSameState(const CoreState& fast, const CoreState& ref, const std::string& what) {
  EXPECT_TRUE(fast.sbuf == ref.sbuf) << what << ": SBUF differs";
  EXPECT_TRUE(fast.psum == ref.psum) << what << ": PSUM differs";
  EXPECT_EQ(0, std::memcmp(fast.acc.data(), ref.acc.data(), sizeof(fast.acc)))
      << what << ": ACT accumulators differ";
}

// Runs `inst` through TryFastVector on `fast` and through the reference on `ref`, then compares
// the states. The fast path must take the instruction unless `declined` is given; a decline must
// leave `fast` untouched and is reported there.
void RunBoth(Engine e, const Instruction& inst, CoreState& fast, CoreState& ref,
             const std::string& what, bool* declined = nullptr) {
  reference::VectorHbm hbm;
  const CoreState before = fast;
  StatusOr<bool> took = TryFastVector(e, inst, fast, hbm);
  ASSERT_TRUE(took.ok()) << what << ": " << took.status().ToString();
  if (declined) *declined = !*took;
  if (!*took) {
    ASSERT_TRUE(declined) << what << ": the fast path declined " << isa::FormatInstruction(inst);
    ExpectSameState(fast, before, what + ": a decline changed the state");
  }
  Status st = reference::ExecuteDatapath(e, inst, ref, hbm);
  ASSERT_TRUE(st.ok()) << what << ": " << st.ToString() << " for " << isa::FormatInstruction(inst);
  if (*took) ExpectSameState(fast, ref, what + ": " + isa::FormatInstruction(inst));
}

// Whether FillAp mixes raw random bit patterns (NaN payloads, denormals) into the values.
bool g_raw_bits = true;

// One element value of `dtype`'s encoding: mostly ordinary numbers, with zeros of both signs,
// infinities, huge values and (g_raw_bits) raw random bit patterns mixed in.
void PutRandomElement(std::mt19937& rng, Dtype dtype, uint8_t* p) {
  const int kind = int(rng() % 16) + (g_raw_bits ? 0 : 1);
  const int esize = isa::DtypeSize(dtype);
  if (kind == 0) {  // raw bits: denormals, NaN payloads, anything
    const uint32_t bits = rng();
    std::memcpy(p, &bits, esize);
    return;
  }
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  float v = kind == 1                 ? 0.0f
            : kind == 2               ? -0.0f
            : kind == 3               ? (rng() % 2 ? 1.0f : -1.0f) / 0.0f
            : kind == 4 || kind == 16 ? dist(rng) * 1e30f
                                      : dist(rng);
  numerics::ConvertFromFp32(&v, dtype, p, 1);
}

// Fills every element `ap` addresses with random values of its dtype.
void FillAp(std::mt19937& rng, const AccessPattern& ap, CoreState& s) {
  const bool sbuf = ap.memory == isa::Memory::kSbuf;
  const uint64_t pitch =
      sbuf ? s.limits.sbuf_bytes_per_partition : s.limits.psum_bytes_per_partition;
  uint8_t* mem = sbuf ? s.sbuf.data() : s.psum.data();
  const int esize = isa::DtypeSize(ap.dtype);
  const uint64_t free = ap.FreeElements();
  for (int r = 0; r < ap.num_partitions; ++r)
    for (uint64_t k = 0; k < free; ++k) {
      uint64_t i = k;
      int64_t elem = 0;
      for (int d = ap.num_dims - 1; d >= 0; --d) {
        elem += int64_t(i % ap.sizes[d]) * ap.strides[d];
        i /= ap.sizes[d];
      }
      PutRandomElement(rng, ap.dtype,
                       mem + (ap.start_partition + r) * pitch + ap.offset + elem * esize);
    }
}

const Dtype kFloats[] = {Dtype::kFloat32,  Dtype::kBfloat16, Dtype::kFloat16,
                         Dtype::kFloat8E4, Dtype::kFloat8E5, Dtype::kFloat32r};
Dtype RandomDtype(std::mt19937& rng) {
  return kFloats[rng() % 3 == 0 ? rng() % 6 : rng() % 3];  // mostly fp32 / bf16 / fp16
}

// A [rows, a * b] operand in SBUF slot `slot` (8 KiB apart) or PSUM: b contiguous, the a outer
// rows `b + gap` elements apart, sometimes in reverse order; [rows, 1] when a = b = 1.
AccessPattern RandomAp(std::mt19937& rng, int start, int rows, int a, int b, Dtype dtype, int slot,
                       bool psum) {
  const int esize = isa::DtypeSize(dtype);
  const int gap = rng() % 2 ? 0 : int(rng() % 4);
  const int32_t outer = b + gap;
  int64_t offset = (psum ? (slot % 2) * 8192 : slot * 8192) + int64_t(rng() % 16) * esize;
  const bool reverse = a > 1 && rng() % 4 == 0;
  if (reverse) offset += int64_t(a - 1) * outer * esize;
  AccessPattern ap = psum ? isa::PsumAp(start, rows, offset, dtype, {{uint16_t(a), 1}})
                          : isa::SbufAp(start, rows, offset, dtype, {{uint16_t(a), 1}});
  if (a == 1) {
    ap.sizes[0] = uint16_t(b);
    ap.strides[0] = 1;
  } else {
    ap.num_dims = 2;
    ap.sizes = {uint16_t(a), uint16_t(b), 0, 0};
    ap.strides = {reverse ? -outer : outer, 1, 0, 0};
  }
  return ap;
}

AluOp RandomArithOp(std::mt19937& rng) {
  while (true) {
    const AluOp op = AluOp(rng() % isa::kAluOpCount);
    if (isa::AluOpClass(op) != isa::AluClass::kBitvec) return op;
  }
}

// A present scalar operand [rows, 1] (slot `slot`), or none (the immediate is used).
void MaybeScalarOperand(std::mt19937& rng, Instruction& inst, int ap_slot, int start, int rows,
                        int mem_slot, CoreState& s) {
  if (rng() % 2) return;
  inst.ap[ap_slot] = RandomAp(rng, start, rows, 1, 1, RandomDtype(rng), mem_slot, false);
  FillAp(rng, inst.ap[ap_slot], s);
}

struct Generated {
  Engine engine;
  Instruction inst;
};

// One random instruction of `opcode` over fresh random data in `s`.
Generated RandomInstruction(std::mt19937& rng, Opcode opcode, CoreState& s) {
  const int rows = rng() % 4 == 0 ? 128 : 1 + int(rng() % 128);
  const int start = int(rng() % (129 - rows));
  const int b = rng() % 8 == 0 ? 1 + int(rng() % 8) : 1 + int(rng() % 300);
  // Outer dims over a size-1 inner one would make the innermost stride non-unit (declined).
  const int a = rng() % 2 || b == 1 ? 1 : 1 + int(rng() % 4);
  Instruction inst;
  inst.opcode = opcode;
  Engine engine = rng() % 2 ? Engine::kDve : Engine::kPool;
  std::uniform_real_distribution<float> imm(-3.0f, 3.0f);
  for (int i = 0; i < 3; ++i) inst.set_imm_f32(i, imm(rng));

  // Slot 1 (the input) and slot 0 (dst: its own region, in place, or shifted onto the input).
  const bool in_psum = rng() % 8 == 0;
  inst.ap[1] = RandomAp(rng, start, rows, a, b, RandomDtype(rng), 1, in_psum);
  FillAp(rng, inst.ap[1], s);
  const int placement = int(rng() % 6);
  if (opcode == Opcode::kTensorReduce) {
    inst.count = uint8_t(a > 1 && rng() % 2 ? 2 : 1);
    const int outer = inst.count == 2 ? 1 : a;
    inst.ap[0] = RandomAp(rng, start, rows, 1, outer, RandomDtype(rng), 0, rng() % 4 == 0);
  } else if (placement == 0 && opcode != Opcode::kMemset) {
    inst.ap[0] = inst.ap[1];  // in place
  } else if (placement == 1 && !in_psum) {
    inst.ap[0] = inst.ap[1];  // overlapping the input two elements later
    inst.ap[0].offset += 2 * isa::DtypeSize(inst.ap[1].dtype);
  } else {
    inst.ap[0] = RandomAp(rng, start, rows, a, b, RandomDtype(rng), 0, rng() % 4 == 0);
  }
  FillAp(rng, inst.ap[0], s);
  const bool rev0 = rng() % 2, rev1 = rng() % 2;
  switch (opcode) {
    case Opcode::kTensorCopy:
      if (rng() % 3 == 0) inst.ap[0].dtype = inst.ap[1].dtype;  // the raw-bits copy
      break;
    case Opcode::kTensorTensor:
      inst.op0 = RandomArithOp(rng);
      if (rev0) inst.flags |= isa::kFlagReverse0;
      inst.ap[2] = RandomAp(rng, start, rows, a, b, RandomDtype(rng), 2, false);
      FillAp(rng, inst.ap[2], s);
      break;
    case Opcode::kTensorScalar:
      inst.op0 = RandomArithOp(rng);
      inst.op1 = rng() % 3 == 0 ? AluOp::kBypass : RandomArithOp(rng);
      inst.flags |= (rev0 ? isa::kFlagReverse0 : 0) | (rev1 ? isa::kFlagReverse1 : 0);
      MaybeScalarOperand(rng, inst, 2, start, rows, 3, s);
      MaybeScalarOperand(rng, inst, 3, start, rows, 4, s);
      break;
    case Opcode::kActivation:
    case Opcode::kActivationReduce:
      engine = Engine::kAct;
      inst.func = isa::ActFunc(rng() % isa::kActFuncCount);
      inst.reduce_cmd = isa::ReduceCmd(rng() % isa::kReduceCmdCount);
      if (opcode == Opcode::kActivationReduce) {
        inst.reduce_cmd = isa::ReduceCmd::kIdle;
        inst.ap[4] = RandomAp(rng, start, rows, 1, 1, RandomDtype(rng), 5, false);
        FillAp(rng, inst.ap[4], s);
      }
      MaybeScalarOperand(rng, inst, 2, start, rows, 3, s);  // bias
      MaybeScalarOperand(rng, inst, 3, start, rows, 4, s);  // scale
      break;
    case Opcode::kTensorReduce:
      inst.op0 = RandomArithOp(rng);
      if (rng() % 2) inst.flags |= isa::kFlagNegate;
      break;
    case Opcode::kMemset:
      inst.ap[1] = AccessPattern{};
      break;
    case Opcode::kReciprocal:
      break;
    case Opcode::kScalarTensorTensor:
      inst.op0 = AluOp(rng() % isa::kAluOpCount);  // the reference applies any op here
      inst.op1 = AluOp(rng() % isa::kAluOpCount);
      inst.flags |= (rev0 ? isa::kFlagReverse0 : 0) | (rev1 ? isa::kFlagReverse1 : 0);
      MaybeScalarOperand(rng, inst, 2, start, rows, 3, s);
      inst.ap[3] = RandomAp(rng, start, rows, a, b, RandomDtype(rng), 2, false);
      FillAp(rng, inst.ap[3], s);
      break;
    default:
      break;
  }
  return {engine, inst};
}

TEST(FastVectorTest, RandomInstructionsMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  const Opcode kOpcodes[] = {
      Opcode::kTensorCopy, Opcode::kTensorTensor,     Opcode::kTensorScalar,
      Opcode::kActivation, Opcode::kActivationReduce, Opcode::kTensorReduce,
      Opcode::kMemset,     Opcode::kReciprocal,       Opcode::kScalarTensorTensor};
  std::mt19937 rng(20261130);
  CoreState base(limits);
  for (float& a : base.acc) a = float(int(rng() % 200) - 100) / 8.0f;
  // Activations decline when two different NaNs would meet in the reference's inline arithmetic
  // (fast_vector.h): NaN payloads in the data or in carried-over accumulators. Rare, so capped.
  int declines = 0;
  constexpr int kIterations = 450;
  for (int iter = 0; iter < kIterations; ++iter) {
    const Opcode opcode = kOpcodes[iter % std::size(kOpcodes)];
    g_raw_bits = rng() % 2 == 0;
    Generated g = RandomInstruction(rng, opcode, base);
    const std::string what = "iter " + std::to_string(iter);
    SCOPED_TRACE(what);
    CoreState fast = base, ref = base;
    const bool may_decline = opcode == Opcode::kActivation || opcode == Opcode::kActivationReduce;
    bool declined = false;
    RunBoth(g.engine, g.inst, fast, ref, what, may_decline ? &declined : nullptr);
    if (HasFatalFailure() || HasFailure()) return;
    declines += declined;
    base = std::move(ref);  // carry state on: later instructions see earlier results
  }
  g_raw_bits = true;
  EXPECT_LT(declines, kIterations / 20) << "too few instructions took the fast path";
}

// [128, 1024] bf16, the samples' tile: the common instructions on a full-width tile.
TEST(FastVectorTest, FullTilesMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  std::mt19937 rng(7);
  CoreState base(limits);
  g_raw_bits = false;  // NaN-free: every instruction must take the fast path
  const AccessPattern x = isa::SbufAp(0, 128, 0, Dtype::kBfloat16, {{1024, 1}});
  const AccessPattern y = isa::SbufAp(0, 128, 4096, Dtype::kBfloat16, {{1024, 1}});
  const AccessPattern out = isa::SbufAp(0, 128, 8192, Dtype::kBfloat16, {{1024, 1}});
  const AccessPattern col = isa::SbufAp(0, 128, 12288, Dtype::kFloat32, {{1, 1}});
  FillAp(rng, x, base);
  FillAp(rng, y, base);
  Instruction copy;
  copy.opcode = Opcode::kTensorCopy;
  copy.ap = {out, x};
  Instruction add = copy;
  add.opcode = Opcode::kTensorTensor;
  add.op0 = AluOp::kAdd;
  add.ap[2] = y;
  Instruction exp = copy;
  exp.opcode = Opcode::kActivation;
  exp.func = isa::ActFunc::kExp;
  exp.set_imm_f32(0, 1.0f);
  exp.reduce_cmd = isa::ReduceCmd::kResetReduce;
  Instruction max = copy;
  max.opcode = Opcode::kTensorReduce;
  max.op0 = AluOp::kMaximum;
  max.count = 1;
  max.ap[0] = col;
  CoreState fast = base, ref = base;
  RunBoth(Engine::kDve, copy, fast, ref, "tensor_copy");
  RunBoth(Engine::kDve, add, fast, ref, "tensor_tensor add");
  RunBoth(Engine::kAct, exp, fast, ref, "exp with reduce");
  RunBoth(Engine::kDve, max, fast, ref, "reduce max");
  g_raw_bits = true;
}

// Two NaNs with different payloads meeting in add/subtract/multiply: the fast path computes the
// inlined operation and redoes only the lanes whose result is NaN with ApplyAlu (fast_vector.cc,
// MapNaNFixup). Dense NaN pairs across its 256-element blocks, in place and not, tensor and
// scalar operands, must give the reference's bytes.
TEST(FastVectorTest, NaNPayloadPairsMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  constexpr int kCols = 600;  // spans three blocks, the last partial
  const AccessPattern x = isa::SbufAp(0, 128, 0, Dtype::kFloat32, {{kCols, 1}});
  const AccessPattern y = isa::SbufAp(0, 128, 4096, Dtype::kFloat32, {{kCols, 1}});
  const AccessPattern out = isa::SbufAp(0, 128, 8192, Dtype::kFloat32, {{kCols, 1}});
  CoreState base(limits);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int p = 0; p < 128; ++p)
    for (int i = 0; i < kCols; ++i) {
      // x: a NaN (payload varying with the lane, either sign) on every 3rd lane; y: another
      // payload on every 2nd; ordinary values elsewhere.
      const uint32_t xnan = (i % 2 ? 0xffc00000u : 0x7f800000u) | uint32_t(1 + p * kCols + i);
      const uint32_t ynan = 0x7fa00000u | uint32_t(7 * i + 3);
      const float xv = i % 3 == 0 ? std::bit_cast<float>(xnan) : dist(rng);
      const float yv = i % 2 == 0 ? std::bit_cast<float>(ynan) : dist(rng);
      std::memcpy(base.SbufAt(p, uint32_t(i * 4)), &xv, 4);
      std::memcpy(base.SbufAt(p, uint32_t(4096 + i * 4)), &yv, 4);
    }
  const float scalar_nan = std::bit_cast<float>(0x7f800123u);
  for (AluOp op : {AluOp::kAdd, AluOp::kSubtract, AluOp::kMultiply}) {
    for (bool in_place : {false, true}) {
      Instruction tt;
      tt.opcode = Opcode::kTensorTensor;
      tt.op0 = op;
      tt.ap[0] = in_place ? x : out;
      tt.ap[1] = x;
      tt.ap[2] = y;
      CoreState fast = base, ref = base;
      RunBoth(Engine::kDve, tt, fast, ref, "tensor_tensor NaN pairs");
      Instruction ts;
      ts.opcode = Opcode::kTensorScalar;
      ts.op0 = op;
      ts.op1 = AluOp::kBypass;
      ts.ap[0] = in_place ? y : out;
      ts.ap[1] = y;
      ts.set_imm_f32(0, scalar_nan);
      for (bool reverse : {false, true}) {
        ts.flags = reverse ? isa::kFlagReverse0 : 0;
        CoreState fast2 = base, ref2 = base;
        RunBoth(Engine::kDve, ts, fast2, ref2, "tensor_scalar NaN scalar");
      }
    }
  }
}

// Declined instructions return false and leave every byte as it was; where the reference
// reports an error, it still does (the fallback owns the message).
TEST(FastVectorTest, UnsupportedCasesAreDeclinedUntouched) {
  const isa::IsaLimits limits = Limits();
  CoreState s(limits);
  std::mt19937 rng(9);
  const AccessPattern in = isa::SbufAp(0, 4, 0, Dtype::kBfloat16, {{8, 1}});
  const AccessPattern dst = isa::SbufAp(0, 4, 64, Dtype::kFloat32, {{8, 1}});
  FillAp(rng, in, s);
  FillAp(rng, dst, s);
  reference::VectorHbm hbm;
  hbm.vars[1] = std::vector<uint8_t>(4096, 0);

  Instruction copy;
  copy.opcode = Opcode::kTensorCopy;
  copy.ap[0] = dst;
  copy.ap[1] = in;
  struct Case {
    std::string name;
    Engine engine;
    Instruction inst;
    bool reference_fails;
  };
  std::vector<Case> cases;
  auto with = [&](auto edit) {
    Instruction i = copy;
    edit(i);
    return i;
  };
  cases.push_back({"PE engine", Engine::kPe, copy, false});
  cases.push_back({"register offset", Engine::kDve, with([](Instruction& i) {
                     i.ap[1].offset_reg = 3;
                     i.ap[1].reg_stride_bytes = 2;
                   }),
                   false});
  cases.push_back({"HBM operand", Engine::kDve, with([](Instruction& i) {
                     i.ap[1] = isa::HbmAp(1, 0, Dtype::kBfloat16, 4, 8, {{8, 1}});
                   }),
                   false});
  cases.push_back({"integer dtype", Engine::kDve,
                   with([](Instruction& i) { i.ap[1].dtype = Dtype::kInt16; }), false});
  cases.push_back({"innermost stride 2", Engine::kDve, with([](Instruction& i) {
                     i.ap[1].sizes[0] = 4;
                     i.ap[1].strides[0] = 2;
                     i.ap[0].sizes[0] = 4;
                   }),
                   false});
  cases.push_back(
      {"shape mismatch", Engine::kDve, with([](Instruction& i) { i.ap[0].sizes[0] = 7; }), true});
  cases.push_back(
      {"out of bounds", Engine::kDve,
       with([&](Instruction& i) { i.ap[0].offset = limits.sbuf_bytes_per_partition - 8; }), true});
  cases.push_back({"partitions out of range", Engine::kDve,
                   with([](Instruction& i) { i.ap[0].start_partition = 126; }), true});
  cases.push_back({"bitvec op", Engine::kDve, with([](Instruction& i) {
                     i.opcode = Opcode::kTensorScalar;
                     i.op0 = AluOp::kBitwiseAnd;
                   }),
                   false});
  cases.push_back({"tensor_tensor without in1", Engine::kDve, with([](Instruction& i) {
                     i.opcode = Opcode::kTensorTensor;
                     i.op0 = AluOp::kAdd;
                   }),
                   true});
  cases.push_back({"scalar operand with too few rows", Engine::kDve, with([](Instruction& i) {
                     i.opcode = Opcode::kTensorScalar;
                     i.op0 = AluOp::kAdd;
                     i.ap[2] = isa::SbufAp(0, 2, 256, Dtype::kFloat32, {{1, 1}});
                   }),
                   false});
  cases.push_back({"activation_reduce without reduce_res", Engine::kAct,
                   with([](Instruction& i) { i.opcode = Opcode::kActivationReduce; }), true});
  cases.push_back({"scalar_tensor_tensor without operand1", Engine::kDve,
                   with([](Instruction& i) { i.opcode = Opcode::kScalarTensorTensor; }), true});
  cases.push_back({"tensor_reduce bad axes", Engine::kDve, with([](Instruction& i) {
                     i.opcode = Opcode::kTensorReduce;
                     i.op0 = AluOp::kAdd;
                     i.count = 2;
                   }),
                   true});
  cases.push_back({"opcode not handled (iota)", Engine::kPool,
                   with([](Instruction& i) { i.opcode = Opcode::kIota; }), false});

  for (const Case& c : cases) {
    CoreState before = s;
    StatusOr<bool> took = TryFastVector(c.engine, c.inst, s, hbm);
    ASSERT_TRUE(took.ok()) << c.name;
    EXPECT_FALSE(*took) << c.name;
    ExpectSameState(s, before, c.name);
    if (c.reference_fails) {
      CoreState copy_state = s;
      EXPECT_FALSE(reference::ExecuteDatapath(c.engine, c.inst, copy_state, hbm).ok()) << c.name;
    }
  }
}

}  // namespace
}  // namespace trnsim::simulator::core
