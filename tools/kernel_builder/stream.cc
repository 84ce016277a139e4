// Stream: appending, labels and the control-instruction helpers.
#include "tools/kernel_builder/stream.h"

#include <bit>
#include <cstdio>

namespace trnsim::kb {

using isa::Instruction;
using isa::Opcode;

Scalar::Scalar(float value) : bits_(std::bit_cast<uint32_t>(value)) {}
Scalar::Scalar(const isa::AccessPattern& ap) : is_ap_(true), ap_(ap) {}
Scalar Scalar::Int(int32_t value) {
  Scalar s;
  s.bits_ = static_cast<uint32_t>(value);
  return s;
}

void SetScalar(Instruction& inst, int slot, const Scalar& value) {
  const isa::OpcodeInfo* info = isa::FindOpcode(inst.opcode);
  if (value.is_ap()) {
    inst.ap[slot] = value.ap();
    return;
  }
  int imm = info != nullptr ? info->operands[slot].imm_alt : -1;
  if (imm >= 0) inst.imm[imm] = value.bits();
}

Stream::Stream(int core, isa::Engine engine, const isa::IsaLimits* limits, Diagnostics* diagnostics,
               DebugPrefixTable* prefixes)
    : core_(core),
      engine_(engine),
      limits_(limits),
      diagnostics_(diagnostics),
      prefixes_(prefixes) {}

std::string Stream::Where(int index) const {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "sg%02d %s[%d]: ", core_,
                std::string(isa::EngineName(engine_)).c_str(), index);
  return buf;
}

StatusOr<InstRef> Stream::Add(const Instruction& inst) {
  Status valid = isa::ValidateForEngine(engine_, inst, *limits_);
  if (!valid.ok()) return InvalidError(Where(size()) + valid.message());
  if (inst.opcode == Opcode::kBranch) has_branches_ = true;
  instructions_.push_back(inst);
  return InstRef{core_, engine_, size() - 1};
}

InstRef Stream::Fail(const Status& status) {
  diagnostics_->Record(status);
  return InstRef{};
}

InstRef Stream::Emit(const Instruction& inst) {
  StatusOr<InstRef> ref = Add(inst);
  if (!ref.ok()) return Fail(ref.status());
  return *ref;
}

Label Stream::NewLabel(std::string name) {
  if (name.empty()) name = "L" + std::to_string(label_positions_.size());
  label_positions_.push_back(-1);
  label_names_.push_back(std::move(name));
  return Label{static_cast<int>(label_positions_.size()) - 1};
}

Status Stream::Bind(Label label) {
  if (label.id < 0 || label.id >= static_cast<int>(label_positions_.size())) {
    return InvalidError(Where(size()) + "unknown label");
  }
  if (label_positions_[label.id] >= 0) {
    return InvalidError(Where(size()) + "label '" + label_names_[label.id] + "' is bound twice");
  }
  label_positions_[label.id] = size();
  return Status::Ok();
}

StatusOr<InstRef> Stream::AddBranch(Instruction inst, Label label) {
  if (label.id < 0 || label.id >= static_cast<int>(label_positions_.size())) {
    return InvalidError(Where(size()) + "unknown label");
  }
  inst.target = 0;  // resolved at build
  TRNSIM_ASSIGN_OR_RETURN(InstRef ref, Add(inst));
  label_uses_.push_back({ref.index, label.id});
  return ref;
}

InstRef Stream::Branch(uint8_t reg, isa::CmpOp cmp, int32_t value, Label label) {
  Instruction i;
  i.opcode = Opcode::kBranch;
  i.reg0 = reg;
  i.cmp = cmp;
  i.imm[0] = static_cast<uint32_t>(value);
  StatusOr<InstRef> ref = AddBranch(i, label);
  return ref.ok() ? *ref : Fail(ref.status());
}

InstRef Stream::Nop() {
  Instruction i;
  i.opcode = Opcode::kNop;
  return Emit(i);
}

InstRef Stream::SemWait(int semaphore, isa::CmpOp cmp, uint32_t value) {
  Instruction i;
  i.opcode = Opcode::kSemWait;
  i.index = static_cast<uint32_t>(semaphore);
  i.cmp = cmp;
  i.imm[0] = value;
  return Emit(i);
}

InstRef Stream::SemUpdate(int semaphore, isa::UpdateOp op, uint32_t value) {
  Instruction i;
  i.opcode = Opcode::kSemUpdate;
  i.index = static_cast<uint32_t>(semaphore);
  i.sem_op = op;
  i.imm[0] = value;
  return Emit(i);
}

