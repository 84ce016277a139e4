// ValidatedProgram: an engine Program that passed ValidateProgram against one chip's IsaLimits,
// and the limits it passed against. It is immutable and the only way to make one is Validate
// (the stream decoder, DecodeValidatedStream, goes through it), so holding one is proof that
// the program was validated: a loaded program carries that fact to execution, and the chip
// model (core::Execute, CoreRun::validated) runs it without validating it again.
//
// Thread safety: an immutable value; share it freely (the runtime and the sim device share one
// through std::shared_ptr<const ValidatedProgram>).
#pragma once

#include "common/status_or.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"

namespace trnsim::isa {

class ValidatedProgram {
 public:
  // ValidateProgram(program.engine, program.instructions, limits): the program when it passes,
  // its NRT_INVALID otherwise.
  static StatusOr<ValidatedProgram> Validate(Program program, const IsaLimits& limits);

  const Program& program() const { return program_; }
  Engine engine() const { return program_.engine; }
  // The limits the program was validated against: a chip with other limits must validate it
  // again (its SBUF size, PE shapes, ... differ).
  const IsaLimits& limits() const { return limits_; }

  // The program, no longer marked as validated (for callers that want a plain Program).
  Program Release() && { return std::move(program_); }

 private:
  ValidatedProgram(Program program, const IsaLimits& limits)
      : program_(std::move(program)), limits_(limits) {}

  Program program_;
  IsaLimits limits_;
};

}  // namespace trnsim::isa
