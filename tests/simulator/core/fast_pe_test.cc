// The PE fast path (simulator/core/fast_pe.h) against the reference interpreter: every
// instruction runs through TryFastPe on one CoreState and through reference::ExecuteDatapath on a
// copy, and the whole SBUF, PSUM and stationary buffer must be byte-identical afterwards.
#include "simulator/core/fast_pe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "simulator/isa/text.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {
namespace {

using isa::Dtype;
using isa::Instruction;
using reference::CoreState;

isa::IsaLimits Limits() { return isa::LimitsFor(Trainium2Spec()); }

// Byte-exact equality of everything a PE instruction can change.
void ExpectSameState(const CoreState& fast, const CoreState& ref, const std::string& what) {
  EXPECT_TRUE(fast.sbuf == ref.sbuf) << what << ": SBUF differs";
  EXPECT_TRUE(fast.psum == ref.psum) << what << ": PSUM differs";
  const reference::Stationary &a = fast.stationary, &b = ref.stationary;
  EXPECT_EQ(a.loaded, b.loaded) << what;
  EXPECT_EQ(a.dtype, b.dtype) << what;
  EXPECT_EQ(a.k, b.k) << what;
  EXPECT_EQ(a.m, b.m) << what;
  EXPECT_EQ(a.double_row, b.double_row) << what;
  EXPECT_EQ(a.bits, b.bits) << what;
  ASSERT_EQ(a.value.size(), b.value.size()) << what;
  if (!a.value.empty()) {
    EXPECT_EQ(0, std::memcmp(a.value.data(), b.value.data(), a.value.size() * sizeof(float)))
        << what << ": stationary values differ";
  }
}

// Runs `inst` on `fast` through TryFastPe (which must take it) and on `ref` through the
// reference, then compares the two states.
void RunBoth(const Instruction& inst, CoreState& fast, CoreState& ref, const std::string& what) {
  reference::VectorHbm hbm;
  StatusOr<bool> took = TryFastPe(isa::Engine::kPe, inst, fast, hbm);
  ASSERT_TRUE(took.ok()) << what << ": " << took.status().ToString();
  ASSERT_TRUE(*took) << what << ": the fast path declined " << isa::FormatInstruction(inst);
  Status st = reference::ExecuteDatapath(isa::Engine::kPe, inst, ref, hbm);
  ASSERT_TRUE(st.ok()) << what << ": " << st.ToString();
  ExpectSameState(fast, ref, what);
}

// Writes `count` elements of `dtype` converted from fp32 values at SBUF/PSUM partition p, byte b.
void PutValues(std::span<uint8_t> mem, uint32_t pitch, int p, uint32_t b, Dtype dtype,
               const std::vector<float>& v) {
  numerics::ConvertFromFp32(v.data(), dtype, mem.data() + size_t(p) * pitch + b, v.size());
}

std::vector<float> RandomValues(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    const int kind = int(rng() % 16);
    x = kind == 0 ? 0.0f : kind == 1 ? -0.0f : dist(rng);
  }
  return v;
}

Instruction LoadStationaryInst(const isa::AccessPattern& ap, bool double_row) {
  Instruction inst;
  inst.opcode = isa::Opcode::kLoadStationary;
  inst.ap[1] = ap;
  if (double_row) inst.flags |= isa::kFlagDoubleRow;
  return inst;
}

Instruction MultiplyMovingInst(const isa::AccessPattern& dst, const isa::AccessPattern& moving,
                               uint16_t flags) {
  Instruction inst;
  inst.opcode = isa::Opcode::kMultiplyMoving;
  inst.ap[0] = dst;
  inst.ap[1] = moving;
  inst.flags = flags;
  return inst;
}

