#include "runtime/neff/layout.h"

#include <cstdio>

#include "runtime/neff/archive.h"

namespace trnsim::neff {

std::string SubgraphDirName(size_t index) {
  char name[32];
  std::snprintf(name, sizeof(name), "sg%02zu", index);
  return name;
}

std::optional<size_t> SubgraphIndexOf(std::string_view name, bool* canonical) {
  if (name.size() < 3 || name.substr(0, 2) != "sg") return std::nullopt;
  size_t index = 0;
  for (char c : name.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    if (index < 1000000) index = index * 10 + static_cast<size_t>(c - '0');
  }
  *canonical = SubgraphDirName(index) == name;
  return index;
}

bool IsCanonicalPath(std::string_view path) {
  StatusOr<std::string> normal = NormalizeMemberPath(path, "path");
  return normal.ok() && *normal == path;
}

}  // namespace trnsim::neff
