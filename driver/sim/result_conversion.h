// The seam between the chip model's report of an execution and the Device's: converts a
// simulator::core::ExecutionResult (simulator/core/execution.h) to the driver's
// ExecutionResult (driver/execution_result.h), field for field, adding what only the device
// knows — the cores' device clock at the start (DeviceClock, device_clock.h).
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>

#include "driver/execution_result.h"
#include "simulator/core/execution.h"

namespace trnsim::driver::sim {

// `in` is consumed: its debug prints' bytes move into the result rather than being copied
// (they can be tens of MiB). Every core's device_start_ps is `device_start_ps` (the cores of
// one execution start together).
ExecutionResult ToDriverResult(simulator::core::ExecutionResult&& in, uint64_t device_start_ps);

}  // namespace trnsim::driver::sim