TEST(FastPeTest, RandomMatmulsMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  std::mt19937 rng(20261130);
  const Dtype kInputs[] = {Dtype::kBfloat16, Dtype::kFloat16,  Dtype::kFloat8E4,
                           Dtype::kFloat32,  Dtype::kFloat32r, Dtype::kFloat8E5};
  for (int iter = 0; iter < 120; ++iter) {
    const Dtype in = kInputs[rng() % 6];
    const bool fp8 = isa::DtypeSize(in) == 1;
    const bool dr = fp8 && rng() % 2 == 0;
    const int rpk = dr ? 2 : 1;
    const int k = 1 + int(rng() % 128), m = 1 + int(rng() % 128), n = 1 + int(rng() % 512);
    const Dtype out = rng() % 2 ? Dtype::kFloat32 : Dtype::kBfloat16;
    const bool acc = rng() % 2 == 0;
    // A third of the bf16 cases run 2^-56..2^-71 times smaller: products and sums subnormal in
    // fp32, exact (the kernel's scaled form) or needing rounding (multiply-then-add).
    const int shift = in == Dtype::kBfloat16 && rng() % 3 == 0 ? -56 - int(rng() % 16) : 0;
    auto operand = [&](size_t count) {
      std::vector<float> v = RandomValues(rng, count);
      for (float& x : v) x = std::ldexp(x, shift);
      return v;
    };
    const int esize = isa::DtypeSize(in);
    const int kp = int(rng() % (129 - k));  // start partition of stationary and moving
    const int mp = int(rng() % (129 - m));  // start partition of dst
    const std::string what = "iter " + std::to_string(iter) + " K=" + std::to_string(k) +
                             " M=" + std::to_string(m) + " N=" + std::to_string(n) + " " +
                             std::string(isa::DtypeShortName(in)) + (dr ? " double_row" : "") +
                             " -> " + std::string(isa::DtypeShortName(out)) +
                             (acc ? " accumulate" : "") + " scale 2^" + std::to_string(shift);
    SCOPED_TRACE(what);

    CoreState base(limits);
    // Stationary [k, rpk*m] at SBUF byte 0; moving [k, rpk*n] at byte 8192, either one run per
    // row or rpk runs of n with a gap of `gap` elements (an outer dim that does not merge).
    const uint32_t mv_off = 8192;
    const int gap = int(rng() % 3) * int(1 + rng() % 8);
    for (int p = kp; p < kp + k; ++p) {
      PutValues(base.sbuf, limits.sbuf_bytes_per_partition, p, 0, in, operand(rpk * m));
      PutValues(base.sbuf, limits.sbuf_bytes_per_partition, p, mv_off, in,
                operand(rpk * (n + gap)));
    }
    isa::AccessPattern stationary = isa::SbufAp(kp, k, 0, in, {{uint16_t(rpk * m), 1}});
    isa::AccessPattern moving =
        gap == 0 ? isa::SbufAp(kp, k, mv_off, in, {{uint16_t(rpk * n), 1}})
                 : isa::SbufAp(kp, k, mv_off, in, {{uint16_t(rpk), n + gap}, {uint16_t(n), 1}});
    // dst: one run per row, or (n even) two halves in swapped order — non-mergeable dims.
    const uint32_t dst_off = 2048 * (rng() % 4);
    const int dst_esize = isa::DtypeSize(out);
    for (int p = mp; p < mp + m; ++p)
      PutValues(base.psum, limits.psum_bytes_per_partition, p, dst_off, out, RandomValues(rng, n));
    isa::AccessPattern dst = n % 2 == 0 && rng() % 3 == 0
                                 ? isa::PsumAp(mp, m, dst_off + (n / 2) * dst_esize, out,
                                               {{2, -(n / 2)}, {uint16_t(n / 2), 1}})
                                 : isa::PsumAp(mp, m, dst_off, out, {{uint16_t(n), 1}});
    (void)esize;

    CoreState ref = base;
    RunBoth(LoadStationaryInst(stationary, dr), base, ref, what + " load_stationary");
    uint16_t flags = (acc ? isa::kFlagAccumulate : 0) | (dr ? isa::kFlagDoubleRow : 0);
    RunBoth(MultiplyMovingInst(dst, moving, flags), base, ref, what + " multiply_moving");
    if (HasFailure()) return;
  }
}

