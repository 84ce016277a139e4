// Taking neuron-top's samples: a snapshot of the instance (observe::ObserveInstance, from the
// daemon of TRNSIM_DAEMON or the configured instance) and the host's CPU shares since the
// previous call (observe::HostSampler: /proc/stat, and /proc/<pid>/stat of each runtime
// process — 0 for a process that is not on this host).
//
// Errors: ObserveInstance's (an unreachable daemon, a malformed setting), one line each.
//
// Thread safety: a Sampler is used by one thread at a time.
#pragma once

#include "common/env.h"
#include "common/status_or.h"
#include "tools/neuron_top/sample.h"
#include "tools/observe/host_stats.h"

namespace trnsim::neuron_top {

class Sampler {
 public:
  explicit Sampler(Environment env) : env_(std::move(env)) {}

  StatusOr<Sample> Take();

 private:
  Environment env_;
  observe::HostSampler host_;
};

}  // namespace trnsim::neuron_top
