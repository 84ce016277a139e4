// How the NEFF payload is laid out: the names of the members ReadNeff/WriteNeff know.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace trnsim::neff {

inline constexpr std::string_view kGraphJsonName = "neff.json";  // top level
inline constexpr std::string_view kDefJsonName = "def.json";     // in each subgraph directory

// "sg00", "sg01", ..., "sg63".
std::string SubgraphDirName(size_t index);

// For a top-level name of the subgraph form ("sg" and decimal digits): its index, or nullopt
// for any other name. `canonical` is set to whether the name is SubgraphDirName(index) (so
// "sg1" and "sg000" are recognised, and refused by the reader, rather than read as files).
std::optional<size_t> SubgraphIndexOf(std::string_view name, bool* canonical);

// True when `path` is already normalised (NormalizeMemberPath(path) would return it).
bool IsCanonicalPath(std::string_view path);

}  // namespace trnsim::neff
