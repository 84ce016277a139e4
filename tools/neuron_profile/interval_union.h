// IntervalUnion: the total length of a union of [start, end) intervals added in start order —
// how a profile's busy time is counted (the chip model's BusyStats accounting), per engine in
// summary.cc and per source line in line_summary.cc.
//
// Thread safety: none; a plain value.
#pragma once

#include <algorithm>
#include <cstdint>

namespace trnsim::neuron_profile {

class IntervalUnion {
 public:
  // Intervals must come in non-decreasing start order.
  void Add(uint64_t start, uint64_t end) {
    if (end <= to_) return;
    total_ += end - std::max(start, to_);
    to_ = end;
  }
  uint64_t total() const { return total_; }

 private:
  uint64_t total_ = 0, to_ = 0;
};

}  // namespace trnsim::neuron_profile
