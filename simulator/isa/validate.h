// Validation of instructions against the ISA rules and a chip's limits (docs/isa.md §9). The
// decoder runs ValidateProgram on every stream; encoders and the kernel builder may call the
// finer entry points. Every failure is NRT_INVALID with a message naming the instruction index
// (when known), the mnemonic and the rule, e.g.
//   "instruction 7 (multiply_moving): moving free size 1024 > 512 (one PSUM bank of fp32)".
#pragma once

#include <span>

#include "common/status.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/packed_program.h"

namespace trnsim::isa {

// Every rule that does not depend on the engine or the rest of the stream.
Status Validate(const Instruction& inst, const IsaLimits& limits);
// Validate() plus the engine rules (opcode legal on `engine`, POOL never touches PSUM).
Status ValidateForEngine(Engine engine, const Instruction& inst, const IsaLimits& limits);
// Every instruction (with its index in messages), branch targets inside the stream, and the
// stream shape: 1..max_stream_instructions instructions, the last one notify_end.
Status ValidateProgram(Engine engine, std::span<const Instruction> instructions,
                       const IsaLimits& limits);
// The same for a packed program, on its own engine (each instruction unpacked in turn: no
// whole-program copy).
Status ValidateProgram(const PackedProgram& program, const IsaLimits& limits);

}  // namespace trnsim::isa
