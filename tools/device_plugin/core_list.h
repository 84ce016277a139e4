// Core lists as NEURON_RT_VISIBLE_CORES takes them (AWS's runtime configuration: a core, a
// range "4-7", or a comma-separated list of both): FormatCoreList writes the compact form —
// ascending, runs of two or more consecutive cores as "a-b" — e.g. {0,1,2,3,8,9,10,11} is
// "0-3,8-11" and {5} is "5".
//
// Thread safety: pure.
#pragma once

#include <string>
#include <vector>

namespace trnsim::device_plugin {

// `cores` in any order, duplicates ignored; empty gives "".
std::string FormatCoreList(std::vector<int> cores);

}  // namespace trnsim::device_plugin
