// EnginePrograms: a model's engine instruction streams, classified and decoded at load.
//
// Every non-empty stream (EngineProgram::instructions) of every subgraph is looked at:
//  - all of them start with trnsim's stream magic (isa::HasStreamMagic): each is decoded and
//    validated against the chip's limits, once (isa::DecodeValidatedStream), and the decoded
//    programs are kept for the chip model — the Model hands them to the device with the
//    streams (driver::ProgramImage::decoded), so in-process the device shares them instead of
//    decoding again and they are held once; a failure — including a stream encoded for another
//    engine than the one whose file holds it — is NRT_INVALID naming the subgraph, the engine and
//    (in the decoder's message) the instruction;
//  - any of them does not: the NEFF's streams are in another encoding (AWS's compiler writes
//    its private one), so the model is *foreign* — it loads and reports its tensors, but cannot
//    be executed (docs/decisions.md, "Models"). A NEFF mixing the two is foreign too: trnsim
//    cannot run the streams it cannot read, and a coincidental magic is no reason to refuse it.
//  - no streams at all: not foreign, and there is nothing to run.
// A decoded debug_print must name a prefix of its subgraph's table (Subgraph::debug_prefixes):
// NRT_INVALID otherwise, naming the subgraph, engine and instruction.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "common/status_or.h"
#include "runtime/neff/neff.h"
#include "simulator/isa/encoding.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::runtime::model {

class EnginePrograms {
 public:
  using PerEngine = std::array<std::shared_ptr<const isa::ValidatedProgram>, isa::kEngineCount>;

  static StatusOr<EnginePrograms> Decode(const neff::Neff& neff, const simulator::ChipSpec& chip);

  bool foreign() const { return foreign_; }
  // The decoded program of `engine` in subgraph `subgraph`; nullptr when the engine has no
  // stream or the model is foreign.
  const isa::PackedProgram* program(size_t subgraph, isa::Engine engine) const;
  // The same, as the validated program to share (null when program() is).
  std::shared_ptr<const isa::ValidatedProgram> validated(size_t subgraph, isa::Engine engine) const;
  size_t stream_count() const { return stream_count_; }
  // True when some decoded stream holds a `collective` instruction (docs/isa.md §7.8): the
  // model must be loaded as a rank (nrt_load_collectives).
  bool has_collectives() const { return has_collectives_; }

 private:
  bool foreign_ = false;
  size_t stream_count_ = 0;          // non-empty streams in the NEFF
  bool has_collectives_ = false;
  std::vector<PerEngine> programs_;  // one per subgraph; empty when foreign
};

}  // namespace trnsim::runtime::model
