#include "tools/device_plugin/core_list.h"

#include <algorithm>

namespace trnsim::device_plugin {

std::string FormatCoreList(std::vector<int> cores) {
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  std::string text;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(cores[i]);
    if (j > i) text += "-" + std::to_string(cores[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace trnsim::device_plugin
