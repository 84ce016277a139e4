// One valid instruction (or more) per opcode, with the engine that runs it: the corpus of the
// codec, text and validation tests.
#pragma once

#include <vector>

#include "simulator/isa/instruction.h"

namespace trnsim::isa::testing {

struct Sample {
  Engine engine;
  Instruction inst;
};

std::vector<Sample> Samples();
// A stream of `engine`'s samples, ending in notify_end.
std::vector<Instruction> SampleStream(Engine engine);

}  // namespace trnsim::isa::testing
