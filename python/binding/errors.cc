#include "python/binding/errors.h"

#include "nrt/nrt_status.h"

namespace trnsim::python {
namespace py = pybind11;

namespace {

// The exception type, kept for the life of the process (a handle: never released at exit,
// when the interpreter that owns it is already gone).
py::handle g_error_type;

}  // namespace

void RegisterErrors(py::module_& m) {
  py::exception<BindingError> type(m, "TrnsimError", PyExc_RuntimeError);
  type.doc() =
      "A failure of trnsim (the kernel builder or libnrt). `status` is the NRT status name.";
  g_error_type = type.inc_ref();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const BindingError& e) {
      py::object instance = g_error_type(py::str(e.what()));
      instance.attr("status") = py::str(e.status_name());
      PyErr_SetObject(g_error_type.ptr(), instance.ptr());
    }
  });
}

void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}

void Raise(const Status& status) {
  throw BindingError(StatusCodeName(status.code()), status.message());
}

void RaiseInvalid(const std::string& message) {
  throw BindingError(StatusCodeName(StatusCode::kInvalid), message);
}

void CheckNrt(const char* call, int nrt_status) {
  if (nrt_status == NRT_SUCCESS) return;
  const char* name = nrt_get_status_as_str(static_cast<NRT_STATUS>(nrt_status));
  throw BindingError(name, std::string(call) + ": " + name + " (" + std::to_string(nrt_status) +
                               "); libnrt logged the reason");
}

}  // namespace trnsim::python