// Every bf16 bit pattern (NaNs with payloads, infinities, subnormals) read as moving, multiplied
// by 1.0 and written to a bf16 dst; then random fp32 bit patterns (ties, NaN payloads, overflow)
// rounded to bf16 the same way: the fast conversions agree with numerics' bit for bit.
TEST(FastPeTest, ConversionsMatchBitForBit) {
  const isa::IsaLimits limits = Limits();
  CoreState fast(limits);
  PutValues(fast.sbuf, limits.sbuf_bytes_per_partition, 0, 0, Dtype::kBfloat16, {1.0f});
  for (uint32_t p = 0; p < 128; ++p)
    for (uint32_t j = 0; j < 512; ++j) {
      uint16_t bits = uint16_t(p * 512 + j);
      std::memcpy(fast.SbufAt(int(p), 64 + 2 * j), &bits, 2);
    }
  CoreState ref = fast;
  // All 65536 patterns into the stationary buffer, whose fp32 values are compared bit for bit.
  RunBoth(LoadStationaryInst(isa::SbufAp(0, 128, 64, Dtype::kBfloat16, {{512, 1}}), false), fast,
          ref, "load every bf16 pattern");
  RunBoth(LoadStationaryInst(isa::SbufAp(0, 1, 0, Dtype::kBfloat16, {{1, 1}}), false), fast, ref,
          "load 1.0");
  for (int p = 0; p < 128; ++p)
    RunBoth(MultiplyMovingInst(isa::PsumAp(0, 1, 0, Dtype::kBfloat16, {{512, 1}}),
                               isa::SbufAp(p, 1, 64, Dtype::kBfloat16, {{512, 1}}), 0),
            fast, ref, "bf16 patterns from partition " + std::to_string(p));

  std::mt19937 rng(7);
  PutValues(fast.sbuf, limits.sbuf_bytes_per_partition, 0, 4096, Dtype::kFloat32, {1.0f});
  for (uint32_t j = 0; j < 512; ++j) {
    uint32_t bits = rng();
    if (j % 4 == 0) bits = (bits & 0xffff0000u) | 0x8000u;       // exact ties
    if (j % 16 == 1) bits = 0x7f800000u | (bits & 0x807fffffu);  // NaN/inf with payloads
    std::memcpy(fast.SbufAt(1, 8192 + 4 * j), &bits, 4);
  }
  ref = fast;
  RunBoth(LoadStationaryInst(isa::SbufAp(0, 1, 4096, Dtype::kFloat32, {{1, 1}}), false), fast, ref,
          "load fp32 1.0");
  RunBoth(MultiplyMovingInst(isa::PsumAp(0, 1, 0, Dtype::kBfloat16, {{512, 1}}),
                             isa::SbufAp(1, 1, 8192, Dtype::kFloat32, {{512, 1}}), 0),
          fast, ref, "fp32 -> bf16 RNE");
}

// Infinities, -0.0, subnormals and NaNs among the operands, with accumulation. Each output sees
// at most one NaN payload (x86 returns the first operand's NaN when both are NaN, and the
// compiler may order a commutative operation either way, so two payloads are not comparable):
// a payload NaN in moving column 9, inf - inf (the default NaN) in column 5, a payload NaN in
// the PSUM at (0, 0).
TEST(FastPeTest, SpecialValuesMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  CoreState fast(limits);
  std::mt19937 rng(11);
  for (int p = 0; p < 16; ++p) {
    std::vector<float> s = RandomValues(rng, 16), mv = RandomValues(rng, 40);
    if (p == 3) mv[5] = INFINITY;
    if (p == 4) mv[5] = -INFINITY;
    if (p == 7) mv[9] = std::nanf("0x1234");
    if (p == 8) mv[10] = 1e-42f;  // subnormal
    PutValues(fast.sbuf, limits.sbuf_bytes_per_partition, p, 0, Dtype::kFloat32, s);
    PutValues(fast.sbuf, limits.sbuf_bytes_per_partition, p, 256, Dtype::kFloat32, mv);
  }
  for (int p = 0; p < 16; ++p) {
    std::vector<float> d = RandomValues(rng, 40);
    if (p == 0) d[0] = -std::nanf("0x55");
    PutValues(fast.psum, limits.psum_bytes_per_partition, p, 0, Dtype::kFloat32, d);
  }
  CoreState ref = fast;
  RunBoth(LoadStationaryInst(isa::SbufAp(0, 16, 0, Dtype::kFloat32, {{16, 1}}), false), fast, ref,
          "load");
  RunBoth(
      MultiplyMovingInst(isa::PsumAp(0, 16, 0, Dtype::kFloat32, {{40, 1}}),
                         isa::SbufAp(0, 16, 256, Dtype::kFloat32, {{40, 1}}), isa::kFlagAccumulate),
      fast, ref, "specials");
  uint32_t bits;
  std::memcpy(&bits, fast.PsumAt(2, 5 * 4), 4);
  EXPECT_EQ(bits & 0x7f800000u, 0x7f800000u) << "column 5 should be inf or NaN";
}

