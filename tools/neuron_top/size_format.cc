#include "tools/neuron_top/size_format.h"

#include <cstdio>

namespace trnsim::neuron_top {

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 3) {
    value /= 1024.0;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof(text), "%.1f%s", value, kUnits[unit]);
  return text;
}

std::string FormatPercent(double percent, int width) {
  char text[48];
  std::snprintf(text, sizeof(text), "%*.2f%%", width > 0 ? width - 1 : 0, percent);
  return text;
}

std::string Fit(const std::string& text, int width) {
  if (width <= 0) return "";
  const size_t w = static_cast<size_t>(width);
  return text.size() >= w ? text.substr(0, w) : text + std::string(w - text.size(), ' ');
}

}  // namespace trnsim::neuron_top
