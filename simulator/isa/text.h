// The text form: one instruction per line (docs/isa.md §10). The disassembler prints with
// FormatInstruction and the assembler reads with ParseInstruction; for every valid instruction
//   ParseInstruction(FormatInstruction(i)) == i   and   Format(Parse(s)) == s for canonical s.
// Parsing checks syntax and ranges of the fields it reads, not the ISA rules: run Validate()
// on the result.
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"
#include "simulator/isa/access_pattern.h"
#include "simulator/isa/instruction.h"

namespace trnsim::isa {

// "tensor_tensor dst=sbuf[p0:128, 0 + [512 x 1]] fp32 in0=... op0=add then S[3] += 1 @complete"
std::string FormatInstruction(const Instruction& inst);
// Accepts the canonical form plus: keys in any order, `[512]` for `[512 x 1]`, plain byte offsets
// for PSUM, omitted immediates (their default), surrounding blanks and a trailing `# comment`.
StatusOr<Instruction> ParseInstruction(std::string_view line);

// "sbuf[p0:128, 4096 + [512 x 1]] bf16" and back.
std::string FormatAccessPattern(const AccessPattern& ap);
StatusOr<AccessPattern> ParseAccessPattern(std::string_view text);

// A whole stream: a `.engine <name>` line, then one instruction per line. Blank lines and
// `#` comments are skipped by the parser.
std::string FormatProgram(const Program& program);
StatusOr<Program> ParseProgram(std::string_view text);

}  // namespace trnsim::isa
