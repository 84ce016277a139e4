#include "simulator/isa/validate.h"

#include <string>

#include "simulator/isa/validate_internal.h"

namespace trnsim::isa {
namespace {

using internal::Checker;

std::string S(int64_t v) { return std::to_string(v); }

bool ValidDtype(Dtype d) { return static_cast<int>(d) < kDtypeCount && DtypeSize(d) > 0; }

// The start-partition rule (facts §2.3): P > 64 starts at 0; 32 < P <= 64 at 0 or 64;
// P <= 32 at a multiple of 32.
bool StartPartitionOk(int start, int count) {
  if (count > 64) return start == 0;
  if (count > 32) return start == 0 || start == 64;
  return start % 32 == 0;
}

Status CheckAp(const Checker& c, int slot) {
  const AccessPattern& ap = c.Ap(slot);
  std::string n = "operand " + std::string(c.Name(slot)) + ": ";
  if (!(c.info.operands[slot].memories & MemoryBit(ap.memory))) {
    return c.Fail(n + "memory " + std::string(MemoryName(ap.memory)) + " is not allowed here");
  }
  if (!ValidDtype(ap.dtype))
    return c.Fail(n + "dtype " + S(static_cast<int>(ap.dtype)) + " invalid");
  if (ap.num_dims < 1 || ap.num_dims > kMaxFreeDims) {
    return c.Fail(n + "free dims " + S(ap.num_dims) + " not in 1..4");
  }
  for (int d = 0; d < kMaxFreeDims; ++d) {
    if (d < ap.num_dims && ap.sizes[d] == 0) return c.Fail(n + "free size " + S(d) + " is 0");
    if (d >= ap.num_dims && (ap.sizes[d] != 0 || ap.strides[d] != 0)) {
      return c.Fail(n + "unused free dim " + S(d) + " is not zero (reserved)");
    }
  }
  if (ap.num_partitions == 0) return c.Fail(n + "partition/row count is 0");
  if (ap.offset_reg == kNoRegister) {
    if (ap.reg_stride_bytes != 0) return c.Fail(n + "register stride without a register");
  } else if (ap.offset_reg >= c.limits.registers) {
    return c.Fail(n + "offset register r" + S(ap.offset_reg) + " >= " + S(c.limits.registers));
  }
  if (ap.memory == Memory::kPattern) {
    if (ap.dtype != Dtype::kInt32) return c.Fail(n + "an iota pattern is int32");
    if (ap.start_partition != 0 || ap.var_id != 0 || ap.offset_reg != kNoRegister) {
      return c.Fail(n + "an iota pattern has no partition start, variable or register");
    }
    if (ap.offset < INT32_MIN || ap.offset > INT32_MAX) {
      return c.Fail(n + "iota base does not fit int32");
    }
    return Status::Ok();
  }
  if (ap.memory == Memory::kHbm) {
    if (ap.start_partition != 0) return c.Fail(n + "an HBM pattern has no start partition");
    auto range = StaticByteRange(ap);
    if (!range || range->lo < 0) {
      return c.Fail(n + "touches bytes before the start of variable " + S(ap.var_id));
    }
    return Status::Ok();
  }
  // SBUF / PSUM.
  if (ap.var_id != 0 || ap.partition_stride != 0) {
    return c.Fail(n + "var_id and partition_stride are HBM-only and must be 0");
  }
  if (ap.num_partitions > c.limits.partitions ||
      ap.start_partition + ap.num_partitions > c.limits.partitions) {
    return c.Fail(n + "partitions " + S(ap.start_partition) + ".." +
                  S(ap.start_partition + ap.num_partitions - 1) + " exceed the " +
                  S(c.limits.partitions) + " partitions");
  }
  if (!StartPartitionOk(ap.start_partition, ap.num_partitions)) {
    return c.Fail(n + "start partition " + S(ap.start_partition) +
                  " breaks the start-partition "
                  "rule for " +
                  S(ap.num_partitions) +
                  " partitions (>64: 0; >32: 0/64; else "
                  "a multiple of 32)");
  }
  for (int d = 0; d < ap.num_dims; ++d) {
    if (ap.strides[d] < INT16_MIN || ap.strides[d] > INT16_MAX) {
      return c.Fail(n + "stride " + S(ap.strides[d]) + " does not fit int16");
    }
  }
  bool psum = ap.memory == Memory::kPsum;
  uint32_t bytes = psum ? c.limits.psum_bytes_per_partition : c.limits.sbuf_bytes_per_partition;
  if (psum && ap.offset % 4 != 0) return c.Fail(n + "PSUM offsets are 4-byte aligned");
  auto range = StaticByteRange(ap);
  if (!range || range->lo < 0 || range->hi > static_cast<int64_t>(bytes)) {
    return c.Fail(n + "touches bytes outside the " + S(bytes) + "-byte " +
                  std::string(psum ? "PSUM" : "SBUF") + " partition");
  }
  return Status::Ok();
}

Status CheckSync(const Checker& c) {
  const Instruction& in = c.inst;
  if (in.num_waits > kMaxWaits || in.num_updates > kMaxUpdates) {
    return c.Fail("more than " + S(kMaxWaits) + " waits or " + S(kMaxUpdates) + " updates");
  }
  for (const SyncWait& w : in.Waits()) {
    if (static_cast<int>(w.cmp) >= kCmpOpCount) return c.Fail("wait comparison out of range");
    if (w.kind == WaitKind::kSemaphore) {
      if (w.index >= c.limits.semaphores) {
        return c.Fail("wait on semaphore " + S(w.index) + " >= " + S(c.limits.semaphores));
      }
    } else if (w.kind == WaitKind::kEvent) {
      if (w.index >= c.limits.events) {
        return c.Fail("wait on event " + S(w.index) + " >= " + S(c.limits.events));
      }
      if (w.value > 1 || (w.cmp != CmpOp::kEq && w.cmp != CmpOp::kNe)) {
        return c.Fail("an event wait compares == or != against 0 or 1");
      }
    } else {
      return c.Fail("wait kind " + S(static_cast<int>(w.kind)) + " unknown");
    }
  }
  for (const SyncUpdate& u : in.Updates()) {
    if (static_cast<int>(u.when) > 1) return c.Fail("update timing out of range");
    bool sem = u.op == UpdateOp::kSemAdd || u.op == UpdateOp::kSemSub || u.op == UpdateOp::kSemSet;
    bool evt = u.op == UpdateOp::kEventSet || u.op == UpdateOp::kEventClear;
    if (!sem && !evt) return c.Fail("update op " + S(static_cast<int>(u.op)) + " unknown");
    if (sem && u.index >= c.limits.semaphores) {
      return c.Fail("update of semaphore " + S(u.index) + " >= " + S(c.limits.semaphores));
    }
    if (evt && u.index >= c.limits.events) {
      return c.Fail("update of event " + S(u.index) + " >= " + S(c.limits.events));
    }
    if (evt && u.value != 0) return c.Fail("an event update has no value (reserved, 0)");
  }
  return Status::Ok();
}

// Scalar fields the opcode does not use must be zero; used enum fields must be in range.
Status CheckFields(const Checker& c) {
  const Instruction& in = c.inst;
  uint16_t f = c.info.fields;
  auto unused = [&](uint16_t bit, uint64_t value, const char* name) -> Status {
    if (!(f & bit) && value != 0) return c.Fail(std::string(name) + " is unused and must be 0");
    return Status::Ok();
  };
  TRNSIM_RETURN_IF_ERROR(unused(kFieldOp0, static_cast<uint64_t>(in.op0), "op0"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldOp1, static_cast<uint64_t>(in.op1), "op1"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldFunc, static_cast<uint64_t>(in.func), "func"));
  TRNSIM_RETURN_IF_ERROR(
      unused(kFieldReduceCmd, static_cast<uint64_t>(in.reduce_cmd), "reduce_cmd"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldCmp, static_cast<uint64_t>(in.cmp), "cmp"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldCount, in.count, "count"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldReg0, in.reg0, "reg0"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldReg1, in.reg1, "reg1"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldIndex, in.index, "index"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldTarget, static_cast<uint32_t>(in.target), "target"));
  TRNSIM_RETURN_IF_ERROR(unused(kFieldSemOp, static_cast<uint64_t>(in.sem_op), "sem_op"));
  if (in.flags & ~c.info.flags) {
    for (int b = 0; b < 16; ++b) {
      if ((in.flags & ~c.info.flags) & (1u << b)) {
        return c.Fail("flag " + std::string(b < kFlagBits ? FlagName(b) : "bit " + S(b)) +
                      " is not accepted by this opcode");
      }
    }
  }
  for (int i = 0; i < kMaxImms; ++i) {
    const ImmSpec& spec = c.info.imms[i];
    if (spec.kind == ImmKind::kUnused && in.imm[i] != 0) {
      return c.Fail("imm" + S(i) + " is unused and must be 0");
    }
  }
  if ((f & kFieldOp0) && static_cast<int>(in.op0) >= kAluOpCount) return c.Fail("op0 out of range");
  if ((f & kFieldOp1) && static_cast<int>(in.op1) >= kAluOpCount) return c.Fail("op1 out of range");
  if ((f & kFieldFunc) && static_cast<int>(in.func) >= kActFuncCount) {
    return c.Fail("activation function " + S(static_cast<int>(in.func)) + " out of range");
  }
  if ((f & kFieldReduceCmd) && static_cast<int>(in.reduce_cmd) >= kReduceCmdCount) {
    return c.Fail("reduce_cmd out of range");
  }
  if ((f & kFieldCmp) && static_cast<int>(in.cmp) >= kCmpOpCount) return c.Fail("cmp out of range");
  if ((f & kFieldReg0) && in.reg0 >= c.limits.registers) {
    return c.Fail("register r" + S(in.reg0) + " >= " + S(c.limits.registers));
  }
  if ((f & kFieldReg1) && in.reg1 >= c.limits.registers) {
    return c.Fail("register r" + S(in.reg1) + " >= " + S(c.limits.registers));
  }
  return Status::Ok();
}

Status CheckOperands(const Checker& c) {
  for (int i = 0; i < kMaxOperands; ++i) {
    const OperandSpec& spec = c.info.operands[i];
    const AccessPattern& ap = c.Ap(i);
    if (!ap.present()) {
      if (spec.presence == Presence::kRequired) {
        return c.Fail("operand " + std::string(spec.name) + " is required");
      }
      if (ap != AccessPattern{}) return c.Fail("absent operand slot " + S(i) + " is not zero");
      continue;
    }
    if (spec.presence == Presence::kNone) {
      return c.Fail("operand slot " + S(i) + " is not used by this opcode");
    }
    if (static_cast<int>(ap.memory) >= kMemoryCount) return c.Fail("memory id out of range");
    if (spec.imm_alt >= 0 && c.inst.imm[spec.imm_alt] != 0) {
      return c.Fail("operand " + std::string(spec.name) +
                    " is given as a tensor, so its "
                    "immediate must be 0");
    }
    TRNSIM_RETURN_IF_ERROR(CheckAp(c, i));
  }
  return Status::Ok();
}

Status ValidateImpl(const Instruction& inst, const IsaLimits& limits, const Engine* engine,
                    int index) {
  const OpcodeInfo* info = FindOpcode(inst.opcode);
  std::string where = index >= 0 ? "instruction " + S(index) + " " : "";
  if (info == nullptr) {
    return InvalidError(where + "(opcode " + S(static_cast<int>(inst.opcode)) +
                        "): unknown opcode");
  }
  std::string prefix = index >= 0 ? where + "(" + std::string(info->mnemonic) + "): "
                                  : std::string(info->mnemonic) + ": ";
  Checker c{inst, *info, limits, engine, prefix};
  if (engine != nullptr) {
    if (static_cast<int>(*engine) >= kEngineCount) return c.Fail("engine out of range");
    if (!(info->engines & EngineBit(*engine))) {
      return c.Fail("not an instruction of the " + std::string(EngineName(*engine)) + " engine");
    }
  }
  TRNSIM_RETURN_IF_ERROR(CheckFields(c));
  TRNSIM_RETURN_IF_ERROR(CheckSync(c));
  TRNSIM_RETURN_IF_ERROR(CheckOperands(c));
  TRNSIM_RETURN_IF_ERROR(internal::CheckOpcodeRules(c));
  if (engine != nullptr) TRNSIM_RETURN_IF_ERROR(internal::CheckEngineRules(c, *engine));
  return Status::Ok();
}

}  // namespace

Status Validate(const Instruction& inst, const IsaLimits& limits) {
  return ValidateImpl(inst, limits, nullptr, -1);
}

Status ValidateForEngine(Engine engine, const Instruction& inst, const IsaLimits& limits) {
  return ValidateImpl(inst, limits, &engine, -1);
}

namespace {

// ValidateProgram over any holder of `count` instructions: `fetch(i)` returns instruction i (a
// reference that stays valid until the next call).
template <typename Fetch>
Status ValidateStream(Engine engine, size_t count, const IsaLimits& limits, Fetch fetch) {
  if (count == 0) return InvalidError("instruction stream: no instructions");
  if (count > limits.max_stream_instructions) {
    return InvalidError("instruction stream: " + S(static_cast<int64_t>(count)) +
                        " instructions > " + S(limits.max_stream_instructions));
  }
  Opcode last = Opcode::kNop;
  for (size_t i = 0; i < count; ++i) {
    const Instruction& inst = fetch(i);
    TRNSIM_RETURN_IF_ERROR(ValidateImpl(inst, limits, &engine, static_cast<int>(i)));
    if (inst.opcode == Opcode::kBranch &&
        (inst.target < 0 || static_cast<size_t>(inst.target) >= count)) {
      return InvalidError("instruction " + S(static_cast<int64_t>(i)) + " (branch): target " +
                          S(inst.target) + " is outside the stream of " +
                          S(static_cast<int64_t>(count)) + " instructions");
    }
    last = inst.opcode;
  }
  if (last != Opcode::kNotifyEnd) {
    return InvalidError("instruction " + S(static_cast<int64_t>(count - 1)) + " (" +
                        std::string(Mnemonic(last)) + "): a stream must end with notify_end");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateProgram(Engine engine, std::span<const Instruction> instructions,
                       const IsaLimits& limits) {
  return ValidateStream(engine, instructions.size(), limits,
                        [&](size_t i) -> const Instruction& { return instructions[i]; });
}

Status ValidateProgram(const PackedProgram& program, const IsaLimits& limits) {
  Instruction scratch;
  return ValidateStream(program.engine(), program.size(), limits,
                        [&](size_t i) -> const Instruction& {
                          program.Unpack(i, scratch);
                          return scratch;
                        });
}

}  // namespace trnsim::isa
