// The ACT/DVE/POOL element-wise fast path (fast_vector.h).
//
// Where the time goes in the reference: every element is one Operand::ReadF32 or WriteF32 —
// a div/mod walk over the free dims to find its address, then a one-element call into
// numerics' conversion switch. Here each operand is bound once as rows of contiguous runs,
// whole runs convert in one bulk numerics call (the same functions, so the same bits), and the
// per-element work left is the math itself. Operands are gathered into flat fp32 buffers in the
// reference's element order (row-major over rows x free), which also makes every read happen
// before the first write, exactly as the reference's two-phase loops do.
//
// The operand binding mirrors simulator/core/fast_pe.cc's (the same checks as
// reference::Operand::Bind, so a bind the reference would reject is declined here).
#include "simulator/core/fast_vector.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "simulator/core/row_view.h"
#include "simulator/numerics/activation.h"
#include "simulator/numerics/alu.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::simulator::core {
namespace {

using isa::AccessPattern;
using isa::AluOp;
using isa::Dtype;
using isa::Instruction;
using isa::Memory;
using isa::Opcode;
using reference::CoreState;

// Operands larger than this are left to the reference rather than buffered.
constexpr uint64_t kMaxElements = uint64_t{1} << 26;

// Flat row-major fp32 copy of the operand (Operand::ReadF32 of every element, in order): one
// strided bulk conversion per run position, all rows at once.
void GatherF32(const RowView& v, float* out) {
  for (size_t i = 0; i < v.runs.size(); ++i)
    numerics::ConvertToFp32Rows(v.dtype, v.Run(0, i), v.pitch, out + i * v.run, v.free, v.rows,
                                v.run);
}

// Writes flat row-major fp32 values in element order (a later element wins on overlap). Runs of
// different rows never overlap (each lies in its own partition), so converting run position by
// position, all rows at once, leaves every byte as the element-order walk does.
void ScatterF32(const RowView& v, const float* in) {
  for (size_t i = 0; i < v.runs.size(); ++i)
    numerics::ConvertFromFp32Rows(in + i * v.run, v.free, v.dtype, v.Run(0, i), v.pitch, v.rows,
                                  v.run);
}

// The same for raw element bytes.
void GatherRaw(const RowView& v, uint8_t* out) {
  const uint64_t run_bytes = v.run * v.esize;
  PrefetchRow(v, 0);
  for (uint32_t r = 0; r < v.rows; ++r) {
    PrefetchRow(v, r + 1);
    for (size_t i = 0; i < v.runs.size(); ++i, out += run_bytes)
      std::memcpy(out, v.Run(r, i), run_bytes);
  }
}

void ScatterRaw(const RowView& v, const uint8_t* in) {
  const uint64_t run_bytes = v.run * v.esize;
  for (uint32_t r = 0; r < v.rows; ++r)
    for (size_t i = 0; i < v.runs.size(); ++i, in += run_bytes)
      std::memmove(v.Run(r, i), in, run_bytes);
}

struct Scratch {
  std::vector<float> x, y, col0, col1;
  std::vector<uint8_t> raw;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The reference's per-row scalar (ScalarF): element 0 of row r of the operand in slot `slot`
// for each of the first `rows` rows, or `imm` when the slot is empty. False (decline) when the
// operand cannot be bound here or has fewer rows than the reference will index.
bool ScalarColumn(const Instruction& inst, int slot, uint32_t rows, float imm, CoreState& s,
                  std::vector<float>& out) {
  out.resize(rows);
  if (!inst.ap[slot].present()) {
    std::fill(out.begin(), out.end(), imm);
    return true;
  }
  RowView v;
  if (!MakeRowView(inst.ap[slot], s, kMaxElements, v) || v.rows < rows) return false;
  numerics::ConvertToFp32Rows(v.dtype, v.row0, v.pitch, out.data(), 1, rows, 1);
  return true;
}

bool IsBitvec(AluOp op) { return isa::AluOpClass(op) == isa::AluClass::kBitvec; }

// out[i] = f(a[i] or a[0], b[i] or b[0]); `out` may alias a vector input.
template <bool kAVec, bool kBVec, typename F>
void Map(F f, const float* a, const float* b, float* out, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) out[i] = f(kAVec ? a[i] : a[0], kBVec ? b[i] : b[0]);
}
template <typename F>
void MapAny(F f, const float* a, bool a_vec, const float* b, bool b_vec, float* out, uint64_t n) {
  if (a_vec && b_vec) return Map<true, true>(f, a, b, out, n);
  if (a_vec) return Map<true, false>(f, a, b, out, n);
  if (b_vec) return Map<false, true>(f, a, b, out, n);
  return Map<false, false>(f, a, b, out, n);
}

// Whether x op y, with op a commutative + or *, may give a different NaN depending on operand
// order: both are NaNs that differ beyond the quiet bit. x86 returns the first source operand's
// NaN, quieted, and for a commutative op the compiler may put either operand first, so only
// ApplyAlu's own compiled code (or the reference's inline expression) is sure to give its
// answer. Identical payloads — every default NaN of 0/0, inf-inf, sqrt(-1) — are unambiguous.
inline bool AmbiguousNaNs(float x, float y) {
  const uint32_t diff = std::bit_cast<uint32_t>(x) ^ std::bit_cast<uint32_t>(y);
  return (x != x) & (y != y) & ((diff & ~uint32_t{0x00400000}) != 0);
}

// out[i] = f(x, y) for an inlined IEEE op, x = a[i] or a[0], y = b[i] or b[0], in blocks: each
// block is computed into a buffer that notes whether any lane came out NaN; only then are the NaN
// lanes recomputed by numerics::ApplyAlu from the inputs, which the buffer leaves intact until
// the block is stored (`out` may be `a` or `b`). Every lane an ambiguous NaN pair could reach is a
// NaN result, so this gives ApplyAlu's answer everywhere with no pass over the inputs first.
template <bool kAVec, bool kBVec, typename F>
void MapNaNFixup(AluOp op, F f, const float* a, const float* b, float* out, uint64_t n) {
  constexpr uint64_t kBlock = 256;
  float block[kBlock];
  for (uint64_t s = 0; s < n; s += kBlock) {
    const uint64_t m = n - s < kBlock ? n - s : kBlock;
    const float* as = kAVec ? a + s : a;
    const float* bs = kBVec ? b + s : b;
    int32_t any_nan = 0;  // an int mask, not a bool: GCC vectorises the OR-reduction of ints
    for (uint64_t i = 0; i < m; ++i) {
      const float r = f(kAVec ? as[i] : as[0], kBVec ? bs[i] : bs[0]);
      block[i] = r;
      any_nan |= r != r ? -1 : 0;
    }
    if (any_nan) {
      for (uint64_t i = 0; i < m; ++i)
        if (block[i] != block[i])
          block[i] = numerics::ApplyAlu(op, kAVec ? as[i] : as[0], kBVec ? bs[i] : bs[0]);
    }
    std::memcpy(out + s, block, m * sizeof(float));
  }
}
template <typename F>
void MapNaNFixupAny(AluOp op, F f, const float* a, bool a_vec, const float* b, bool b_vec,
                    float* out, uint64_t n) {
  if (a_vec && b_vec) return MapNaNFixup<true, true>(op, f, a, b, out, n);
  if (a_vec) return MapNaNFixup<true, false>(op, f, a, b, out, n);
  if (b_vec) return MapNaNFixup<false, true>(op, f, a, b, out, n);
  return MapNaNFixup<false, false>(op, f, a, b, out, n);
}

// out[i] = numerics::ApplyAlu(op, a, b) element-wise, `a`/`b` a vector or one broadcast value.
// Bypass, add, subtract and multiply are the single IEEE operation ApplyAlu performs, inlined so
// the loop vectorises, with NaN results redone by ApplyAlu (MapNaNFixup); every other op calls
// ApplyAlu.
void AluSpan(AluOp op, const float* a, bool a_vec, const float* b, bool b_vec, float* out,
             uint64_t n) {
  switch (op) {
    case AluOp::kBypass:
      return MapAny([](float x, float) { return x; }, a, a_vec, b, b_vec, out, n);
    case AluOp::kAdd:
      return MapNaNFixupAny(
          op, [](float x, float y) { return x + y; }, a, a_vec, b, b_vec, out, n);
    case AluOp::kSubtract:
      return MapNaNFixupAny(
          op, [](float x, float y) { return x - y; }, a, a_vec, b, b_vec, out, n);
    case AluOp::kMultiply:
      return MapNaNFixupAny(
          op, [](float x, float y) { return x * y; }, a, a_vec, b, b_vec, out, n);
    default:
      return MapAny([op](float x, float y) { return numerics::ApplyAlu(op, x, y); }, a, a_vec, b,
                    b_vec, out, n);
  }
}

// Applies `op` between a row of x (in place) and its scalar, operand order as `reverse` says.
void AluRowScalar(AluOp op, bool reverse, float* x, const float* scalar, uint64_t n) {
  reverse ? AluSpan(op, scalar, false, x, true, x, n) : AluSpan(op, x, true, scalar, false, x, n);
}

// ---- the instructions ----------------------------------------------------------------------

bool TensorCopy(const Instruction& inst, CoreState& s) {
  RowView dst, in;
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxElements, in))
    return false;
  if (dst.elements() != in.elements()) return false;
  Scratch& sc = ThreadScratch();
  if (dst.dtype == in.dtype) {  // the reference's raw-bits copy
    sc.raw.resize(in.elements() * in.esize);
    GatherRaw(in, sc.raw.data());
    ScatterRaw(dst, sc.raw.data());
  } else {
    sc.x.resize(in.elements());
    GatherF32(in, sc.x.data());
    ScatterF32(dst, sc.x.data());
  }
  return true;
}

