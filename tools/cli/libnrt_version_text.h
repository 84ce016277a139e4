// VersionText (version_text.h) for programs that link libnrt.so: the version comes from the
// library they run with, through trnsim_get_version (<trnsim/trnsim.h>, works before nrt_init),
// so an installed tool reports the version of the installed library. A failing call (it cannot
// fail with these buffers) gives "unknown". Header-only.
#pragma once

#include <trnsim/trnsim.h>

#include <string>
#include <string_view>

#include "tools/cli/version_text.h"

namespace trnsim::cli {

inline std::string LibnrtVersionText(std::string_view program) {
  char version[64] = "unknown";
  char git_hash[64] = "unknown";
  if (trnsim_get_version(version, sizeof(version), git_hash, sizeof(git_hash)) != NRT_SUCCESS) {
    return VersionText(program, "unknown", "unknown");
  }
  return VersionText(program, version, git_hash);
}

}  // namespace trnsim::cli
