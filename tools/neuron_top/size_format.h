// neuron-top's number formats: memory sizes as AWS's neuron-top prints them ("17.5GB",
// "256.0KB", "0.0B": one decimal, 1024-based units B/KB/MB/GB, GB the largest), percentages
// with two decimals, and fixed-width fields (pad or cut to a width).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace trnsim::neuron_top {

std::string FormatBytes(uint64_t bytes);
// "56.81%" with `width` >= the text: right-aligned in `width` characters.
std::string FormatPercent(double percent, int width = 0);
// `text` cut to `width` characters, or padded with spaces on the right to it; "" for width <= 0.
std::string Fit(const std::string& text, int width);

}  // namespace trnsim::neuron_top
