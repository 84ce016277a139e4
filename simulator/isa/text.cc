// Text form of instructions (docs/isa.md §10): prefixes, mnemonic, operands and fields, suffixes.
//   wait S[3] >= 16 tensor_tensor dst=<ap> in0=<ap> in1=<ap> op0=add then S[5] += 1 @complete
#include "simulator/isa/text.h"

#include <string>
#include <vector>

#include "simulator/isa/text_internal.h"

namespace trnsim::isa {
namespace {

using internal::FormatImm;
using internal::ParseImm;
using internal::ParseInt;

std::string S(int64_t v) { return std::to_string(v); }

// The operand slot `imm` stands in for, or -1.
int SlotOfImm(const OpcodeInfo& info, int imm) {
  for (int s = 0; s < kMaxOperands; ++s) {
    if (info.operands[s].presence != Presence::kNone && info.operands[s].imm_alt == imm) return s;
  }
  return -1;
}

std::string UpdateText(UpdateOp op, uint32_t index, uint32_t value) {
  switch (op) {
    case UpdateOp::kSemAdd:
      return "S[" + S(index) + "] += " + S(value);
    case UpdateOp::kSemSub:
      return "S[" + S(index) + "] -= " + S(value);
    case UpdateOp::kSemSet:
      return "S[" + S(index) + "] = " + S(value);
    case UpdateOp::kEventSet:
      return "E[" + S(index) + "] set";
    case UpdateOp::kEventClear:
      return "E[" + S(index) + "] clear";
  }
  return "?[" + S(index) + "] op" + S(static_cast<int>(op));
}

std::string Reg(uint8_t r) { return "r" + S(r); }

}  // namespace

std::string FormatInstruction(const Instruction& inst) {
  const OpcodeInfo* info = FindOpcode(inst.opcode);
  if (info == nullptr) return "<opcode " + S(static_cast<int>(inst.opcode)) + ">";
  std::string out;
  for (const SyncWait& w : inst.Waits()) {
    out += std::string("wait ") + (w.kind == WaitKind::kEvent ? "E[" : "S[") + S(w.index) + "] " +
           std::string(CmpOpSymbol(w.cmp)) + " " + S(w.value) + " ";
  }
  out += info->mnemonic;
  uint16_t done_fields = 0;  // printed by the style's positional syntax
  bool imm0_done = false;
  uint16_t flags = inst.flags;
  switch (info->text_style) {
    case TextStyle::kSemWait:
      out +=
          " S[" + S(inst.index) + "] " + std::string(CmpOpSymbol(inst.cmp)) + " " + S(inst.imm[0]);
      done_fields = kFieldIndex | kFieldCmp;
      imm0_done = true;
      break;
    case TextStyle::kSemUpdate:
      out += " " + UpdateText(inst.sem_op, inst.index, inst.imm[0]);
      done_fields = kFieldIndex | kFieldSemOp;
      imm0_done = true;
      break;
    case TextStyle::kEvent:
      out += " E[" + S(inst.index) + "]";
      done_fields = kFieldIndex;
      break;
    case TextStyle::kRegSet:
      out += " " + Reg(inst.reg0) + " = " + S(inst.imm_i32(0));
      done_fields = kFieldReg0;
      imm0_done = true;
      break;
    case TextStyle::kRegAdd:
    case TextStyle::kBranch: {
      bool reg = inst.has_flag(kFlagRegOperand);
      std::string rhs = reg ? Reg(inst.reg1) : S(inst.imm_i32(0));
      if (info->text_style == TextStyle::kRegAdd) {
        out += " " + Reg(inst.reg0) + " += " + rhs;
      } else {
        out += " " + Reg(inst.reg0) + " " + std::string(CmpOpSymbol(inst.cmp)) + " " + rhs +
               " -> " + S(inst.target);
      }
      done_fields = kFieldReg0 | kFieldReg1 | kFieldCmp | kFieldTarget;
      imm0_done = true;
      flags &= ~kFlagRegOperand;
      break;
    }
    case TextStyle::kRegMem:
      out += " " + Reg(inst.reg0);
      done_fields = kFieldReg0;
      break;
    case TextStyle::kGeneric:
    case TextStyle::kCollective:
      break;
  }
  const bool collective = info->text_style == TextStyle::kCollective;
  const bool permute = inst.count == static_cast<uint8_t>(CollectiveKind::kPermute);
  for (int s = 0; s < kMaxOperands; ++s) {
    const OperandSpec& spec = info->operands[s];
    if (spec.presence == Presence::kNone) continue;
    if (inst.ap[s].present()) {
      out += " " + std::string(spec.name) + "=" + FormatAccessPattern(inst.ap[s]);
    } else if (spec.imm_alt >= 0) {
      out += " " + std::string(spec.name) + "=" +
             FormatImm(inst.imm[spec.imm_alt], ImmIsInteger(inst, spec.imm_alt));
    }
  }
  for (int i = 0; i < kMaxImms; ++i) {
    if (info->imms[i].kind == ImmKind::kUnused || SlotOfImm(*info, i) >= 0) continue;
    if (i == 0 && imm0_done) continue;
    // A collective's shift means something for permute only; elsewhere it is 0 and not shown.
    if (collective && i == 2 && !permute && inst.imm[2] == 0) continue;
    out +=
        " " + std::string(info->imms[i].name) + "=" + FormatImm(inst.imm[i], ImmIsInteger(inst, i));
  }
  uint16_t f = info->fields & ~done_fields;
  if (f & kFieldOp0) out += " op0=" + std::string(AluOpName(inst.op0));
  if (f & kFieldOp1) out += " op1=" + std::string(AluOpName(inst.op1));
  if (f & kFieldFunc) out += " func=" + std::string(ActFuncName(inst.func));
  if (f & kFieldReduceCmd) out += " reduce_cmd=" + std::string(ReduceCmdName(inst.reduce_cmd));
  if (f & kFieldCmp) out += " cmp=" + std::string(CmpOpName(inst.cmp));
  if ((f & kFieldCount) && collective && inst.count < kCollectiveKindCount) {
    out += " " + std::string(info->count_name) + "=" +
           std::string(CollectiveKindName(static_cast<CollectiveKind>(inst.count)));
  } else if (f & kFieldCount) {
    out += " " + std::string(info->count_name) + "=" + S(inst.count);
  }
  if (f & kFieldIndex) out += " " + std::string(info->index_name) + "=" + S(inst.index);
  for (int b = 0; b < kFlagBits; ++b) {
    if (flags & (1u << b)) out += " " + std::string(FlagName(b));
  }
  for (const SyncUpdate& u : inst.Updates()) {
    out += " then " + UpdateText(u.op, u.index, u.value) +
           (u.when == UpdateWhen::kRead ? " @read" : " @complete");
  }
  return out;
}

std::string FormatProgram(const Program& program) {
  std::string out = ".engine " + std::string(EngineName(program.engine)) + "\n";
  for (const Instruction& inst : program.instructions) out += FormatInstruction(inst) + "\n";
  return out;
}

StatusOr<Program> ParseProgram(std::string_view text) {
  Program program;
  bool have_engine = false;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    size_t hash = line.find('#');
    std::string_view body = line.substr(0, hash);
    while (!body.empty() && (body.back() == ' ' || body.back() == '\t' || body.back() == '\r')) {
      body.remove_suffix(1);
    }
    while (!body.empty() && (body.front() == ' ' || body.front() == '\t')) body.remove_prefix(1);
    if (body.empty()) continue;
    if (body.substr(0, 8) == ".engine ") {
      auto e = EngineFromName(body.substr(8));
      if (!e || have_engine) {
        return InvalidError("line " + S(static_cast<int64_t>(line_no)) + ": bad .engine line");
      }
      program.engine = *e;
      have_engine = true;
      continue;
    }
    if (!have_engine) {
      return InvalidError("line " + S(static_cast<int64_t>(line_no)) +
                          ": expected `.engine <pe|act|dve|pool|sp>` first");
    }
    StatusOr<Instruction> inst = ParseInstruction(body);
    if (!inst.ok()) {
      return InvalidError("line " + S(static_cast<int64_t>(line_no)) + ": " +
                          inst.status().message());
    }
    program.instructions.push_back(std::move(inst).value());
  }
  if (!have_engine) return InvalidError("no `.engine` line");
  return program;
}

}  // namespace trnsim::isa
