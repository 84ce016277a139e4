// neff asm / neff disasm.
#include <cstdio>
#include <filesystem>
#include <string>

#include "runtime/neff/neff_io.h"
#include "tools/kernel_builder/assembler.h"
#include "tools/neff/commands.h"
#include "tools/neff/files.h"

namespace trnsim::neff_tool {

int RunAsm(const AsmArgs& args) {
  StatusOr<std::vector<uint8_t>> text = ReadFile(args.source);
  if (!text.ok()) return Fail("asm", text.status().message());
  kb::AssembleOptions options;
  options.chip = args.chip;
  options.source_name = args.source;
  std::filesystem::path parent = std::filesystem::path(args.source).parent_path();
  options.base_dir = parent.empty() ? "." : parent.string();
  StatusOr<neff::Neff> n = kb::Assemble(
      std::string_view(reinterpret_cast<const char*>(text->data()), text->size()), options);
  if (!n.ok()) return Fail("asm", n.status().message());
  StatusOr<std::vector<uint8_t>> bytes = neff::WriteNeff(*n);
  if (!bytes.ok()) return Fail("asm", args.source + ": " + bytes.status().message());
  std::string out = args.output;
  if (out.empty()) out = std::filesystem::path(args.source).replace_extension(".neff").string();
  Status written = WriteFile(out, *bytes);
  if (!written.ok()) return Fail("asm", written.message());
  return 0;
}

int RunDisasm(const DisasmArgs& args) {
  StatusOr<std::vector<uint8_t>> bytes = ReadFile(args.neff);
  if (!bytes.ok()) return Fail("disasm", bytes.status().message());
  StatusOr<neff::Neff> n = neff::ReadNeff(*bytes);
  if (!n.ok()) return Fail("disasm", args.neff + ": " + n.status().message());
  kb::DisassembleOptions options;
  options.chip = args.chip;
  StatusOr<std::string> text = kb::Disassemble(*n, options);
  if (!text.ok()) return Fail("disasm", args.neff + ": " + text.status().message());
  if (args.output.empty() || args.output == "-") {
    std::fwrite(text->data(), 1, text->size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : Fail("disasm", "cannot write to stdout");
  }
  Status written = WriteFile(args.output, *text);
  return written.ok() ? 0 : Fail("disasm", written.message());
}

}  // namespace trnsim::neff_tool
