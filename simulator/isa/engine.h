// Engine: the five instruction-stream engines of a NeuronCore. The numbering is trnsim's stream
// encoding (docs/isa.md §2); the NEFF model (runtime/neff/neff.h) and the profile format use it
// too, so this is the one definition of the engines, their count, names and NEFF file stems.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trnsim::isa {

enum class Engine : uint8_t {
  kPe = 0,    // Tensor engine (nki.isa.engine.tensor): the 128x128 systolic array
  kAct = 1,   // Scalar engine (nki.isa.engine.scalar): activation functions
  kDve = 2,   // Vector engine (nki.isa.engine.vector)
  kPool = 3,  // GpSimd engine (nki.isa.engine.gpsimd)
  kSp = 4,    // Sync engine (nki.isa.engine.sync): sequencer only, triggers DMA
};
inline constexpr int kEngineCount = 5;

// A set of engines as a bit mask: bit (1 << Engine).
using EngineMask = uint8_t;
constexpr EngineMask EngineBit(Engine e) {
  return static_cast<EngineMask>(1u << static_cast<int>(e));
}
inline constexpr EngineMask kAllEngines = 0x1F;

// "pe", "act", "dve", "pool", "sp"; "?" for a value outside the enum.
std::string_view EngineName(Engine engine);
std::optional<Engine> EngineFromName(std::string_view name);

// The stem of the engine's files in a NEFF subgraph (PE.json, PE.bin): "PE", "Activation", "DVE",
// "Pool", "SP"; "?" for a value outside the enum.
std::string_view EngineFileStem(Engine engine);

}  // namespace trnsim::isa
