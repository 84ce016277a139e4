// The status and message an execution (or load) hit by an injected fault returns: the NRT
// status of the fault's kind and a message shaped like the line AWS's runtime logs for that
// hardware fault (tools-driver-facts.md, "Execution faults"), plus trnsim's note of where the
// fault came from. docs/faults.md lists them.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "driver/faults/fault_spec.h"

namespace trnsim::driver::faults {

// Where a fault hit.
struct FaultPlace {
  int chip = 0;                               // the Neuron Device (ND)
  int core = 0;                               // chip-local physical core (NC)
  int hbm = 0;                                // chip-local HBM stack of that core
  std::string_view model;                     // NEFF name
  std::chrono::milliseconds host_timeout{0};  // the execution's timeout; 0: none
  size_t rule = 0;                            // 0-based index of the TRNSIM_FAULTS rule
};

// A fault of `kind` injected now. kCorrupt is Ok (the execution succeeds). kLoadOom names an
// allocation of `bytes`.
Status InjectedFaultStatus(FaultKind kind, const FaultPlace& where, uint64_t bytes = 0);

// An execution refused because an earlier fault of `kind` left its HBM stack poisoned or its
// core dead: the same status, with a message saying so and how to recover (re-init).
Status AfterEffectStatus(FaultKind kind, const FaultPlace& where);

}  // namespace trnsim::driver::faults
