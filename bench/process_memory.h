// The process's own memory figures for benchmarks that report RSS: fields of /proc/self/status
// and the peak-RSS reset of /proc/self/clear_refs (Linux).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace trnsim::bench {

// A /proc/self/status field in kB ("VmRSS", "VmHWM"); 0 when absent.
inline uint64_t StatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t len = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':')
      return std::strtoull(line.c_str() + len + 1, nullptr, 10);
  }
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0); false when the kernel refuses.
inline bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace trnsim::bench
