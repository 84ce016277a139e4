// Conversions between simulator::core::ExecutionTrace (simulator/core/trace.h) and the trace an
// Execute reply carries (neurond.proto, ExecuteResponse.Trace) — the device profile of an
// execution run by neurond.
//
// ToProto serialises a trace the daemon recorded; it cannot fail. TraceFromProto parses one the
// client received and validates it the way convert.h's XFromProto functions validate their
// input: every engine, memory kind and source kind is a known value, every index refers to an
// instruction or transfer of the same trace, every core, queue and semaphore/event index fits
// its type; otherwise NRT_INVALID naming the field, never undefined behaviour (the profile
// writer follows those indices).
//
// Thread safety: all functions are reentrant.
#pragma once

#include "common/status_or.h"
#include "proto/neurond.pb.h"
#include "simulator/core/trace.h"

namespace trnsim::driver::remote {

namespace v1 = ::trnsim::neurond::v1;

void ToProto(const simulator::core::ExecutionTrace& in, v1::ExecuteResponse::Trace* out);
StatusOr<simulator::core::ExecutionTrace> TraceFromProto(const v1::ExecuteResponse::Trace& in);

}  // namespace trnsim::driver::remote
