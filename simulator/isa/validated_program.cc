#include "simulator/isa/validated_program.h"

#include <utility>

#include "simulator/isa/validate.h"

namespace trnsim::isa {

StatusOr<ValidatedProgram> ValidatedProgram::Validate(PackedProgram program,
                                                      const IsaLimits& limits) {
  TRNSIM_RETURN_IF_ERROR(ValidateProgram(program, limits));
  return ValidatedProgram(std::move(program), limits);
}

StatusOr<ValidatedProgram> ValidatedProgram::Validate(const Program& program,
                                                      const IsaLimits& limits) {
  TRNSIM_RETURN_IF_ERROR(ValidateProgram(program.engine, program.instructions, limits));
  return ValidatedProgram(PackedProgram::Pack(program), limits);
}

}  // namespace trnsim::isa
