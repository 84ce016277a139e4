// Helpers shared by the C shim files. Each exported function follows one pattern:
//   check arguments -> unwrap handles -> one runtime call -> Report(status)
// Report logs a failing status as one line tagged with the API function's name — ERROR, or
// DEBUG for the statuses that are normal flow rather than failures (ReportLevel) — and returns
// it as an NRT_STATUS; nothing here throws.
#pragma once

#include <string>

#include "common/log.h"
#include "common/status.h"
#include "nrt/nrt.h"
#include "runtime/runtime.h"

namespace trnsim::api {

// NRT_QUEUE_FULL is the async API's back-pressure and NRT_QUEUE_EMPTY "nothing to read yet":
// a well-written client meets both all the time and retries, so they are not errors and must
// not flood a log at the default ERROR level.
inline LogLevel ReportLevel(StatusCode code) {
  switch (code) {
    case StatusCode::kQueueFull:
    case StatusCode::kQueueEmpty:
      return LogLevel::kDebug;
    default:
      return LogLevel::kError;
  }
}

inline NRT_STATUS Report(const char* function, const Status& status) {
  if (!status.ok()) {
    LogLine(ReportLevel(status.code()), LogComponent::kNrt, function, status.ToString());
  }
  return static_cast<NRT_STATUS>(status.code());
}

// NRT_INVALID for a NULL argument, naming it.
inline NRT_STATUS NullArgument(const char* function, const char* argument) {
  return Report(function, InvalidError(std::string(argument) + " is NULL"));
}

// For entry points whose subsystem trnsim has not built yet: NRT_FAILURE and one log line
// saying so (docs/api-status.md lists them and the issue that brings each).
inline NRT_STATUS NotImplemented(const char* function, const char* what) {
  return Report(function, FailureError(std::string("not implemented in trnsim yet: ") + what));
}

inline runtime::Runtime& Rt() { return runtime::Runtime::Get(); }

// Handles are the addresses of runtime objects; the runtime validates them before use.
inline runtime::Tensor* Unwrap(nrt_tensor_t* tensor) {
  return reinterpret_cast<runtime::Tensor*>(tensor);
}
inline const runtime::Tensor* Unwrap(const nrt_tensor_t* tensor) {
  return reinterpret_cast<const runtime::Tensor*>(tensor);
}
inline nrt_tensor_t* Wrap(runtime::Tensor* tensor) {
  return reinterpret_cast<nrt_tensor_t*>(tensor);
}
inline runtime::TensorSet* UnwrapSet(const nrt_tensor_set_t* set) {
  return static_cast<runtime::TensorSet*>(const_cast<void*>(set));
}

// Copies `text` into a fixed char array, truncating and always NUL-terminating.
template <size_t N>
void CopyString(char (&out)[N], const std::string& text) {
  size_t n = text.size() < N - 1 ? text.size() : N - 1;
  text.copy(out, n);
  out[n] = '\0';
}

}  // namespace trnsim::api