// tensor_scalar and tensor_tensor on the reference's fp32 path.
bool Elementwise(const Instruction& inst, CoreState& s) {
  const bool tt = inst.opcode == Opcode::kTensorTensor;
  RowView dst, in, opnd[2];
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxElements, in))
    return false;
  for (int j = 0; j < 2; ++j)
    if (inst.ap[2 + j].present() && !MakeRowView(inst.ap[2 + j], s, kMaxElements, opnd[j]))
      return false;
  const uint64_t n = in.elements();
  if (dst.elements() != n) return false;
  if (tt && (!inst.ap[2].present() || opnd[0].elements() != n)) return false;
  const AluOp op0 = inst.op0, op1 = tt ? AluOp::kBypass : inst.op1;
  // Bitvec ops take the reference's integer path; all-float operands never take POOL's exact one.
  if (IsBitvec(op0) || IsBitvec(op1)) return false;
  const bool rev0 = inst.has_flag(isa::kFlagReverse0), rev1 = inst.has_flag(isa::kFlagReverse1);
  Scratch& sc = ThreadScratch();
  if (!tt && (!ScalarColumn(inst, 2, in.rows, inst.imm_f32(0), s, sc.col0) ||
              !ScalarColumn(inst, 3, in.rows, inst.imm_f32(1), s, sc.col1)))
    return false;
  sc.x.resize(n);
  GatherF32(in, sc.x.data());
  float* x = sc.x.data();
  if (tt) {
    sc.y.resize(n);
    GatherF32(opnd[0], sc.y.data());
    if (op0 != AluOp::kBypass)
      rev0 ? AluSpan(op0, sc.y.data(), true, x, true, x, n)
           : AluSpan(op0, x, true, sc.y.data(), true, x, n);
  } else {
    const uint64_t f = in.free;
    for (uint32_t r = 0; r < in.rows; ++r) {
      if (op0 != AluOp::kBypass) AluRowScalar(op0, rev0, x + r * f, &sc.col0[r], f);
      if (op1 != AluOp::kBypass) AluRowScalar(op1, rev1, x + r * f, &sc.col1[r], f);
    }
  }
  ScatterF32(dst, x);
  return true;
}

