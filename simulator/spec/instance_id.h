// The emulated EC2 instance id: "i-0" followed by 16 lower-case hex digits, a 64-bit FNV-1a
// hash of the instance type. There is no EC2 instance behind trnsim, so the id is a stable
// stand-in: the same type always has the same id, on every host and in every run, so listings
// and golden files do not change; different types differ.
//
// Lives with the instance specs (not in tools/) because the runtime names its
// NEURON_RT_INSPECT_OUTPUT_DIR session directories after it, as AWS does after the EC2 id.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace trnsim::simulator {

std::string EmulatedInstanceId(std::string_view instance_type);

}  // namespace trnsim::simulator
