// File helpers of the neff tool: whole-file reads and writes with Status errors, and the one
// place that prints a command's error line.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status_or.h"

namespace trnsim::neff_tool {

StatusOr<std::vector<uint8_t>> ReadFile(const std::string& path);
// Writes through a temporary file in the same folder, renamed into place, so a failed write
// never leaves a truncated NEFF behind.
Status WriteFile(const std::string& path, std::span<const uint8_t> bytes);
Status WriteFile(const std::string& path, const std::string& text);

// Prints "neff <command>: <message>" on stderr and returns 1.
int Fail(const char* command, const std::string& message);

}  // namespace trnsim::neff_tool