bool Memset(const Instruction& inst, CoreState& s) {
  RowView dst;
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst))
    return false;  // a float dst: the reference's WriteF32
  const float v = isa::ImmIsInteger(inst, 0) ? float(inst.imm_i32(0)) : inst.imm_f32(0);
  Scratch& sc = ThreadScratch();
  sc.x.assign(dst.elements(), v);
  ScatterF32(dst, sc.x.data());
  return true;
}

// activation and activation_reduce.
bool Activation(const Instruction& inst, CoreState& s) {
  RowView dst, in, res;
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxElements, in))
    return false;
  Scratch& sc = ThreadScratch();
  if (!ScalarColumn(inst, 2, in.rows, inst.imm_f32(1), s, sc.col1) ||  // bias
      !ScalarColumn(inst, 3, in.rows, inst.imm_f32(0), s, sc.col0))    // scale
    return false;
  const bool with_res = inst.opcode == Opcode::kActivationReduce;
  if (with_res && (!MakeRowView(inst.ap[4], s, kMaxElements, res) || res.rows < in.rows))
    return false;
  if (dst.elements() != in.elements()) return false;
  // `in * scale + bias` is the reference's inline arithmetic (datapath.cc), not a numerics call:
  // a NaN scale or bias could meet a NaN input, where the payload kept depends on codegen.
  for (uint32_t r = 0; r < in.rows; ++r)
    if (sc.col0[r] != sc.col0[r] || sc.col1[r] != sc.col1[r]) return false;
  const isa::ReduceCmd cmd = with_res ? isa::ReduceCmd::kResetReduce : inst.reduce_cmd;
  const bool reduce = cmd == isa::ReduceCmd::kReduce || cmd == isa::ReduceCmd::kResetReduce;
  const float alpha = inst.imm_f32(2);
  const uint64_t f = in.free;
  sc.x.resize(in.elements());
  GatherF32(in, sc.x.data());
  float* y = sc.x.data();
  for (uint32_t r = 0; r < in.rows; ++r) {
    const float scale = sc.col0[r], bias = sc.col1[r];
    float* row = y + r * f;
    for (uint64_t i = 0; i < f; ++i) {
      float pre = row[i] * scale;
      pre = pre + bias;
      row[i] = numerics::ApplyActivation(inst.func, pre, alpha);
    }
  }
  // The accumulators' new values, before anything is written: the inline sequential sum meets
  // the same NaN-pair ambiguity, so a sum adding two different NaNs is left to the reference.
  sc.y.resize(in.rows);
  for (uint32_t r = 0; r < in.rows; ++r) {
    float acc = s.acc[(in.first_partition + r) % 128];
    if (cmd == isa::ReduceCmd::kReset) acc = 0.0f;
    if (reduce) {
      float sum = cmd == isa::ReduceCmd::kReduce ? acc : 0.0f;
      const float* row = y + r * f;
      for (uint64_t i = 0; i < f; ++i) {
        if (AmbiguousNaNs(sum, row[i])) return false;
        sum = sum + row[i];
      }
      acc = sum;
    }
    sc.y[r] = acc;
  }
  ScatterF32(dst, y);
  for (uint32_t r = 0; r < in.rows; ++r) {
    s.acc[(in.first_partition + r) % 128] = sc.y[r];
    if (with_res) numerics::ConvertFromFp32(&sc.y[r], res.dtype, res.row0 + r * res.pitch, 1);
  }
  return true;
}

