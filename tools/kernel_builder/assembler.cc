// Assemble(): reads a .s file line by line into a KernelBuilder (docs/toolchain.md).
#include "tools/kernel_builder/assembler.h"

#include "runtime/neff/layout.h"
#include "tools/kernel_builder/asm_internal.h"
#include "tools/kernel_builder/asm_text.h"

namespace trnsim::kb {
namespace {

using internal::AsmState;
using internal::Tokens;

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

Label LabelFor(AsmState& s, const std::string& name) {
  auto& map = s.labels[{s.core_index(), static_cast<int>(*s.engine)}];
  auto it = map.find(name);
  if (it != map.end()) return it->second;
  Label l = s.core().stream(*s.engine).NewLabel(name);
  map.emplace(name, l);
  return l;
}

Status Instruction(AsmState& s, std::string_view text) {
  if (!s.engine) return s.Error("an instruction outside an .engine section");
  Stream& stream = s.core().stream(*s.engine);
  // A branch to a label: "branch r0 < 4 -> loop" (a number is an absolute index).
  std::optional<Label> label;
  std::string line(text);
  size_t arrow = line.find("->");
  if (arrow != std::string::npos) {
    size_t start = line.find_first_not_of(" \t", arrow + 2);
    size_t end = start == std::string::npos ? line.size() : line.find_first_of(" \t#", start);
    std::string target = start == std::string::npos ? "" : line.substr(start, end - start);
    if (IsIdentifier(target)) {
      label = LabelFor(s, target);
      line.replace(start, target.size(), "0");
    }
  }
  StatusOr<isa::Instruction> inst = isa::ParseInstruction(line);
  if (!inst.ok()) return s.Error(inst.status().message());
  StatusOr<InstRef> ref = label ? stream.AddBranch(*inst, *label) : stream.Add(*inst);
  if (!ref.ok()) return s.Error(ref.status().message());
  return Status::Ok();
}

Status Directive(AsmState& s, std::string_view text) {
  std::optional<Tokens> tokens = asmtext::Tokenize(text);
  if (!tokens || tokens->empty()) return s.Error("unbalanced [ ] or \" \"");
  const Tokens& t = *tokens;
  const std::string& d = t[0];
  auto one_arg = [&]() -> Status {
    if (t.size() != 2) return s.Error(d + " takes one argument");
    return Status::Ok();
  };
  if (d == ".kernel") {
    TRNSIM_RETURN_IF_ERROR(one_arg());
    s.builder.SetName(t[1]);
    return Status::Ok();
  }
  if (d == ".lnc") {
    TRNSIM_RETURN_IF_ERROR(one_arg());
    auto n = asmtext::ParseInt(t[1]);
    Status set = n ? s.builder.SetLnc(static_cast<int>(*n)) : InvalidError("not a number");
    return set.ok() ? set : s.Error(".lnc: " + set.message());
  }
  if (d == ".uuid") {
    TRNSIM_RETURN_IF_ERROR(one_arg());
    auto bytes = asmtext::ParseHex(t[1]);
    if (!bytes || bytes->size() != 16) return s.Error(".uuid takes 32 hex digits");
    std::copy(bytes->begin(), bytes->end(), s.builder.header().uuid.begin());
    return Status::Ok();
  }
  if (d == ".build_version") {
    TRNSIM_RETURN_IF_ERROR(one_arg());
    auto v = asmtext::ParseQuoted(t[1]);
    if (!v) return s.Error(".build_version takes a \"quoted string\"");
    s.builder.header().neff_build_version = *v;
    return Status::Ok();
  }
  if (d == ".header") return internal::DirectiveHeader(s, t);
  if (d == ".input" || d == ".output" || d == ".const" || d == ".scratch") {
    return internal::DirectiveVariable(s, t);
  }
  if (d == ".subgraph") {
    if (t.size() < 2) return s.Error(".subgraph takes sgNN");
    bool canonical = false;
    auto index = neff::SubgraphIndexOf(t[1], &canonical);
    if (!index || !canonical || static_cast<int>(*index) >= s.builder.lnc()) {
      return s.Error(".subgraph " + t[1] + ": not sg00.." +
                     neff::SubgraphDirName(static_cast<size_t>(s.builder.lnc() - 1)) +
                     " (set .lnc first)");
    }
    s.subgraph = static_cast<int>(*index);
    s.engine.reset();
    for (size_t i = 2; i < t.size(); ++i) {
      auto [key, value] = asmtext::SplitKey(t[i]);
      auto q = asmtext::ParseQuoted(value);
      if (!q || (key != "name" && key != "version")) {
        return s.Error(".subgraph: expected name=\"..\" or version=\"..\", got " + t[i]);
      }
      (key == "name" ? s.core().def_name : s.core().def_version) = *q;
    }
    return Status::Ok();
  }
  if (d == ".queue_set") return internal::DirectiveQueueSet(s, t);
  if (d == ".debug_prefix") {
    auto id = t.size() == 3 ? asmtext::ParseUint(t[1]) : std::nullopt;
    auto text = t.size() == 3 ? asmtext::ParseQuotedEscaped(t[2]) : std::nullopt;
    if (!id || !text || *id > UINT32_MAX) {
      return s.Error(".debug_prefix takes ID \"TEXT\" (escapes: \\\\ and \\xNN)");
    }
    Status added = s.core().debug_prefixes().Append(static_cast<uint32_t>(*id), *text);
    return added.ok() ? added : s.Error(".debug_prefix: " + added.message());
  }
  if (d == ".engine") {
    if (t.size() < 2) return s.Error(".engine takes pe, act, dve, pool or sp");
    auto e = isa::EngineFromName(t[1]);
    if (!e) return s.Error(".engine " + t[1] + ": not pe, act, dve, pool or sp");
    s.engine = *e;
    Core& core = s.core();
    core.stream(*e).Declare();
    for (size_t i = 2; i < t.size(); ++i) {
      auto [key, value] = asmtext::SplitKey(t[i]);
      if (key == "json" && !value.empty()) {
        core.files(*e).json_file = value;
      } else if (key == "instr" && !value.empty()) {
        core.files(*e).instr_file = value;
      } else {
        return s.Error(".engine: expected json=FILE (or json=-) or instr=FILE, got " + t[i]);
      }
    }
    return Status::Ok();
  }
  if (d == ".dma") return internal::DirectiveDma(s, t);
  if (d == ".act_tables" || d == ".dve_table") return internal::DirectiveTables(s, t);
  return s.Error("unknown directive '" + d + "'");
}

}  // namespace

StatusOr<neff::Neff> Assemble(std::string_view text, const AssembleOptions& options) {
  AsmState s(options);
  TRNSIM_RETURN_IF_ERROR(s.builder.status());  // a bad chip name
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++s.line;
    // A '#' starts a comment, except inside a quoted string.
    size_t hash = std::string_view::npos;
    bool quoted = false;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '"') quoted = !quoted;
      if (raw[i] == '#' && !quoted) {
        hash = i;
        break;
      }
    }
    std::string_view line = Trim(raw.substr(0, hash));
    if (line.empty()) continue;
    if (line[0] == '.') {
      TRNSIM_RETURN_IF_ERROR(Directive(s, line));
      continue;
    }
    // "name:" binds a label to the next instruction; an instruction may follow on the line.
    size_t colon = line.find(':');
    size_t blank = line.find_first_of(" \t");
    if (colon != std::string_view::npos && (blank == std::string_view::npos || colon < blank) &&
        IsIdentifier(line.substr(0, colon))) {
      if (!s.engine) return s.Error("a label outside an .engine section");
      Status bound =
          s.core().stream(*s.engine).Bind(LabelFor(s, std::string(line.substr(0, colon))));
      if (!bound.ok()) return s.Error(bound.message());
      line = Trim(line.substr(colon + 1));
      if (line.empty()) continue;
    }
    TRNSIM_RETURN_IF_ERROR(Instruction(s, line));
  }
  BuildOptions build;
  build.auto_finish = false;
  StatusOr<neff::Neff> neff = s.builder.Build(build);
  if (!neff.ok()) return InvalidError(options.source_name + ": " + neff.status().message());
  return neff;
}

}  // namespace trnsim::kb
