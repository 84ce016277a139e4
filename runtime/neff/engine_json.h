// sgNN/<Engine>.json: an engine's DMA descriptors ("dma"), and for Activation/DVE their table
// lists ("activation_function_sets", "dve_tables"). Schema: docs/neff.md, "Engine JSON".
#pragma once

#include <string_view>

#include "common/status.h"
#include "runtime/neff/json_util.h"
#include "runtime/neff/neff.h"

namespace trnsim::neff {

// Fills engine->dma, activation_function_sets and dve_tables. Checks JSON types and the shape
// of each field (list lengths); cross-references are ValidateNeff's. `file` names the member.
Status ParseEngineJson(const Json& root, std::string_view file, EngineProgram* engine);

// The engine JSON of `engine` (ParseEngineJson(EngineJsonOf(e)) restores what it reads).
Json EngineJsonOf(const EngineProgram& engine);

}  // namespace trnsim::neff
