// Conversions between the neurond protocol's messages (neurond.proto) and the structs the
// Device interface speaks (driver/device.h, driver/execution_types.h) and returns
// (driver/execution_result.h), plus Status.
//
// ToProto(value, &message) serialises a value the caller built and trusts; it cannot fail and
// overwrites every field of `message` (a negative host timeout, which has no meaning, is sent as
// 0: none).
// XFromProto(message) parses a message from the other side of the connection — for the daemon
// that is untrusted input. It validates every enum (unset or unknown: NRT_INVALID), every range
// (negative chips/cores/queues, a size of 0, an alignment that is not a power of two, an offset
// + size that wraps, a timeout above kMaxHostTimeoutMs), every required sub-message
// and every count (one stream and descriptor list per engine, 1..16 DMA sources, at most 4
// pattern dimensions, descriptor ids strictly increasing) and returns NRT_INVALID with one
// message naming the field, never undefined behaviour. Checks against state (does handle 7
// exist, is chip 3 on this instance) are the Device's, not these functions'.
//
// Thread safety: all functions are reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status_or.h"
#include "driver/device.h"
#include "driver/execution_result.h"
#include "driver/execution_types.h"
#include "proto/neurond.pb.h"
#include "simulator/dma/descriptor.h"
#include "simulator/isa/dtype.h"

namespace trnsim::driver::remote {

namespace v1 = ::trnsim::neurond::v1;

// The longest host timeout a request may carry (ExecutionOptions.host_timeout_ms,
// HostCollectiveRequest.timeout_ms): 2^40 ms, about 34.8 years. Its deadline, now plus the
// timeout in the steady clock's nanoseconds, stays far inside int64; a longer one (2^63 - 1 ms
// was accepted) overflowed it, and the collective hub timed the call out at once.
inline constexpr uint64_t kMaxHostTimeoutMs = uint64_t{1} << 40;

// Status <-> NrtStatus. A code that is not an NRT_STATUS value arrives as NRT_INVALID naming it
// (with the original message), an OK code with a message as plain OK.
void ToProto(const Status& status, v1::NrtStatus* out);
Status StatusFromProto(const v1::NrtStatus& in);

// Enums. The parsers take the raw wire value: proto3 enums are open, so any int32 can arrive.
v1::MemoryCategory ToProto(driver::MemoryCategory category);
StatusOr<driver::MemoryCategory> MemoryCategoryFromProto(int value);
v1::Dtype ToProto(isa::Dtype dtype);  // kUnknown -> DTYPE_UNSPECIFIED
StatusOr<isa::Dtype> DtypeFromProto(int value);
v1::DmaOp ToProto(simulator::dma::Op op);
StatusOr<simulator::dma::Op> DmaOpFromProto(int value);

// Memory.
void ToProto(const driver::AllocationRequest& in, v1::AllocationRequest* out);
StatusOr<driver::AllocationRequest> AllocationRequestFromProto(const v1::AllocationRequest& in);
void ToProto(const driver::AllocationInfo& in, v1::AllocationInfo* out);
StatusOr<driver::AllocationInfo> AllocationInfoFromProto(const v1::AllocationInfo& in);
void ToProto(const driver::HbmUsage& in, v1::HbmUsage* out);
StatusOr<driver::HbmUsage> HbmUsageFromProto(const v1::HbmUsage& in);

// Programs.
void ToProto(const simulator::dma::Endpoint& in, v1::DmaEndpoint* out);
StatusOr<simulator::dma::Endpoint> EndpointFromProto(const v1::DmaEndpoint& in);
void ToProto(const simulator::dma::Descriptor& in, v1::DmaDescriptor* out);
StatusOr<simulator::dma::Descriptor> DescriptorFromProto(const v1::DmaDescriptor& in);
void ToProto(const driver::ProgramImage& in, v1::ProgramImage* out);
StatusOr<driver::ProgramImage> ProgramImageFromProto(const v1::ProgramImage& in);
// The model of a LoadProgram stream, in its header. The parser refuses (NRT_INVALID) a name or
// uuid without a model id and a uuid that is neither empty nor kModelUuidChars lowercase hex
// digits, and cuts a name to kMaxModelNameBytes; model id 0 is no model.
inline constexpr size_t kModelUuidChars = 32;
inline constexpr size_t kMaxModelNameBytes = 256;
void ToProto(const driver::ModelOwner& in, v1::LoadProgramHeader* out);
StatusOr<driver::ModelOwner> ModelOwnerFromProto(const v1::LoadProgramHeader& in);
// The serialised v1::ProgramImage a LoadProgram stream carries in chunks, and its parser
// (NRT_INVALID for bytes that are not a ProgramImage, as well as for an invalid one).
std::string SerializeProgramImage(const driver::ProgramImage& image);
StatusOr<driver::ProgramImage> ParseProgramImage(std::string_view bytes);

// Executions.
void ToProto(const driver::VarBinding& in, v1::VarBinding* out);
StatusOr<driver::VarBinding> VarBindingFromProto(const v1::VarBinding& in);
void ToProto(const driver::CoreExecution& in, v1::CoreExecution* out);
StatusOr<driver::CoreExecution> CoreExecutionFromProto(const v1::CoreExecution& in);
void ToProto(const driver::ExecutionRequestOptions& in, v1::ExecutionOptions* out);
StatusOr<driver::ExecutionRequestOptions> ExecutionOptionsFromProto(const v1::ExecutionOptions& in);
void ToProto(const driver::ExecutionResult& in, v1::ExecutionResult* out);
StatusOr<driver::ExecutionResult> ExecutionResultFromProto(const v1::ExecutionResult& in);

}  // namespace trnsim::driver::remote
