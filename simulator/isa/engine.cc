#include "simulator/isa/engine.h"

#include <array>

namespace trnsim::isa {
namespace {

constexpr std::array<std::string_view, kEngineCount> kNames = {"pe", "act", "dve", "pool", "sp"};
constexpr std::array<std::string_view, kEngineCount> kFileStems = {"PE", "Activation", "DVE",
                                                                   "Pool", "SP"};

}  // namespace

std::string_view EngineName(Engine engine) {
  auto i = static_cast<size_t>(engine);
  return i < kNames.size() ? kNames[i] : "?";
}

std::string_view EngineFileStem(Engine engine) {
  auto i = static_cast<size_t>(engine);
  return i < kFileStems.size() ? kFileStems[i] : "?";
}

std::optional<Engine> EngineFromName(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<Engine>(i);
  }
  return std::nullopt;
}

}  // namespace trnsim::isa
