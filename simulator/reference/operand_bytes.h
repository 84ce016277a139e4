// Operand bytes: an operand's elements as raw bytes in access-pattern order (docs/isa.md §4) —
// what the chip model hands to and takes from the collective rendezvous (a `collective`
// instruction moves bytes, it does not convert them).
//
// ResolveOperand binds `ap` as the instruction issuing now would (engine `engine`'s register
// value folded into the offset, every byte bounds-checked against its memory or variable) and
// returns the same pattern without a register, so it can be read or written later, after the
// register has changed. ReadOperandBytes / WriteOperandBytes take such a pattern (or any without
// a register offset). Errors: NRT_INVALID naming the pattern (out of bounds, unknown var_id,
// too large for the interpreter, a byte count that does not match on write); never UB.
//
// Thread safety: none; as the interpreter.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status_or.h"
#include "simulator/isa/access_pattern.h"
#include "simulator/isa/engine.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::reference {

StatusOr<isa::AccessPattern> ResolveOperand(isa::Engine engine, const isa::AccessPattern& ap,
                                            CoreState& state, HbmView& hbm);

// Elements() x DtypeSize bytes; element k at bytes [k·size, (k+1)·size), little-endian.
StatusOr<std::vector<uint8_t>> ReadOperandBytes(const isa::AccessPattern& ap, CoreState& state,
                                                HbmView& hbm);

// The inverse: `bytes` must be exactly Elements() x DtypeSize long.
Status WriteOperandBytes(const isa::AccessPattern& ap, std::span<const uint8_t> bytes,
                         CoreState& state, HbmView& hbm);

}  // namespace trnsim::reference
