// ParseInstruction: the inverse of FormatInstruction (docs/isa.md §10).
#include <string>
#include <vector>

#include "simulator/isa/text.h"
#include "simulator/isa/text_internal.h"

namespace trnsim::isa {
namespace {

using internal::ParseImm;
using internal::ParseInt;

std::string S(int64_t v) { return std::to_string(v); }

// Splits at blanks outside brackets: "dst=sbuf[p0:128, 0 + [4 x 1]]" stays one token.
std::vector<std::string_view> Tokenize(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    size_t start = i;
    int depth = 0;
    while (i < line.size() &&
           (depth > 0 || (line[i] != ' ' && line[i] != '\t' && line[i] != '\r'))) {
      if (line[i] == '[') ++depth;
      if (line[i] == ']' && depth > 0) --depth;
      ++i;
    }
    tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

class Parser {
 public:
  explicit Parser(std::vector<std::string_view> tokens) : t_(std::move(tokens)) {}

  StatusOr<Instruction> Run();

 private:
  bool More() const { return i_ < t_.size(); }
  std::string_view Peek() const { return More() ? t_[i_] : std::string_view(); }
  std::string_view Next() { return More() ? t_[i_++] : std::string_view(); }
  Status Fail(const std::string& why) const {
    return InvalidError("cannot parse instruction: " + why +
                        (More() ? " at \"" + std::string(Peek()) + "\"" : " at end of line"));
  }
  // "S[12]" -> 12 when the letter matches.
  static std::optional<int64_t> Indexed(std::string_view tok, char letter) {
    if (tok.size() < 4 || tok[0] != letter || tok[1] != '[' || tok.back() != ']')
      return std::nullopt;
    auto v = ParseInt(tok.substr(2, tok.size() - 3));
    if (!v || *v < 0 || *v > 0xFFFF) return std::nullopt;
    return v;
  }
  static std::optional<uint8_t> Register(std::string_view tok) {
    if (tok.size() < 2 || tok[0] != 'r') return std::nullopt;
    auto v = ParseInt(tok.substr(1));
    if (!v || *v < 0 || *v > 0xFE) return std::nullopt;
    return static_cast<uint8_t>(*v);
  }
  std::optional<uint32_t> U32(std::string_view tok) {
    auto v = ParseInt(tok);
    if (!v || *v < 0 || *v > static_cast<int64_t>(UINT32_MAX)) return std::nullopt;
    return static_cast<uint32_t>(*v);
  }
  Status ParseWait();
  Status ParseUpdate();
  Status ParsePositional();
  Status ParseKeyValue(std::string_view key, std::string_view value);
  // Reg/imm right-hand side of reg_add and branch.
  Status RegOrImm(std::string_view tok);

  std::vector<std::string_view> t_;
  size_t i_ = 0;
  Instruction inst_;
  const OpcodeInfo* info_ = nullptr;
  uint32_t seen_ = 0;  // bit per key: operands 0..4, imms 8..11, fields 16+
};

Status Parser::ParseWait() {
  Next();  // "wait"
  SyncWait w;
  std::string_view target = Next();
  auto sem = Indexed(target, 'S');
  auto evt = Indexed(target, 'E');
  if (!sem && !evt) return Fail("expected S[n] or E[n] after wait");
  w.kind = sem ? WaitKind::kSemaphore : WaitKind::kEvent;
  w.index = static_cast<uint16_t>(sem ? *sem : *evt);
  auto cmp = CmpOpFromName(Next());
  if (!cmp) return Fail("expected a comparison (<, <=, ==, !=, >=, >)");
  w.cmp = *cmp;
  auto value = U32(Next());
  if (!value) return Fail("expected a uint32 value");
  w.value = *value;
  if (inst_.num_waits >= kMaxWaits) return Fail("more than " + S(kMaxWaits) + " waits");
  AddWait(inst_, w);
  return Status::Ok();
}

Status Parser::ParseUpdate() {
  Next();  // "then"
  SyncUpdate u;
  std::string_view target = Next();
  auto sem = Indexed(target, 'S');
  auto evt = Indexed(target, 'E');
  std::string_view op = Next();
  if (sem) {
    u.index = static_cast<uint16_t>(*sem);
    if (op == "+=")
      u.op = UpdateOp::kSemAdd;
    else if (op == "-=")
      u.op = UpdateOp::kSemSub;
    else if (op == "=")
      u.op = UpdateOp::kSemSet;
    else
      return Fail("expected +=, -= or = after S[n]");
    auto value = U32(Next());
    if (!value) return Fail("expected a uint32 value");
    u.value = *value;
  } else if (evt) {
    u.index = static_cast<uint16_t>(*evt);
    if (op == "set")
      u.op = UpdateOp::kEventSet;
    else if (op == "clear")
      u.op = UpdateOp::kEventClear;
    else
      return Fail("expected set or clear after E[n]");
  } else {
    return Fail("expected S[n] or E[n] after then");
  }
  std::string_view when = Next();
  if (when == "@complete")
    u.when = UpdateWhen::kComplete;
  else if (when == "@read")
    u.when = UpdateWhen::kRead;
  else
    return Fail("expected @complete or @read");
  if (inst_.num_updates >= kMaxUpdates) return Fail("more than " + S(kMaxUpdates) + " updates");
  AddUpdate(inst_, u);
  return Status::Ok();
}

Status Parser::RegOrImm(std::string_view tok) {
  if (auto r = Register(tok)) {
    inst_.reg1 = *r;
    inst_.flags |= kFlagRegOperand;
    return Status::Ok();
  }
  auto v = ParseImm(tok);
  if (!v) return Fail("expected a register or an integer");
  inst_.imm[0] = *v;
  return Status::Ok();
}

Status Parser::ParsePositional() {
  TextStyle style = info_->text_style;
  if (style == TextStyle::kGeneric || style == TextStyle::kCollective) return Status::Ok();
  if (style == TextStyle::kSemWait || style == TextStyle::kSemUpdate ||
      style == TextStyle::kEvent) {
    std::string_view tok = Next();
    auto index = Indexed(tok, style == TextStyle::kEvent ? 'E' : 'S');
    if (!index) return Fail(style == TextStyle::kEvent ? "expected E[n]" : "expected S[n]");
    inst_.index = static_cast<uint32_t>(*index);
    if (style == TextStyle::kEvent) return Status::Ok();
    std::string_view op = Next();
    if (style == TextStyle::kSemWait) {
      auto cmp = CmpOpFromName(op);
      if (!cmp) return Fail("expected a comparison");
      inst_.cmp = *cmp;
    } else if (op == "+=") {
      inst_.sem_op = UpdateOp::kSemAdd;
    } else if (op == "-=") {
      inst_.sem_op = UpdateOp::kSemSub;
    } else if (op == "=") {
      inst_.sem_op = UpdateOp::kSemSet;
    } else {
      return Fail("expected +=, -= or =");
    }
    auto value = U32(Next());
    if (!value) return Fail("expected a uint32 value");
    inst_.imm[0] = *value;
    return Status::Ok();
  }
  auto r0 = Register(Next());
  if (!r0) return Fail("expected a register r<n>");
  inst_.reg0 = *r0;
  switch (style) {
    case TextStyle::kRegSet: {
      if (Next() != "=") return Fail("expected =");
      auto v = ParseImm(Next());
      if (!v) return Fail("expected an integer");
      inst_.imm[0] = *v;
      return Status::Ok();
    }
    case TextStyle::kRegAdd:
      if (Next() != "+=") return Fail("expected +=");
      return RegOrImm(Next());
    case TextStyle::kBranch: {
      auto cmp = CmpOpFromName(Next());
      if (!cmp) return Fail("expected a comparison");
      inst_.cmp = *cmp;
      TRNSIM_RETURN_IF_ERROR(RegOrImm(Next()));
      if (Next() != "->") return Fail("expected -> <target>");
      auto target = ParseInt(Next());
      if (!target || *target < INT32_MIN || *target > INT32_MAX) return Fail("bad branch target");
      inst_.target = static_cast<int32_t>(*target);
      return Status::Ok();
    }
    default:
      return Status::Ok();
  }
}

Status Parser::ParseKeyValue(std::string_view key, std::string_view value) {
  auto once = [&](int bit) -> Status {
    if (seen_ & (1u << bit)) return Fail("key " + std::string(key) + " given twice");
    seen_ |= 1u << bit;
    return Status::Ok();
  };
  for (int s = 0; s < kMaxOperands; ++s) {
    const OperandSpec& spec = info_->operands[s];
    if (spec.presence == Presence::kNone || spec.name != key) continue;
    TRNSIM_RETURN_IF_ERROR(once(s));
    if (value.find('[') != std::string_view::npos) {
      std::string ap_text(value);
      if (More()) ap_text += " " + std::string(Next());  // the dtype
      StatusOr<AccessPattern> ap = ParseAccessPattern(ap_text);
      if (!ap.ok()) return ap.status();
      inst_.ap[s] = *ap;
      return Status::Ok();
    }
    if (spec.imm_alt < 0) return Fail("operand " + std::string(key) + " needs an access pattern");
    auto v = ParseImm(value);
    if (!v) return Fail("bad immediate for " + std::string(key));
    TRNSIM_RETURN_IF_ERROR(once(8 + spec.imm_alt));
    inst_.imm[spec.imm_alt] = *v;
    return Status::Ok();
  }
  for (int i = 0; i < kMaxImms; ++i) {
    if (info_->imms[i].kind == ImmKind::kUnused || info_->imms[i].name != key) continue;
    TRNSIM_RETURN_IF_ERROR(once(8 + i));
    auto v = ParseImm(value);
    if (!v) return Fail("bad immediate for " + std::string(key));
    inst_.imm[i] = *v;
    return Status::Ok();
  }
  uint16_t f = info_->fields;
  if (key == "op0" && (f & kFieldOp0)) {
    TRNSIM_RETURN_IF_ERROR(once(16));
    auto op = AluOpFromName(value);
    if (!op) return Fail("unknown ALU op " + std::string(value));
    inst_.op0 = *op;
  } else if (key == "op1" && (f & kFieldOp1)) {
    TRNSIM_RETURN_IF_ERROR(once(17));
    auto op = AluOpFromName(value);
    if (!op) return Fail("unknown ALU op " + std::string(value));
    inst_.op1 = *op;
  } else if (key == "func" && (f & kFieldFunc)) {
    TRNSIM_RETURN_IF_ERROR(once(18));
    auto fn = ActFuncFromName(value);
    if (!fn) return Fail("unknown activation function " + std::string(value));
    inst_.func = *fn;
  } else if (key == "reduce_cmd" && (f & kFieldReduceCmd)) {
    TRNSIM_RETURN_IF_ERROR(once(19));
    auto cmd = ReduceCmdFromName(value);
    if (!cmd) return Fail("unknown reduce_cmd " + std::string(value));
    inst_.reduce_cmd = *cmd;
  } else if (key == "cmp" && (f & kFieldCmp)) {
    TRNSIM_RETURN_IF_ERROR(once(20));
    auto cmp = CmpOpFromName(value);
    if (!cmp) return Fail("unknown comparison " + std::string(value));
    inst_.cmp = *cmp;
  } else if ((f & kFieldCount) && key == info_->count_name) {
    TRNSIM_RETURN_IF_ERROR(once(21));
    if (info_->text_style == TextStyle::kCollective) {
      // By name; a number (as an out-of-range kind prints) is read as the raw field.
      if (auto kind = CollectiveKindFromName(value)) {
        inst_.count = static_cast<uint8_t>(*kind);
        return Status::Ok();
      }
      if (!ParseInt(value)) {
        return Fail("unknown collective kind " + std::string(value) +
                    " (all_reduce, all_gather, reduce_scatter, all_to_all, permute)");
      }
    }
    auto v = ParseInt(value);
    if (!v || *v < 0 || *v > 255) return Fail(std::string(key) + " must be 0..255");
    inst_.count = static_cast<uint8_t>(*v);
  } else if ((f & kFieldIndex) && key == info_->index_name) {
    TRNSIM_RETURN_IF_ERROR(once(22));
    auto v = U32(value);
    if (!v) return Fail(std::string(key) + " must be a uint32");
    inst_.index = *v;
  } else {
    return Fail(std::string(info_->mnemonic) + " has no key " + std::string(key));
  }
  return Status::Ok();
}

StatusOr<Instruction> Parser::Run() {
  while (Peek() == "wait") TRNSIM_RETURN_IF_ERROR(ParseWait());
  std::string_view mnemonic = Next();
  info_ = FindOpcodeByMnemonic(mnemonic);
  if (info_ == nullptr) {
    --i_;
    return Fail("unknown mnemonic");
  }
  inst_.opcode = info_->opcode;
  TRNSIM_RETURN_IF_ERROR(ParsePositional());
  while (More() && Peek() != "then") {
    std::string_view tok = Next();
    size_t eq = tok.find('=');
    if (eq == std::string_view::npos) {
      bool found = false;
      for (int b = 0; b < kFlagBits && !found; ++b) {
        if (FlagName(b) == tok && (info_->flags & (1u << b))) {
          inst_.flags |= static_cast<uint16_t>(1u << b);
          found = true;
        }
      }
      if (!found) {
        --i_;
        return Fail(std::string(info_->mnemonic) + " has no flag of that name");
      }
      continue;
    }
    TRNSIM_RETURN_IF_ERROR(ParseKeyValue(tok.substr(0, eq), tok.substr(eq + 1)));
  }
  while (More()) {
    if (Peek() != "then") return Fail("expected then");
    TRNSIM_RETURN_IF_ERROR(ParseUpdate());
  }
  // Omitted immediates take their defaults, unless their operand was given as a tensor.
  for (int i = 0; i < kMaxImms; ++i) {
    if (info_->imms[i].kind == ImmKind::kUnused || (seen_ & (1u << (8 + i)))) continue;
    bool tensor = false;
    for (int s = 0; s < kMaxOperands; ++s) {
      if (info_->operands[s].imm_alt == i && inst_.ap[s].present()) tensor = true;
    }
    bool positional = i == 0 && info_->text_style != TextStyle::kGeneric &&
                      info_->text_style != TextStyle::kRegMem &&
                      info_->text_style != TextStyle::kCollective;
    if (!tensor && !positional) inst_.imm[i] = info_->imms[i].default_bits;
  }
  // A permute's shift defaults to 1 (receive from the previous position); other collectives
  // have none (0).
  if (info_->text_style == TextStyle::kCollective && !(seen_ & (1u << (8 + 2))) &&
      inst_.count == static_cast<uint8_t>(CollectiveKind::kPermute)) {
    inst_.imm[2] = 1;
  }
  return inst_;
}

}  // namespace

StatusOr<Instruction> ParseInstruction(std::string_view line) {
  std::string_view body = line.substr(0, line.find('#'));
  std::vector<std::string_view> tokens = Tokenize(body);
  if (tokens.empty()) return InvalidError("cannot parse instruction: empty line");
  return Parser(std::move(tokens)).Run();
}

}  // namespace trnsim::isa
