// The line every installed trnsim program prints for --version:
//
//   neuron-ls (trnsim) 0.1.0, git 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b
//
// `version` and `git_hash` come from the one place trnsim's version is kept: the CMake project
// version compiled into common/version.cc, read either directly (TrnsimVersion,
// TrnsimGitHash) by tools that link trnsim_version, or through libnrt's
// trnsim_get_version by tools that link libnrt.so. Header-only; no state.
#pragma once

#include <string>
#include <string_view>

namespace trnsim::cli {

inline std::string VersionText(std::string_view program, std::string_view version,
                               std::string_view git_hash) {
  std::string text(program);
  text += " (trnsim) ";
  text += version;
  text += ", git ";
  text += git_hash;
  return text;
}

}  // namespace trnsim::cli
