#include "common/status.h"

namespace trnsim {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "NRT_SUCCESS";
    case StatusCode::kFailure: return "NRT_FAILURE";
    case StatusCode::kInvalid: return "NRT_INVALID";
    case StatusCode::kInvalidHandle: return "NRT_INVALID_HANDLE";
    case StatusCode::kResource: return "NRT_RESOURCE";
    case StatusCode::kTimeout: return "NRT_TIMEOUT";
    case StatusCode::kHwError: return "NRT_HW_ERROR";
    case StatusCode::kQueueFull: return "NRT_QUEUE_FULL";
    case StatusCode::kLoadNotEnoughNc: return "NRT_LOAD_NOT_ENOUGH_NC";
    case StatusCode::kUnsupportedNeffVersion: return "NRT_UNSUPPORTED_NEFF_VERSION";
    case StatusCode::kFailHostMemAlloc: return "NRT_FAIL_HOST_MEM_ALLOC";
    case StatusCode::kUninitialized: return "NRT_UNINITIALIZED";
    case StatusCode::kClosed: return "NRT_CLOSED";
    case StatusCode::kQueueEmpty: return "NRT_QUEUE_EMPTY";
    case StatusCode::kExecUnitUnrecoverable: return "NRT_EXEC_UNIT_UNRECOVERABLE";
    case StatusCode::kExecBadInput: return "NRT_EXEC_BAD_INPUT";
    case StatusCode::kExecCompletedWithNumErr: return "NRT_EXEC_COMPLETED_WITH_NUM_ERR";
    case StatusCode::kExecCompletedWithErr: return "NRT_EXEC_COMPLETED_WITH_ERR";
    case StatusCode::kExecNcBusy: return "NRT_EXEC_NC_BUSY";
    case StatusCode::kExecOob: return "NRT_EXEC_OOB";
    case StatusCode::kCollPending: return "NRT_COLL_PENDING";
    case StatusCode::kExecHwErrCollectives: return "NRT_EXEC_HW_ERR_COLLECTIVES";
    case StatusCode::kExecHwErrHbmUe: return "NRT_EXEC_HW_ERR_HBM_UE";
    case StatusCode::kExecHwErrNcUe: return "NRT_EXEC_HW_ERR_NC_UE";
    case StatusCode::kExecHwErrDmaAbort: return "NRT_EXEC_HW_ERR_DMA_ABORT";
    case StatusCode::kExecSwNqOverflow: return "NRT_EXEC_SW_NQ_OVERFLOW";
    case StatusCode::kExecHwErrRepairableHbmUe: return "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE";
    case StatusCode::kNetworkProxyFailure: return "NRT_NETWORK_PROXY_FAILURE";
  }
  return "NRT_UNKNOWN_STATUS";
}

bool IsKnownStatusCode(uint32_t value) {
  return std::string_view(StatusCodeName(static_cast<StatusCode>(value))) !=
         "NRT_UNKNOWN_STATUS";
}

std::string Status::ToString() const {
  std::string out = StatusCodeName(code_);
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

}  // namespace trnsim
