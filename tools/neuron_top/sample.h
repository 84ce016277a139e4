// Sample: one refresh of neuron-top's data — a snapshot of the instance (tools/observe) and the
// host CPU shares over the period that ended with it. neuron-top's pure layer (core_grid.h,
// memory_tree.h, screen.h) computes everything it shows from two consecutive samples; the
// sampler (sampler.h) is the only code that reads the daemon, /proc or a clock to make one.
//
// Thread safety: plain values; share a const Sample freely.
#pragma once

#include <cstdint>
#include <map>

#include "tools/observe/instance_view.h"

namespace trnsim::neuron_top {

// Percent of the host's CPU time over a period, split as /proc splits it.
struct CpuShare {
  double user_percent = 0.0;
  double system_percent = 0.0;
};

struct Sample {
  uint64_t taken_ns = 0;  // steady-clock time the snapshot was taken (only differences count)
  observe::InstanceView view;
  CpuShare system_cpu;                      // every vCPU of this host, since the previous sample
  std::map<int64_t, CpuShare> process_cpu;  // runtime pid -> its share (0 when not on this host)
};

}  // namespace trnsim::neuron_top