// A dst overlapping its own moving operand (SBUF) still sees every read before any write.
TEST(FastPeTest, OverlappingDstAndMovingMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  CoreState fast(limits);
  std::mt19937 rng(5);
  for (int p = 0; p < 8; ++p)
    PutValues(fast.sbuf, limits.sbuf_bytes_per_partition, p, 0, Dtype::kFloat32,
              RandomValues(rng, 64));
  CoreState ref = fast;
  RunBoth(LoadStationaryInst(isa::SbufAp(0, 8, 0, Dtype::kFloat32, {{8, 1}}), false), fast, ref,
          "load");
  RunBoth(
      MultiplyMovingInst(isa::SbufAp(0, 8, 16, Dtype::kFloat32, {{32, 1}}),
                         isa::SbufAp(0, 8, 32, Dtype::kFloat32, {{32, 1}}), isa::kFlagAccumulate),
      fast, ref, "overlap");
}

TEST(FastPeTest, TransposesMatchTheReference) {
  const isa::IsaLimits limits = Limits();
  std::mt19937 rng(3);
  for (Dtype d : {Dtype::kBfloat16, Dtype::kFloat32, Dtype::kFloat8E4}) {
    CoreState fast(limits);
    const int k = 1 + int(rng() % 128), m = 1 + int(rng() % 128);
    for (int p = 0; p < k; ++p)
      PutValues(fast.sbuf, limits.sbuf_bytes_per_partition, p, 0, d, RandomValues(rng, m));
    CoreState ref = fast;
    const std::string name(isa::DtypeShortName(d));
    // nc_transpose in [k, m] -> dst [m, k] (and the stationary buffer then holds `in`).
    Instruction t;
    t.opcode = isa::Opcode::kNcTranspose;
    t.ap[0] = isa::PsumAp(0, m, 0, d, {{uint16_t(k), 1}});
    t.ap[1] = isa::SbufAp(0, k, 0, d, {{uint16_t(m), 1}});
    RunBoth(t, fast, ref, "nc_transpose " + name);
    if (d == Dtype::kFloat8E4) continue;  // multiply_moving transpose is not for fp8
    // multiply_moving transpose: dst [m, k] = stationary^T, raw bits or converted to fp32.
    RunBoth(LoadStationaryInst(isa::SbufAp(0, k, 0, d, {{uint16_t(m), 1}}), false), fast, ref,
            "load " + name);
    for (Dtype out : {d, Dtype::kFloat32})
      RunBoth(
          MultiplyMovingInst(isa::PsumAp(0, m, 4096, out, {{uint16_t(k), 1}}),
                             isa::SbufAp(0, k, 1024, d, {{uint16_t(k), 1}}), isa::kFlagTranspose),
          fast, ref, "transpose " + name);
  }
}

