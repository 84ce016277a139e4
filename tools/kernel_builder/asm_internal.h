// The assembler's state while it reads a .s file (assembler.cc drives it; asm_directives.cc
// implements the data directives). Internal to the kernel builder library.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/kernel_builder/assembler.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::kb::internal {

struct AsmState {
  AsmState(const AssembleOptions& o) : options(o), builder(KernelOptions{"kernel", o.chip, 1}) {}

  const AssembleOptions& options;
  KernelBuilder builder;
  int line = 0;
  int subgraph = -1;                  // -1 until the first .subgraph: variables go everywhere
  std::optional<isa::Engine> engine;  // the open .engine section
  // Labels per (core, engine): name -> label.
  std::map<std::pair<int, int>, std::map<std::string, Label>> labels;

  int core_index() const { return subgraph < 0 ? 0 : subgraph; }
  Core& core() { return builder.core(core_index()); }
  Status Error(const std::string& message) const {
    return InvalidError(options.source_name + ":" + std::to_string(line) + ": " + message);
  }
};

using Tokens = std::vector<std::string>;

// Each takes the directive's tokens (tokens[0] is the directive itself).
Status DirectiveVariable(AsmState& s, const Tokens& t);  // .input .output .const .scratch
Status DirectiveQueueSet(AsmState& s, const Tokens& t);  // .queue_set
Status DirectiveDma(AsmState& s, const Tokens& t);       // .dma
Status DirectiveHeader(AsmState& s, const Tokens& t);    // .header
Status DirectiveTables(AsmState& s, const Tokens& t);    // .act_tables .dve_table

}  // namespace trnsim::kb::internal
