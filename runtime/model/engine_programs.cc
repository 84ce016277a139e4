#include "runtime/model/engine_programs.h"

#include <string>

namespace trnsim::runtime::model {

StatusOr<EnginePrograms> EnginePrograms::Decode(const neff::Neff& neff,
                                                const simulator::ChipSpec& chip) {
  EnginePrograms out;
  bool all_trnsim = true;
  for (const neff::Subgraph& subgraph : neff.subgraphs) {
    for (const neff::EngineProgram& engine : subgraph.engines) {
      if (engine.instructions.empty()) continue;
      ++out.stream_count_;
      if (!isa::HasStreamMagic(engine.instructions)) all_trnsim = false;
    }
  }
  if (!all_trnsim) {
    out.foreign_ = true;
    return out;
  }
  out.programs_.resize(neff.subgraphs.size());
  isa::IsaLimits limits = isa::LimitsFor(chip);
  for (size_t k = 0; k < neff.subgraphs.size(); ++k) {
    const neff::Subgraph& subgraph = neff.subgraphs[k];
    for (const neff::EngineProgram& engine : subgraph.engines) {
      if (engine.instructions.empty()) continue;
      std::string where = subgraph.name + " engine " +
                          std::string(neff::EngineFileStem(engine.engine)) + " (" +
                          engine.instr_file + "): ";
      StatusOr<isa::Program> program = isa::DecodeStream(engine.instructions, limits);
      if (!program.ok()) {
        return Status(program.status().code(), where + program.status().message());
      }
      // isa::Engine and neff::EngineKind share their numbering.
      if (static_cast<int>(program->engine) != static_cast<int>(engine.engine)) {
        return InvalidError(where + "the stream is encoded for engine '" +
                            std::string(isa::EngineName(program->engine)) + "'");
      }
      for (const isa::Instruction& inst : program->instructions) {
        out.has_collectives_ |= inst.opcode == isa::Opcode::kCollective;
      }
      out.programs_[k][static_cast<size_t>(engine.engine)] = std::move(*program);
    }
  }
  return out;
}

const isa::Program* EnginePrograms::program(size_t subgraph, neff::EngineKind engine) const {
  if (subgraph >= programs_.size()) return nullptr;
  const std::optional<isa::Program>& slot = programs_[subgraph][static_cast<size_t>(engine)];
  return slot ? &*slot : nullptr;
}

}  // namespace trnsim::runtime::model
