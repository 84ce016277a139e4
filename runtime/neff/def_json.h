// sgNN/def.json, the root of a subgraph: queue sets ("dma_queue"), variables ("var"), engine
// references ("<eng>": "<Engine>.json", "<eng>_instr": "<file>") and "name"/"version".
// Schema: docs/neff.md, "def.json".
#pragma once

#include <string_view>

#include "common/status.h"
#include "runtime/neff/json_util.h"
#include "runtime/neff/neff.h"

namespace trnsim::neff {

// Fills sg->queue_sets, sg->variables, sg->def_name/def_version and sg->engines (engine, json_file
// and instr_file only; the reader loads the files). Checks JSON types; semantics are
// ValidateNeff's. `file` names the member in errors ("sg00/def.json").
Status ParseDefJson(const Json& root, std::string_view file, Subgraph* sg);

// The def.json of `sg` (ParseDefJson(DefJsonOf(sg)) restores what it reads).
Json DefJsonOf(const Subgraph& sg);

}  // namespace trnsim::neff
