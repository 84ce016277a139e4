// neff: trnsim's NEFF toolchain (docs/toolchain.md).
//
//   neff asm KERNEL.s [-o K.neff] [--chip trn2|trn3]     assemble
//   neff disasm K.neff [-o K.s] [--chip ...]             disassemble (re-assembles identically)
//   neff inspect K.neff [--json] [--chip ...]            summary, or stable JSON
//   neff unpack K.neff DIR                               DIR/header.json + DIR/payload/...
//   neff pack DIR -o K.neff                              the reverse; recomputes size and hash
//   neff verify K.neff [--chip ...]                      every check; exit 1 on any problem
#include <CLI/CLI.hpp>
#include <exception>
#include <new>

#include "common/version.h"
#include "tools/cli/version_text.h"
#include "tools/neff/commands.h"
#include "tools/neff/files.h"

namespace {

using namespace trnsim::neff_tool;

int Run(int argc, char** argv) {
  CLI::App app{"neff: assemble, disassemble, inspect, unpack, pack and verify trnsim NEFFs"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       trnsim::cli::VersionText("neff", trnsim::TrnsimVersion(),
                                                trnsim::TrnsimGitHash()),
                       "print the trnsim version and exit");
  const std::vector<std::string> chips = {"trn2", "trn3"};

  AsmArgs asm_args;
  CLI::App* as = app.add_subcommand("asm", "Assemble a .s file into a NEFF");
  as->add_option("source", asm_args.source, "the .s file")->required();
  as->add_option("-o,--output", asm_args.output, "the NEFF to write (default: SOURCE with .neff)");
  as->add_option("--chip", asm_args.chip, "validate for this chip")->check(CLI::IsMember(chips));

  DisasmArgs dis_args;
  CLI::App* dis = app.add_subcommand("disasm", "Print a NEFF as .s text");
  dis->add_option("neff", dis_args.neff, "the NEFF")->required();
  dis->add_option("-o,--output", dis_args.output, "write here instead of stdout");
  dis->add_option("--chip", dis_args.chip, "decode for this chip")->check(CLI::IsMember(chips));

  InspectArgs ins_args;
  CLI::App* ins = app.add_subcommand("inspect", "Summarise a NEFF");
  ins->add_option("neff", ins_args.neff, "the NEFF")->required();
  ins->add_flag("--json", ins_args.json, "stable JSON (sorted keys; docs/toolchain.md)");
  ins->add_option("--chip", ins_args.chip, "decode for this chip")->check(CLI::IsMember(chips));

  std::string unpack_neff, unpack_dir;
  CLI::App* unp =
      app.add_subcommand("unpack", "Unpack a NEFF into DIR/header.json and DIR/payload/");
  unp->add_option("neff", unpack_neff, "the NEFF")->required();
  unp->add_option("dir", unpack_dir, "the folder to write")->required();

  std::string pack_dir, pack_out;
  CLI::App* pk = app.add_subcommand("pack", "Pack an unpacked folder into a NEFF");
  pk->add_option("dir", pack_dir, "the folder neff unpack wrote")->required();
  pk->add_option("-o,--output", pack_out, "the NEFF to write")->required();

  VerifyArgs ver_args;
  CLI::App* ver = app.add_subcommand("verify", "Check a NEFF: hash, container, every stream");
  ver->add_option("neff", ver_args.neff, "the NEFF")->required();
  ver->add_option("--chip", ver_args.chip, "validate for this chip")->check(CLI::IsMember(chips));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (*as) return RunAsm(asm_args);
  if (*dis) return RunDisasm(dis_args);
  if (*ins) return RunInspect(ins_args);
  if (*unp) return RunUnpack(unpack_neff, unpack_dir);
  if (*pk) return RunPack(pack_dir, pack_out);
  return RunVerify(ver_args);
}

}  // namespace

int main(int argc, char** argv) {
  // Errors are values all the way down; this only turns an unexpected exception (out of memory,
  // a filesystem error) into one line and status 1 instead of a crash.
  try {
    return Run(argc, argv);
  } catch (const std::bad_alloc&) {
    return trnsim::neff_tool::Fail("-", "out of memory");
  } catch (const std::exception& e) {
    return trnsim::neff_tool::Fail("-", e.what());
  }
}
