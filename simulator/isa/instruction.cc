#include "simulator/isa/instruction.h"

#include <bit>
#include <cstdio>
#include <cstdlib>

namespace trnsim::isa {

float Instruction::imm_f32(int i) const { return std::bit_cast<float>(imm[i]); }
void Instruction::set_imm_f32(int i, float v) { imm[i] = std::bit_cast<uint32_t>(v); }

void AddWait(Instruction& inst, SyncWait wait) {
  if (inst.num_waits >= kMaxWaits) {
    std::fprintf(stderr, "trnsim: AddWait: more than %d waits on one instruction\n", kMaxWaits);
    std::abort();
  }
  inst.waits[inst.num_waits++] = wait;
}

void AddUpdate(Instruction& inst, SyncUpdate update) {
  if (inst.num_updates >= kMaxUpdates) {
    std::fprintf(stderr, "trnsim: AddUpdate: more than %d updates on one instruction\n",
                 kMaxUpdates);
    std::abort();
  }
  inst.updates[inst.num_updates++] = update;
}

bool ImmIsInteger(const Instruction& inst, int i) {
  const OpcodeInfo* info = FindOpcode(inst.opcode);
  if (info == nullptr || i < 0 || i >= kMaxImms) return false;
  switch (info->imms[i].kind) {
    case ImmKind::kInt:
      return true;
    case ImmKind::kAuto:
      break;
    default:
      return false;
  }
  if (inst.opcode == Opcode::kMemset) {
    Dtype d = inst.ap[kDst].dtype;
    return !IsFloat(d) && DtypeSize(d) > 0;
  }
  AluOp op = (i == 0) ? inst.op0 : inst.op1;
  return AluOpClass(op) == AluClass::kBitvec;
}

}  // namespace trnsim::isa
