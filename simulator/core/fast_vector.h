// The element-wise fast path of the ACT, DVE and POOL datapaths: tensor_copy, tensor_scalar,
// tensor_tensor, activation / activation_reduce (every function, every reduce_cmd), tensor_reduce
// (any number of inner axes), memset, reciprocal and scalar_tensor_tensor executed on whole runs
// of elements instead of the reference interpreter's per-element Operand reads and writes
// (simulator/reference/datapath.cc, vector.cc). The chip model calls it first and falls back to
// reference::ExecuteDatapath when it declines.
//
// Contract: when TryFastVector returns true, the instruction's effect has been applied and every
// byte of CoreState (SBUF, PSUM, the ACT accumulators) is exactly what reference::ExecuteDatapath
// would have produced from the same state. The math is the reference's own, per element and in
// its order: operands convert to fp32 with numerics::ConvertToFp32, ALU steps go through
// numerics::ApplyAlu (add, subtract and multiply inlined as the same single IEEE operation),
// activations through numerics::ApplyActivation on `in * scale` then `+ bias`, reductions and
// the accumulator sums run sequentially with the reference's fp32 accumulator, and results
// convert back with the dst dtype's RNE conversion (numerics::ConvertFromFp32, the function
// Operand::WriteF32 applies; the reference never rounds stochastically). Same-dtype tensor_copy
// moves raw bits. Every input of the instruction is read before anything is written, so
// overlapping and in-place operands give the reference's answer; dst is written in element order,
// so a dst that touches a byte twice keeps the later element, as in the reference.
//
// It returns false, having touched nothing, for anything it does not handle: other engines or
// opcodes, HBM or pattern operands, register offsets, an innermost free stride other than 1,
// integer dtypes on any operand, bitvec ALU ops where the reference switches to its integer path,
// a per-row scalar (or reduce_res) operand with fewer rows than the input, and every case the
// reference reports as an error (shape mismatches, out-of-bounds accesses, missing operands) —
// the caller's fallback then produces the reference's exact error message. It never returns a
// non-OK Status today; the StatusOr leaves room for errors only the fast path could detect.
//
// Thread safety: reentrant; scratch buffers are thread-local. The caller serialises calls that
// share a CoreState.
#pragma once

#include "common/status_or.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::simulator::core {

StatusOr<bool> TryFastVector(isa::Engine engine, const isa::Instruction& inst,
                             reference::CoreState& s, reference::HbmView& hbm);

}  // namespace trnsim::simulator::core