InstRef Stream::NotifyEnd(uint32_t code) {
  Instruction i;
  i.opcode = Opcode::kNotifyEnd;
  i.index = code;
  return Emit(i);
}

InstRef Stream::RegSet(uint8_t reg, int32_t value) {
  Instruction i;
  i.opcode = Opcode::kRegSet;
  i.reg0 = reg;
  i.imm[0] = static_cast<uint32_t>(value);
  return Emit(i);
}

InstRef Stream::RegAdd(uint8_t reg, int32_t value) {
  Instruction i;
  i.opcode = Opcode::kRegAdd;
  i.reg0 = reg;
  i.imm[0] = static_cast<uint32_t>(value);
  return Emit(i);
}

InstRef Stream::DmaCopy(const isa::AccessPattern& dst, const isa::AccessPattern& src, int queue) {
  Instruction i;
  i.opcode = Opcode::kDmaCopy;
  i.index = static_cast<uint32_t>(queue);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = src;
  return Emit(i);
}

InstRef Stream::DmaTrigger(int descriptor, int count) {
  Instruction i;
  i.opcode = Opcode::kDmaTrigger;
  i.index = static_cast<uint32_t>(descriptor);
  i.count = static_cast<uint8_t>(count);
  if (count < 1 || count > 255) {
    return Fail(InvalidError(Where(size()) + "dma_trigger count " + std::to_string(count) +
                             " not in 1..255"));
  }
  return Emit(i);
}

InstRef Stream::Collective(isa::CollectiveKind kind, const isa::AccessPattern& dst,
                           const isa::AccessPattern& src, isa::AluOp op,
                           simulator::collective::ReplicaGroupSpec group, uint32_t id,
                           std::optional<int32_t> shift) {
  const bool permute = kind == isa::CollectiveKind::kPermute;
  if (shift && !permute) {
    return Fail(InvalidError(Where(size()) + "collective " +
                             std::string(isa::CollectiveKindName(kind)) +
                             " takes no shift (permute only)"));
  }
  if (group.size > uint32_t(INT32_MAX) || group.stride > uint32_t(INT32_MAX)) {
    return Fail(InvalidError(Where(size()) + "collective group size/stride " +
                             std::to_string(group.size) + "/" + std::to_string(group.stride) +
                             " do not fit int32"));
  }
  Instruction i;
  i.opcode = Opcode::kCollective;
  i.count = static_cast<uint8_t>(kind);
  i.op0 = op;
  i.index = id;
  i.imm[0] = group.size;
  i.imm[1] = group.stride;
  i.imm[2] = permute ? static_cast<uint32_t>(shift.value_or(1)) : 0;
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = src;
  return Emit(i);
}

InstRef Stream::CoreBarrier(int semaphore) {
  if (semaphore < 0 || semaphore > 0xFFFF) {
    return Fail(InvalidError(Where(size()) + "core_barrier semaphore " + std::to_string(semaphore) +
                             " is negative or too large"));
  }
  Instruction i;
  i.opcode = Opcode::kCoreBarrier;
  i.index = static_cast<uint32_t>(semaphore);
  return Emit(i);
}

InstRef Stream::SendRecv(const isa::AccessPattern& dst, const isa::AccessPattern& src,
                         int peer_semaphore, int queue) {
  if (peer_semaphore < 0 || peer_semaphore > 0xFFFF || queue < 0 || queue > 255) {
    return Fail(InvalidError(Where(size()) + "sendrecv peer semaphore " +
                             std::to_string(peer_semaphore) + " / queue " + std::to_string(queue) +
                             " is negative or too large"));
  }
  Instruction i;
  i.opcode = Opcode::kSendRecv;
  i.index = static_cast<uint32_t>(peer_semaphore);
  i.count = static_cast<uint8_t>(queue);
  i.ap[isa::kDst] = dst;
  i.ap[isa::kSrc] = src;
  return Emit(i);
}

StatusOr<InstRef> Stream::AddDebugPrint(std::string_view prefix, const isa::AccessPattern& src) {
  StatusOr<uint32_t> id = prefixes_->Intern(prefix);
  if (!id.ok()) return InvalidError(Where(size()) + id.status().message());
  Instruction i;
  i.opcode = Opcode::kDebugPrint;
  i.index = *id;
  i.ap[isa::kSrc] = src;
  return Add(i);
}

InstRef Stream::DebugPrint(std::string_view prefix, const isa::AccessPattern& src) {
  StatusOr<InstRef> ref = AddDebugPrint(prefix, src);
  return ref.ok() ? *ref : Fail(ref.status());
}

}  // namespace trnsim::kb
