#include "simulator/isa/validated_program.h"

#include <utility>

#include "simulator/isa/validate.h"

namespace trnsim::isa {

StatusOr<ValidatedProgram> ValidatedProgram::Validate(Program program, const IsaLimits& limits) {
  TRNSIM_RETURN_IF_ERROR(ValidateProgram(program.engine, program.instructions, limits));
  return ValidatedProgram(std::move(program), limits);
}

}  // namespace trnsim::isa
