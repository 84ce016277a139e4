#include "tools/neuron_profile/profile.h"

#include <cctype>

namespace trnsim::neuron_profile {

std::string EngineLabel(const ProfileDocument& profile, int engine) {
  std::string name = profile.engines[size_t(engine)];
  for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace trnsim::neuron_profile
