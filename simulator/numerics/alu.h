// The ALU operators of the ACT/DVE/POOL datapaths (docs/isa.md §6.3, docs/numerics.md §5):
// the fp32 path, the bitvec path on raw 32-bit integers, POOL's exact wrapping int32 path, and
// reduction identities. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "simulator/isa/dtype.h"
#include "simulator/isa/ops.h"

namespace trnsim::numerics {

// x op y in fp32 (x the tensor-side input, y the other operand; unary ops ignore y). Bypass gives
// x; comparisons and logical ops give 1.0f or 0.0f; maximum, minimum, abs_max, abs_min and relu
// give NaN when an input is NaN. A bitvec op is applied to the operands' raw fp32 bits
// (ApplyAluBits) — validation never lets one reach a float datapath.
float ApplyAlu(isa::AluOp op, float x, float y);

// Bitvec ops (and bypass) on raw 32-bit integers: and, or, xor, invert (~x), left_shift
// (x << (y & 31)), right_shift (logical x >> (y & 31)). Any other op aborts.
uint32_t ApplyAluBits(isa::AluOp op, uint32_t x, uint32_t y);

// POOL's exact integer path (docs/isa.md §6.1): add, subtract and multiply wrap modulo 2^32;
// maximum, minimum and the comparisons compare as int32 when `is_signed`, else as uint32;
// comparisons give 1 or 0; bypass gives x; bitvec ops as ApplyAluBits. Any other op aborts.
uint32_t ApplyAluInt(isa::AluOp op, uint32_t x, uint32_t y, bool is_signed);

// The 32 bits a bitvec op sees for an element of an integer dtype: sign-extended (signed types)
// or zero-extended (unsigned) from `raw`, which holds the element in its low bytes.
uint32_t ExtendIntBits(isa::Dtype dtype, uint64_t raw);

// The value a reduction with `op` starts from, so that reducing [] gives it and reducing [x]
// gives x: add, logical_or, logical_xor 0; multiply, logical_and 1; maximum -inf; minimum +inf.
// nullopt for ops without one (subtract and average seed with the first element instead).
std::optional<float> AluIdentity(isa::AluOp op);
// The same for the bitvec reductions: bitwise_and all ones, bitwise_or and bitwise_xor 0.
std::optional<uint32_t> AluIdentityBits(isa::AluOp op);

}  // namespace trnsim::numerics
