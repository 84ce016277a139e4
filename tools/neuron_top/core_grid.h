// The NeuronCore panel's numbers: one value per device and logical core over the period between
// two samples (docs/tools.md, "neuron-top").
//  - Utilisation of a physical core = increase of CoreView::busy_wall_ns / the wall-clock
//    length of the period (the share of host time an execution was in flight on it), clamped
//    to 100 %; a logical core's is the mean of its physical cores'.
//  - TFLOPS of a physical core = increase of flops / increase of busy_ps (FLOPs per simulated
//    picosecond is TFLOPS): the rate the emulated chip achieves while busy, 0 when it did not
//    run; a logical core's is the sum of its physical cores' (they run side by side).
// A process tab counts only the physical cores its session owns now; the others read 0. A
// counter that went down (a restarted daemon) counts as no increase. Without a previous sample,
// or without a daemon (no CoreViews), every value is 0.
// `average` is the mean over the cells counted: every logical core for `all`, the logical cores
// holding one of the process's physical cores for a process tab (0 when it holds none).
//
// Thread safety: pure function.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/neuron_top/sample.h"

namespace trnsim::neuron_top {

struct CoreGrid {
  bool tflops = false;                      // values are TFLOPS, else percent
  std::vector<std::vector<double>> values;  // [device][logical core on that device]
  double average = 0.0;
};

CoreGrid ComputeCoreGrid(const Sample* previous, const Sample& current, uint64_t session_id,
                         bool tflops);

}  // namespace trnsim::neuron_top