// Declined instructions return false and leave every byte as it was; where the reference
// reports an error, it still does (the fallback owns the message).
TEST(FastPeTest, UnsupportedCasesAreDeclinedUntouched) {
  const isa::IsaLimits limits = Limits();
  CoreState s(limits);
  std::mt19937 rng(9);
  for (int p = 0; p < 4; ++p)
    PutValues(s.sbuf, limits.sbuf_bytes_per_partition, p, 0, Dtype::kBfloat16,
              RandomValues(rng, 64));
  const isa::AccessPattern dst = isa::PsumAp(0, 4, 0, Dtype::kFloat32, {{8, 1}});
  const isa::AccessPattern moving = isa::SbufAp(0, 4, 64, Dtype::kBfloat16, {{8, 1}});
  reference::VectorHbm hbm;
  hbm.vars[1] = std::vector<uint8_t>(4096, 0);

  struct Case {
    std::string name;
    Instruction inst;
    bool reference_fails;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"multiply_moving before load_stationary", MultiplyMovingInst(dst, moving, 0), true});
  isa::AccessPattern reg = isa::SbufAp(0, 4, 0, Dtype::kBfloat16, {{4, 1}});
  reg.offset_reg = 3;
  reg.reg_stride_bytes = 2;
  cases.push_back({"register offset", LoadStationaryInst(reg, false), false});
  cases.push_back({"HBM operand",
                   LoadStationaryInst(isa::HbmAp(1, 0, Dtype::kBfloat16, 4, 8, {{4, 1}}), false),
                   false});
  cases.push_back({"innermost stride 2",
                   LoadStationaryInst(isa::SbufAp(0, 4, 0, Dtype::kBfloat16, {{4, 2}}), false),
                   false});
  cases.push_back({"integer dtype",
                   LoadStationaryInst(isa::SbufAp(0, 4, 0, Dtype::kInt8, {{4, 1}}), false), false});
  cases.push_back({"out of bounds",
                   LoadStationaryInst(isa::SbufAp(0, 4, limits.sbuf_bytes_per_partition - 4,
                                                  Dtype::kBfloat16, {{4, 1}}),
                                      false),
                   true});
  cases.push_back({"partitions out of range",
                   LoadStationaryInst(isa::SbufAp(126, 4, 0, Dtype::kBfloat16, {{4, 1}}), false),
                   true});
  cases.push_back({"too many runs",
                   LoadStationaryInst(
                       isa::SbufAp(0, 4, 0, Dtype::kBfloat16, {{128, 0}, {128, 0}, {2, 1}}), false),
                   false});
  Instruction other;
  other.opcode = isa::Opcode::kTensorCopy;
  other.ap[0] = dst;
  other.ap[1] = moving;
  cases.push_back({"not a PE opcode", other, false});

  for (const Case& c : cases) {
    CoreState before = s;
    StatusOr<bool> took = TryFastPe(isa::Engine::kPe, c.inst, s, hbm);
    ASSERT_TRUE(took.ok()) << c.name;
    EXPECT_FALSE(*took) << c.name;
    ExpectSameState(s, before, c.name);
    if (c.reference_fails) {
      CoreState copy = s;
      EXPECT_FALSE(reference::ExecuteDatapath(isa::Engine::kPe, c.inst, copy, hbm).ok()) << c.name;
    }
  }

  // Shape errors after a load: K mismatch and dst of the wrong shape.
  ASSERT_TRUE(*TryFastPe(
      isa::Engine::kPe, LoadStationaryInst(isa::SbufAp(0, 4, 0, Dtype::kBfloat16, {{4, 1}}), false),
      s, hbm));
  const Instruction bad_k =
      MultiplyMovingInst(isa::PsumAp(0, 4, 0, Dtype::kFloat32, {{8, 1}}),
                         isa::SbufAp(0, 3, 64, Dtype::kBfloat16, {{8, 1}}), 0);
  const Instruction bad_dst =
      MultiplyMovingInst(isa::PsumAp(0, 4, 0, Dtype::kFloat32, {{7, 1}}), moving, 0);
  const Instruction bad_class =
      MultiplyMovingInst(dst, isa::SbufAp(0, 4, 64, Dtype::kFloat32, {{8, 1}}), 0);
  for (const Instruction* inst : {&bad_k, &bad_dst, &bad_class}) {
    CoreState before = s;
    StatusOr<bool> took = TryFastPe(isa::Engine::kPe, *inst, s, hbm);
    ASSERT_TRUE(took.ok());
    EXPECT_FALSE(*took) << isa::FormatInstruction(*inst);
    ExpectSameState(s, before, isa::FormatInstruction(*inst));
    EXPECT_FALSE(reference::ExecuteDatapath(isa::Engine::kPe, *inst, before, hbm).ok());
  }
}

}  // namespace
}  // namespace trnsim::simulator::core
