// Kernel source lines for a profile's instructions (docs/profiling.md §5, "Source lines").
//
// A NEFF built by trnsim's NKI front end carries the member `kernel_debug_info.json` (AWS's
// NKI_DEBUG_INFO idea; docs/nki.md "Profiles and source lines"):
//
//   {"kernel": "matmul", "instructions": [{"core": 0, "engine": "pe", "index": 3,
//     "opcode": "multiply_moving", "api": "nisa.nc_matmul", "file": "/k/mm.py", "line": 31}]}
//
// one entry per instruction the kernel made: core = subgraph, index = the instruction's final
// position in that engine's stream (the pc a profile records). Instructions the builder adds
// (notify_end, sem_waits) have no entry. AttachSources gives each instruction of the profile the
// source of its entry: the instruction ran on physical core c of a logical core of `subgraphs`
// physical cores, i.e. subgraph c % subgraphs (a logical core's physical cores are consecutive
// and aligned), at (engine, pc).
//
// Errors (NRT_INVALID, naming the file and field): a malformed member (a missing or mistyped
// field, an unknown engine, a core outside the NEFF's subgraphs, two entries for one
// instruction), and a NEFF that is not the one profiled — an entry whose opcode is not what the
// profile ran there. Never throws.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/status_or.h"
#include "tools/neuron_profile/profile.h"

namespace trnsim::neuron_profile {

inline constexpr std::string_view kKernelDebugInfoMember = "kernel_debug_info.json";

struct KernelDebugInfo {
  struct Entry {
    std::string opcode;
    int source = 0;  // index into sources
  };
  std::string kernel;                   // the member's "kernel"
  std::string model_name;               // the NEFF's name, which a profile's executions record
  int subgraphs = 1;                    // the NEFF's subgraph count (its LNC)
  std::vector<SourceLocation> sources;  // distinct (file, line, api)
  std::map<std::tuple<int, int, uint64_t>, Entry> entries;  // (subgraph, engine, index)
};

// Parses the member's text; `engines` are the engine names in profile order ("pe", ...).
// model_name is set to the member's kernel name.
StatusOr<KernelDebugInfo> ParseKernelDebugInfo(const std::string& where, std::string_view text,
                                               const std::vector<std::string>& engines,
                                               int subgraphs);

// The debug info of the NEFF file at `neff_path`, or nullopt when it has no such member.
// NRT_INVALID for a file that cannot be read or is not a valid NEFF.
StatusOr<std::optional<KernelDebugInfo>> ReadKernelDebugInfo(
    const std::string& neff_path, const std::vector<std::string>& engines);

// Sets InstructionEvent::source (and ProfileDocument::sources) for the instructions of every execution of
// the kernel: those whose model_name is the NEFF's, or every one when the file names none.
// On an error the profile is unchanged.
Status AttachSources(const KernelDebugInfo& info, ProfileDocument* profile);

// "mm.py:31": the file's last path component and the line.
std::string ShortLocation(const SourceLocation& s);

}  // namespace trnsim::neuron_profile
