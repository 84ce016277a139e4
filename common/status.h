// Status: the one error type of trnsim. Errors are values; nothing throws across layers or the
// C ABI. Codes mirror AWS's NRT_STATUS numerically (see api/include/nrt/nrt_status.h), so the
// api layer maps a Status to an NRT_STATUS by a plain cast.
//
// Thread safety: Status is a value type; distinct objects may be used from distinct threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace trnsim {

// Numeric values are NRT_STATUS's and must never be renumbered.
enum class StatusCode : uint32_t {
  kOk = 0,
  kFailure = 1,
  kInvalid = 2,
  kInvalidHandle = 3,
  kResource = 4,
  kTimeout = 5,
  kHwError = 6,
  kQueueFull = 7,
  kLoadNotEnoughNc = 9,
  kUnsupportedNeffVersion = 10,
  kFailHostMemAlloc = 11,
  kUninitialized = 13,
  kClosed = 14,
  kQueueEmpty = 15,
  kExecUnitUnrecoverable = 101,
  kExecBadInput = 1002,
  kExecCompletedWithNumErr = 1003,
  kExecCompletedWithErr = 1004,
  kExecNcBusy = 1005,
  kExecOob = 1006,
  kCollPending = 1100,
  kExecHwErrCollectives = 1200,
  kExecHwErrHbmUe = 1201,
  kExecHwErrNcUe = 1202,
  kExecHwErrDmaAbort = 1203,
  kExecSwNqOverflow = 1204,
  kExecHwErrRepairableHbmUe = 1205,
  kNetworkProxyFailure = 1206,
};

// The enumerator's NRT name ("NRT_INVALID"), or "NRT_UNKNOWN_STATUS" for a value NRT lacks.
const char* StatusCodeName(StatusCode code);
// True when `value` is one of the NRT_STATUS values above.
bool IsKnownStatusCode(uint32_t value);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "NRT_INVALID: offset 12 + size 8 is past the end of the 16-byte tensor".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Shorthands for the codes every layer uses; each takes the human-readable reason.
inline Status FailureError(std::string m) { return Status(StatusCode::kFailure, std::move(m)); }
inline Status InvalidError(std::string m) { return Status(StatusCode::kInvalid, std::move(m)); }
inline Status InvalidHandleError(std::string m) {
  return Status(StatusCode::kInvalidHandle, std::move(m));
}
inline Status ResourceError(std::string m) { return Status(StatusCode::kResource, std::move(m)); }
inline Status TimeoutError(std::string m) { return Status(StatusCode::kTimeout, std::move(m)); }

}  // namespace trnsim

// Evaluates `expr` (a Status) and returns it from the enclosing function if it is not OK.
#define TRNSIM_RETURN_IF_ERROR(expr)            \
  do {                                          \
    ::trnsim::Status _trnsim_status = (expr);   \
    if (!_trnsim_status.ok()) return _trnsim_status; \
  } while (0)
