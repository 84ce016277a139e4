// The scheduler and the control/synchronisation/DMA opcodes of the reference interpreter.
#include "simulator/reference/interpreter.h"

#include <string>
#include <utility>

#include "simulator/dma/descriptor.h"
#include "simulator/isa/text.h"
#include "simulator/isa/validate.h"
#include "simulator/reference/operand.h"

namespace trnsim::reference {

using isa::Engine;
using isa::Instruction;
using isa::Opcode;

StatusOr<std::span<uint8_t>> VectorHbm::Var(uint32_t var_id) {
  auto it = vars.find(var_id);
  if (it == vars.end()) return InvalidError("unknown HBM var_id " + std::to_string(var_id));
  return std::span<uint8_t>(it->second);
}

CoreState::CoreState(const isa::IsaLimits& l)
    : limits(l),
      sbuf(size_t(l.partitions) * l.sbuf_bytes_per_partition),
      psum(size_t(l.partitions) * l.psum_bytes_per_partition) {}

namespace {

std::string Where(Engine e, size_t pc, const Instruction& inst) {
  return std::string(isa::EngineName(e)) + " instruction " + std::to_string(pc) + " (" +
         std::string(isa::FindOpcode(inst.opcode)->mnemonic) + ")";
}

// The first wait of `inst` that does not hold, as text; empty when all hold. sem_wait and
// event_wait count as waits of their own.
std::string UnmetWait(const Instruction& inst, const CoreState& s) {
  for (const isa::SyncWait& w : inst.Waits()) {
    if (w.kind == isa::WaitKind::kSemaphore) {
      if (!isa::Compare(w.cmp, s.sem[w.index], w.value))
        return "S[" + std::to_string(w.index) + "] " + std::string(isa::CmpOpSymbol(w.cmp)) + " " +
               std::to_string(w.value) + " (S[" + std::to_string(w.index) +
               "] = " + std::to_string(s.sem[w.index]) + ")";
    } else if (!isa::Compare<uint32_t>(w.cmp, s.event[w.index], w.value)) {
      return "E[" + std::to_string(w.index) + "] " + std::string(isa::CmpOpSymbol(w.cmp)) + " " +
             std::to_string(w.value);
    }
  }
  if (inst.opcode == Opcode::kSemWait &&
      !isa::Compare(inst.cmp, s.sem[inst.index % 256], inst.imm[0]))
    return "sem_wait S[" + std::to_string(inst.index) + "] " +
           std::string(isa::CmpOpSymbol(inst.cmp)) + " " + std::to_string(inst.imm[0]) + " (S[" +
           std::to_string(inst.index) + "] = " + std::to_string(s.sem[inst.index % 256]) + ")";
  if (inst.opcode == Opcode::kEventWait && s.event[inst.index % 256] != 1)
    return "event_wait E[" + std::to_string(inst.index) + "] == 1";
  return {};
}

void ApplyUpdates(const Instruction& inst, CoreState& s, isa::UpdateWhen when) {
  for (const isa::SyncUpdate& u : inst.Updates())
    if (u.when == when) ApplySyncUpdate(s, u.op, u.index, u.value);
}

int32_t RegOf(const CoreState& s, Engine e, const isa::AccessPattern& ap) {
  if (ap.offset_reg == isa::kNoRegister || ap.offset_reg >= 64) return 0;
  return s.regs[int(e)][ap.offset_reg];
}

Status DmaCopy(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm) {
  TRNSIM_ASSIGN_OR_RETURN(Operand dst, Operand::Bind(inst.ap[0], RegOf(s, e, inst.ap[0]), s, hbm));
  TRNSIM_ASSIGN_OR_RETURN(Operand src, Operand::Bind(inst.ap[1], RegOf(s, e, inst.ap[1]), s, hbm));
  if (dst.elements() != src.elements()) return InvalidError("dma_copy: element counts differ");
  bool same = dst.dtype() == src.dtype();
  // Gather first, then scatter, so overlapping src/dst behave as a copy of the source.
  std::vector<uint64_t> raw(src.elements());
  std::vector<float> f(src.elements());
  for (uint64_t k = 0; k < src.elements(); ++k) {
    if (same)
      raw[k] = src.ReadRaw(k);
    else
      f[k] = src.ReadF32(k);
  }
  for (uint64_t k = 0; k < dst.elements(); ++k) {
    if (same)
      dst.WriteRaw(k, raw[k]);
    else
      dst.WriteF32(k, f[k]);
  }
  return Status::Ok();
}

// The NEFF engine-JSON file of engine `e`.
std::string EngineJson(Engine e) { return std::string(isa::EngineFileStem(e)) + ".json"; }

// dma_trigger desc=D count=N: descriptors D..D+N-1 land now, in id order, each followed by its
// completion.
Status DmaTrigger(Engine e, const Instruction& inst, CoreState& s, HbmView& hbm,
                  const simulator::dma::DescriptorTable* table) {
  for (uint32_t k = 0; k < inst.count; ++k) {
    const int64_t id = int64_t(inst.index) + k;
    const simulator::dma::Descriptor* d = table ? table->Find(e, id) : nullptr;
    if (!d)
      return InvalidError("execution error: dma_trigger descriptor " + std::to_string(id) +
                          " is not in " + EngineJson(e));
    TRNSIM_RETURN_IF_ERROR(simulator::dma::Execute(*d, s, hbm));
    if (d->semaphore) s.sem[*d->semaphore % 256] += d->semaphore_increment;
    if (d->event) s.event[*d->event % 256] = 1;
  }
  return Status::Ok();
}

// Executes `inst` of engine `e`; sets `next` to the next pc, `ended` on notify_end.
Status Execute(Engine e, const Instruction& inst, size_t pc, CoreState& s, HbmView& hbm,
               const simulator::dma::DescriptorTable* table, size_t& next, bool& ended) {
  std::array<int32_t, 64>& reg = s.regs[int(e)];
  next = pc + 1;
  switch (inst.opcode) {
    case Opcode::kNop:
    case Opcode::kSemWait:  // the wait was checked before issue
    case Opcode::kEventWait:
    case Opcode::kBarrier:  // DMA lands at issue, so every earlier transfer has completed
      return Status::Ok();
    case Opcode::kSemUpdate:
      ApplySyncUpdate(s, inst.sem_op, inst.index, inst.imm[0]);
      return Status::Ok();
    case Opcode::kEventSet:
      s.event[inst.index % 256] = 1;
      return Status::Ok();
    case Opcode::kEventClear:
      s.event[inst.index % 256] = 0;
      return Status::Ok();
    case Opcode::kNotifyEnd:
      ended = true;
      return Status::Ok();
    case Opcode::kRegSet:
      reg[inst.reg0 % 64] = inst.imm_i32(0);
      return Status::Ok();
    case Opcode::kRegAdd: {
      uint32_t y =
          inst.has_flag(isa::kFlagRegOperand) ? uint32_t(reg[inst.reg1 % 64]) : inst.imm[0];
      reg[inst.reg0 % 64] = int32_t(uint32_t(reg[inst.reg0 % 64]) + y);
      return Status::Ok();
    }
    case Opcode::kBranch: {
      int32_t y = inst.has_flag(isa::kFlagRegOperand) ? reg[inst.reg1 % 64] : inst.imm_i32(0);
      if (isa::Compare(inst.cmp, reg[inst.reg0 % 64], y)) next = size_t(inst.target);
      return Status::Ok();
    }
    case Opcode::kRegLoad: {
      TRNSIM_ASSIGN_OR_RETURN(Operand src,
                              Operand::Bind(inst.ap[0], RegOf(s, e, inst.ap[0]), s, hbm));
      reg[inst.reg0 % 64] = int32_t(src.ReadRaw(0));
      return Status::Ok();
    }
    case Opcode::kRegStore: {
      TRNSIM_ASSIGN_OR_RETURN(Operand dst,
                              Operand::Bind(inst.ap[0], RegOf(s, e, inst.ap[0]), s, hbm));
      dst.WriteRaw(0, uint32_t(reg[inst.reg0 % 64]));
      return Status::Ok();
    }
    case Opcode::kDmaCopy:
      return DmaCopy(e, inst, s, hbm);
    case Opcode::kDmaTrigger:
      return DmaTrigger(e, inst, s, hbm, table);
    case Opcode::kCollective:
      return InvalidError(
          "execution error: collective needs the other ranks of its replica group, which only "
          "the chip model reaches (through a collective port); the reference interpreter runs "
          "one core alone");
    case Opcode::kDebugPrint:
      return InvalidError(
          "execution error: debug_print is executed by its caller, which keeps what it reads "
          "(CaptureDebugPrint)");
    case Opcode::kCoreBarrier:
    case Opcode::kSendRecv:
      return InvalidError("execution error: " + std::string(isa::Mnemonic(inst.opcode)) +
                          " needs the peer core of an LNC=2 pair, which only the chip model runs "
                          "alongside; the reference interpreter runs one core alone");
    default:
      return ExecuteDatapath(e, inst, s, hbm);
  }
}

}  // namespace

void ApplySyncUpdate(CoreState& s, isa::UpdateOp op, uint32_t index, uint32_t value) {
  uint32_t& sem = s.sem[index % 256];
  switch (op) {
    case isa::UpdateOp::kSemAdd:
      sem += value;
      break;
    case isa::UpdateOp::kSemSub:
      sem -= value;
      break;
    case isa::UpdateOp::kSemSet:
      sem = value;
      break;
    case isa::UpdateOp::kEventSet:
      s.event[index % 256] = 1;
      break;
    case isa::UpdateOp::kEventClear:
      s.event[index % 256] = 0;
      break;
  }
}

uint64_t RoundingStream(uint64_t seed, Engine e, uint64_t n) {
  // One 64-bit stream id per (seed, engine, instruction): two rounds of the splitmix64 mix.
  return (uint64_t(numerics::StochasticBits(seed ^ (uint64_t(int(e)) << 56), n)) << 32) |
         numerics::StochasticBits(seed + 0x632be59bd9b4e019ull, n * 8 + uint64_t(int(e)));
}

void BeginInstruction(CoreState& s, Engine e) {
  s.rounding_stream = RoundingStream(s.rounding_seed, e, s.issued[int(e)]++);
}

Status ExecuteInstruction(Engine e, const Instruction& inst, size_t pc, CoreState& s, HbmView& hbm,
                          size_t& next, bool& ended) {
  return Execute(e, inst, pc, s, hbm, /*table=*/nullptr, next, ended);  // no dma_trigger
}

StatusOr<RunResult> Run(std::span<const isa::Program> programs, CoreState& s, HbmView& hbm,
                        const RunOptions& options) {
  std::array<const isa::Program*, isa::kEngineCount> prog{};
  for (const isa::Program& p : programs) {
    int e = int(p.engine);
    if (e >= isa::kEngineCount) return InvalidError("program for an unknown engine");
    if (prog[e])
      return InvalidError("two programs for engine " + std::string(isa::EngineName(p.engine)));
    if (options.validate) {
      Status st = isa::ValidateProgram(p.engine, p.instructions, s.limits);
      if (!st.ok()) return st;
    }
    prog[e] = &p;
  }
  for (auto& r : s.regs) r.fill(0);
  s.acc.fill(0.0f);
  s.stationary = Stationary{};
  s.issued.fill(0);

  std::array<size_t, isa::kEngineCount> pc{};
  std::array<bool, isa::kEngineCount> ended{};
  for (int e = 0; e < isa::kEngineCount; ++e) ended[e] = prog[e] == nullptr;
  RunResult result;
  while (true) {
    bool progress = false, all_ended = true;
    for (int ei = 0; ei < isa::kEngineCount; ++ei) {
      if (ended[ei]) continue;
      all_ended = false;
      Engine e = Engine(ei);
      const auto& insts = prog[ei]->instructions;
      if (pc[ei] >= insts.size())
        return InvalidError("execution error: " + std::string(isa::EngineName(e)) +
                            " ran past the end of its stream (pc " + std::to_string(pc[ei]) + ")");
      const Instruction& inst = insts[pc[ei]];
      if (!UnmetWait(inst, s).empty()) continue;
      if (result.steps >= options.max_steps)
        return TimeoutError("step budget of " + std::to_string(options.max_steps) +
                            " instructions exhausted; next: " + Where(e, pc[ei], inst));
      ApplyUpdates(inst, s, isa::UpdateWhen::kRead);
      BeginInstruction(s, e);
      size_t next = 0;
      bool end = false;
      Status st;
      if (inst.opcode == Opcode::kDebugPrint) {
        StatusOr<DebugPrint> print = CaptureDebugPrint(e, inst, pc[ei], s, hbm);
        st = print.status();
        if (print.ok()) result.debug_prints.push_back(std::move(*print));
        next = pc[ei] + 1;
      } else {
        st = Execute(e, inst, pc[ei], s, hbm, options.descriptors, next, end);
      }
      if (!st.ok()) return Status(st.code(), Where(e, pc[ei], inst) + ": " + st.message());
      ApplyUpdates(inst, s, isa::UpdateWhen::kComplete);
      ++result.steps;
      ++result.executed[ei];
      pc[ei] = next;
      ended[ei] = end;
      progress = true;
    }
    if (all_ended) return result;
    if (!progress) {
      std::string msg = "deadlock: no engine can make progress;";
      for (int ei = 0; ei < isa::kEngineCount; ++ei) {
        if (ended[ei]) continue;
        const Instruction& inst = prog[ei]->instructions[pc[ei]];
        msg += " " + Where(Engine(ei), pc[ei], inst) + " waits for " + UnmetWait(inst, s) + ";";
      }
      return TimeoutError(msg);
    }
  }
}

}  // namespace trnsim::reference
