// ValidatedProgram: an engine program that passed ValidateProgram against one chip's IsaLimits,
// held packed (packed_program.h: the compact form the chip model runs), and the limits it passed
// against. It is immutable and the only way to make one is Validate (the stream decoder,
// DecodeValidatedStream, goes through it), so holding one is proof that the program was
// validated: a loaded program carries that fact to execution, and the chip model
// (core::Execute, CoreRun::validated) runs it without validating it again.
//
// Thread safety: an immutable value; share it freely (the runtime and the sim device share one
// through std::shared_ptr<const ValidatedProgram>).
#pragma once

#include "common/status_or.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/packed_program.h"

namespace trnsim::isa {

class ValidatedProgram {
 public:
  // ValidateProgram(program, limits): the program when it passes, its NRT_INVALID otherwise.
  static StatusOr<ValidatedProgram> Validate(PackedProgram program, const IsaLimits& limits);
  // The same for a plain Program (packed once it passes).
  static StatusOr<ValidatedProgram> Validate(const Program& program, const IsaLimits& limits);

  const PackedProgram& packed() const { return program_; }
  Engine engine() const { return program_.engine(); }
  size_t size() const { return program_.size(); }
  // The limits the program was validated against: a chip with other limits must validate it
  // again (its SBUF size, PE shapes, ... differ).
  const IsaLimits& limits() const { return limits_; }

  // The program as plain Instructions (tools and tests: 392 bytes an instruction).
  Program Unpack() const { return program_.Unpack(); }

 private:
  ValidatedProgram(PackedProgram program, const IsaLimits& limits)
      : program_(std::move(program)), limits_(limits) {}

  PackedProgram program_;
  IsaLimits limits_;
};

}  // namespace trnsim::isa
