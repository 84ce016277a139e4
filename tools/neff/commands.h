// The subcommands of `neff` (main.cc parses the command line with CLI11 and calls one of
// these). Each returns the process exit status: 0 on success, 1 on any error, with one line
// "neff <command>: <message>" on stderr. docs/toolchain.md documents every command.
#pragma once

#include <string>

namespace trnsim::neff_tool {

struct AsmArgs {
  std::string source;  // the .s file
  std::string output;  // the NEFF; default: source with .neff for .s
  std::string chip = "trn2";
};
int RunAsm(const AsmArgs& args);

struct DisasmArgs {
  std::string neff;
  std::string output;  // default: stdout
  std::string chip = "trn2";
};
int RunDisasm(const DisasmArgs& args);

struct InspectArgs {
  std::string neff;
  bool json = false;
  std::string chip = "trn2";
};
int RunInspect(const InspectArgs& args);

int RunUnpack(const std::string& neff, const std::string& dir);
int RunPack(const std::string& dir, const std::string& output);

struct VerifyArgs {
  std::string neff;
  std::string chip = "trn2";
};
int RunVerify(const VerifyArgs& args);

}  // namespace trnsim::neff_tool
