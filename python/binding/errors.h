// How the binding turns trnsim's errors into Python exceptions.
//
// Every failure of the module raises `_trnsim_nki.TrnsimError` (a RuntimeError) whose message
// is the Status message (builder) or names the NRT call and its status (runtime), and whose
// attribute `status` is the NRT status name ("NRT_INVALID", "NRT_EXEC_BAD_INPUT", ...). Wrong
// Python types raise TypeError (pybind11's argument conversion). Nothing here aborts.
//
// Inside the binding the error travels as the C++ exception BindingError, which pybind11
// translates at the module boundary; no exception leaves through any other layer.
//
// Thread safety: the Raise* functions may be called without the GIL (they only throw); the
// translation runs with the GIL held, as pybind11 guarantees.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "common/status_or.h"

namespace trnsim::python {

class BindingError : public std::runtime_error {
 public:
  BindingError(std::string status_name, const std::string& message)
      : std::runtime_error(message), status_name_(std::move(status_name)) {}
  const std::string& status_name() const { return status_name_; }

 private:
  std::string status_name_;
};

// Creates `TrnsimError` in `m` and registers the translation of BindingError to it.
void RegisterErrors(pybind11::module_& m);

// Throws BindingError for a non-OK status (with its message); does nothing for OK.
void Check(const Status& status);
[[noreturn]] void Raise(const Status& status);
// NRT_INVALID with `message`: the binding's own argument checks.
[[noreturn]] void RaiseInvalid(const std::string& message);
// "<call>: <NRT name> (<code>)" for a libnrt call that returned `nrt_status` (an NRT_STATUS);
// libnrt has logged the reason on its own line. Does nothing for NRT_SUCCESS.
void CheckNrt(const char* call, int nrt_status);

template <typename T>
T Value(StatusOr<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

}  // namespace trnsim::python
