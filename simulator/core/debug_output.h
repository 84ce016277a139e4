// DebugOutput: the device's debug buffer for one execution — where the chip model's cores put
// what their `debug_print` instructions read (docs/isa.md §7.10) — and the bound on it.
//
// The hardware hands device prints to the runtime through a buffer of finite size; trnsim
// bounds what one execution can carry the same way (and so what one Execute reply of neurond
// carries): at most DebugPrintLimits::max_prints prints and max_bytes of tensor data, over all
// cores of the execution. A print past either bound still executes (it costs the same and reads
// the same bytes) but is not kept: it is counted in dropped(). The runtime reports the count.
//
// Order: Take() returns the kept prints sorted by issue time, then the core's index in the
// execution, then engine (isa::Engine order), then pc — a fixed order for prints issued at the
// same picosecond on different engines or cores; one engine never issues two at once.
//
// Thread safety: none; used by the execution's scheduler thread.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/reference/debug_print.h"

namespace trnsim::simulator::core {

struct DebugPrintLimits {
  uint64_t max_prints = 65536;              // per execution (the runtime's default buffer)
  uint64_t max_bytes = uint64_t{64} << 20;  // tensor data per execution, all cores
};

class DebugOutput {
 public:
  explicit DebugOutput(DebugPrintLimits limits) : limits_(limits) {}

  // Keeps `print` if both bounds allow it; counts it as dropped otherwise.
  void Record(reference::DebugPrint print);
  // The kept prints in the order above; leaves the output empty.
  std::vector<reference::DebugPrint> Take();
  uint64_t dropped() const { return dropped_; }

 private:
  DebugPrintLimits limits_;
  std::vector<reference::DebugPrint> prints_;
  uint64_t bytes_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace trnsim::simulator::core