bool Reciprocal(const Instruction& inst, CoreState& s) {
  RowView dst, in;
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxElements, in))
    return false;
  if (dst.elements() != in.elements()) return false;
  Scratch& sc = ThreadScratch();
  sc.x.resize(in.elements());
  GatherF32(in, sc.x.data());
  for (float& v : sc.x) v = 1.0f / v;
  ScatterF32(dst, sc.x.data());
  return true;
}

bool TensorReduce(const Instruction& inst, CoreState& s) {
  RowView dst, in;
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxElements, in))
    return false;
  if (inst.count < 1 || inst.count > inst.ap[1].num_dims) return false;
  const uint64_t g = inst.ap[1].InnerElements(inst.count);
  if (dst.rows != in.rows || dst.elements() * g != in.elements()) return false;
  if (IsBitvec(inst.op0)) return false;  // the reference's integer path
  Scratch& sc = ThreadScratch();
  sc.x.resize(in.elements());
  GatherF32(in, sc.x.data());
  sc.y.resize(dst.elements());
  const bool negate = inst.has_flag(isa::kFlagNegate);
  const AluOp op = inst.op0;
  for (uint64_t o = 0; o < dst.elements(); ++o) {
    const float* group = sc.x.data() + o * g;
    float acc = group[0];  // sequential from the first element, as ReduceF
    if (op == AluOp::kAdd) {
      for (uint64_t i = 1; i < g; ++i) {
        const float x = group[i];
        acc = AmbiguousNaNs(acc, x) ? numerics::ApplyAlu(op, acc, x) : acc + x;
      }
    } else {
      for (uint64_t i = 1; i < g; ++i) acc = numerics::ApplyAlu(op, acc, group[i]);
    }
    sc.y[o] = negate ? -acc : acc;
  }
  ScatterF32(dst, sc.y.data());
  return true;
}

