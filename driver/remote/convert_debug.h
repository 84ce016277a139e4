// Conversions between the debug prints of an execution (driver::ExecutionResult::debug_prints,
// driver/debug_print.h) and the ExecutionResult an Execute reply carries (neurond.proto,
// DebugPrint): how a kernel's debug_print reaches a client of neurond.
//
// ToProto serialises what the daemon's chip model kept; it cannot fail. DebugPrintsFromProto
// parses what the client received and validates it the way convert.h's XFromProto functions
// validate their input: a known dtype and engine, a shape of 2 to 5 dimensions of at least 1
// whose elements make exactly the data's bytes (no overflow), a core index among the reply's
// `core_count` cores, and the chip model's per-execution bound (core::DebugPrintLimits'
// defaults) on their number and total data; otherwise NRT_INVALID naming the field.
//
// Thread safety: all functions are reentrant.
#pragma once

#include <cstddef>
#include <vector>

#include "common/status_or.h"
#include "driver/debug_print.h"
#include "proto/neurond.pb.h"

namespace trnsim::driver::remote {

namespace v1 = ::trnsim::neurond::v1;

// Appends `prints` to out->debug_prints (which the caller has cleared).
void ToProto(const std::vector<driver::DebugPrint>& prints, v1::ExecutionResult* out);
StatusOr<std::vector<driver::DebugPrint>> DebugPrintsFromProto(const v1::ExecutionResult& in,
                                                               size_t core_count);

}  // namespace trnsim::driver::remote
