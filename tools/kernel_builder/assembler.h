// The assembler and disassembler of trnsim's `.s` text format (docs/toolchain.md, "The .s
// format"): a whole NEFF as text — kernel metadata, variables, queue sets, descriptors and one
// section per engine whose lines are isa::FormatInstruction / isa::ParseInstruction text.
//
// Assemble() fills a KernelBuilder and builds it with auto_finish off, so the assembler and
// the C++ builder share one code path and one encoding. Errors are NRT_INVALID and name the
// line: "kernel.s:12: unknown directive '.foo'".
//
// Disassemble() prints a Neff in that format. For a NEFF made by trnsim (the builder or the
// assembler), assembling its disassembly gives the same Neff, so the same NEFF bytes; what the
// format cannot express (foreign engine streams, unusual variable kinds, CCE descriptors) is
// reported in `# warning:` comments.
#pragma once

#include <string>
#include <string_view>

#include "common/status_or.h"
#include "runtime/neff/neff.h"

namespace trnsim::kb {

struct AssembleOptions {
  std::string chip = "trn2";            // limits instructions are validated against
  std::string source_name = "<input>";  // prefixes error messages
  std::string base_dir = ".";           // `file=` paths are relative to it (the .s file's folder)
};

StatusOr<neff::Neff> Assemble(std::string_view text, const AssembleOptions& options = {});

struct DisassembleOptions {
  std::string chip = "trn2";  // limits streams are decoded and validated against
};

StatusOr<std::string> Disassemble(const neff::Neff& neff, const DisassembleOptions& options = {});

}  // namespace trnsim::kb
