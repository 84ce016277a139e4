// Helpers shared by the datapath executors of the reference interpreter. Internal.
#pragma once

#include <string>

#include "common/status_or.h"
#include "simulator/isa/instruction.h"
#include "simulator/reference/interpreter.h"
#include "simulator/reference/operand.h"

namespace trnsim::reference {

// Binds slot `slot` of `inst` with engine `e`'s register value.
inline StatusOr<Operand> BindSlot(isa::Engine e, const isa::Instruction& inst, int slot,
                                  CoreState& s, HbmView& hbm) {
  const isa::AccessPattern& ap = inst.ap[slot];
  int32_t reg = 0;
  if (ap.offset_reg != isa::kNoRegister) {
    if (ap.offset_reg >= 64) return InvalidError("register index out of range");
    reg = s.regs[int(e)][ap.offset_reg];
  }
  return Operand::Bind(ap, reg, s, hbm);
}

inline Status Unsupported(const isa::Instruction& inst, const std::string& what = "") {
  return InvalidError("not executed by the reference interpreter yet: " +
                      std::string(isa::FindOpcode(inst.opcode)->mnemonic) + what);
}

inline Status ShapeError(const std::string& what) {
  return InvalidError("execution error: operand shapes do not match: " + what);
}

// The PE and DVE/POOL-specific executors (pe.cc, vector.cc); an opcode they do not execute
// returns Unsupported.
Status ExecutePe(isa::Engine e, const isa::Instruction& inst, CoreState& s, HbmView& hbm);
Status ExecuteVector(isa::Engine e, const isa::Instruction& inst, CoreState& s, HbmView& hbm);
// nc_find_index8, nc_match_replace8, local_gather (gather.cc).
Status ExecuteGather(isa::Engine e, const isa::Instruction& inst, CoreState& s, HbmView& hbm);

}  // namespace trnsim::reference
