#include "runtime/model/engine_programs.h"

#include <string>

#include "runtime/neff/limits.h"

namespace trnsim::runtime::model {

// A prefix id the ISA accepts always fits the table the NEFF reader accepts, and back.
static_assert(neff::kMaxDebugPrefixes == isa::kMaxDebugPrefixes);

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
                          std::string(isa::EngineFileStem(engine.engine)) + " (" +
                          engine.instr_file + "): ";
      StatusOr<isa::ValidatedProgram> program =
          isa::DecodeValidatedStream(engine.instructions, limits);
      if (!program.ok()) {
        return Status(program.status().code(), where + program.status().message());
      }
      if (program->engine() != engine.engine) {
        return InvalidError(where + "the stream is encoded for engine '" +
                            std::string(isa::EngineName(program->engine())) + "'");
      }
      const isa::PackedProgram& instructions = program->packed();
      for (size_t i = 0; i < instructions.size(); ++i) {
        const isa::Opcode opcode = instructions.opcode(i);
        out.has_collectives_ |= opcode == isa::Opcode::kCollective;
        if (opcode != isa::Opcode::kDebugPrint) continue;
        const isa::Instruction inst = instructions.at(i);
        if (inst.index >= subgraph.debug_prefixes.size()) {
          return InvalidError(where + "instruction " + std::to_string(i) +
                              " (debug_print): prefix " + std::to_string(inst.index) +
                              " is not one of the subgraph's " +
                              std::to_string(subgraph.debug_prefixes.size()) +
                              " debug prefixes (def.json debug_prefixes)");
        }
      }
      out.programs_[k][static_cast<size_t>(engine.engine)] =
          std::make_shared<const isa::ValidatedProgram>(std::move(program).value());
    }
  }
  return out;
}

const isa::PackedProgram* EnginePrograms::program(size_t subgraph, isa::Engine engine) const {
  std::shared_ptr<const isa::ValidatedProgram> slot = validated(subgraph, engine);
  return slot ? &slot->packed() : nullptr;
}

std::shared_ptr<const isa::ValidatedProgram> EnginePrograms::validated(size_t subgraph,
                                                                       isa::Engine engine) const {
  if (subgraph >= programs_.size()) return nullptr;
  return programs_[subgraph][static_cast<size_t>(engine)];
}

}  // namespace trnsim::runtime::model
