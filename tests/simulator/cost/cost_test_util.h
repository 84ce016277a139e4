// Instruction builders shared by the cost-model tests.
#pragma once

#include <cstdint>

#include "simulator/isa/access_pattern.h"
#include "simulator/isa/instruction.h"

namespace trnsim::simulator::cost::testing {

using isa::AccessPattern;
using isa::Dtype;
using isa::Instruction;
using isa::Opcode;

// [partitions, n] in SBUF / PSUM, innermost stride `stride` elements.
inline AccessPattern Sbuf(Dtype d, uint16_t n, uint16_t partitions = 128, int32_t stride = 1) {
  return isa::SbufAp(0, partitions, 0, d, {{n, stride}});
}
inline AccessPattern Psum(Dtype d, uint16_t n, uint16_t partitions = 128) {
  return isa::PsumAp(0, partitions, 0, d, {{n, 1}});
}

inline Instruction Make(Opcode op, AccessPattern dst = {}, AccessPattern s1 = {},
                        AccessPattern s2 = {}, AccessPattern s3 = {}) {
  Instruction inst;
  inst.opcode = op;
  inst.ap[0] = dst;
  inst.ap[1] = s1;
  inst.ap[2] = s2;
  inst.ap[3] = s3;
  return inst;
}

}  // namespace trnsim::simulator::cost::testing