// scalar_tensor_tensor: dst = (data op0 scalar) op1 tensor, each step optionally reversed.
bool ScalarTensorTensor(const Instruction& inst, CoreState& s) {
  RowView dst, data, tensor;
  if (!MakeRowView(inst.ap[0], s, kMaxElements, dst) ||
      !MakeRowView(inst.ap[1], s, kMaxElements, data))
    return false;
  if (!inst.ap[3].present() || !MakeRowView(inst.ap[3], s, kMaxElements, tensor)) return false;
  const uint64_t n = data.elements(), f = data.free;
  if (dst.elements() != n || tensor.elements() != n) return false;
  Scratch& sc = ThreadScratch();
  if (!ScalarColumn(inst, 2, data.rows, inst.imm_f32(0), s, sc.col0)) return false;
  const bool rev0 = inst.has_flag(isa::kFlagReverse0), rev1 = inst.has_flag(isa::kFlagReverse1);
  sc.x.resize(n);
  sc.y.resize(n);
  GatherF32(data, sc.x.data());
  GatherF32(tensor, sc.y.data());
  for (uint32_t r = 0; r < data.rows; ++r) {
    float* x = sc.x.data() + r * f;
    const float* t = sc.y.data() + r * f;
    // No bypass shortcut here: the reference applies op0 and op1 as given.
    AluRowScalar(inst.op0, rev0, x, &sc.col0[r], f);
    rev1 ? AluSpan(inst.op1, t, true, x, true, x, f) : AluSpan(inst.op1, x, true, t, true, x, f);
  }
  ScatterF32(dst, sc.x.data());
  return true;
}

}  // namespace

StatusOr<bool> TryFastVector(isa::Engine engine, const Instruction& inst, CoreState& s,
                             reference::HbmView& hbm) {
  (void)hbm;  // HBM operands are declined
  if (engine != isa::Engine::kAct && engine != isa::Engine::kDve && engine != isa::Engine::kPool)
    return false;
  switch (inst.opcode) {
    case Opcode::kTensorCopy:
      return TensorCopy(inst, s);
    case Opcode::kTensorScalar:
    case Opcode::kTensorTensor:
      return Elementwise(inst, s);
    case Opcode::kMemset:
      return Memset(inst, s);
    case Opcode::kActivation:
    case Opcode::kActivationReduce:
      return Activation(inst, s);
    case Opcode::kReciprocal:
      return Reciprocal(inst, s);
    case Opcode::kTensorReduce:
      return TensorReduce(inst, s);
    case Opcode::kScalarTensorTensor:
      return ScalarTensorTensor(inst, s);
    default:
      return false;
  }
}

}  // namespace trnsim::simulator::core
