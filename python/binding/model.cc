// Model (model.h): load, execute, profile, unload through libnrt's public API.
#include "python/binding/model.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>

#include "nrt/nrt_experimental.h"
#include "nrt/nrt_profile.h"
#include "python/binding/binding.h"
#include "python/binding/errors.h"
#include "python/binding/runtime.h"

namespace trnsim::python {
namespace py = pybind11;

namespace {

// One input's buffer, held (and released) with the GIL; read without it during the execution.
class InputView {
 public:
  InputView() = default;
  InputView(const InputView&) = delete;
  InputView& operator=(const InputView&) = delete;
  ~InputView() {
    if (held_) PyBuffer_Release(&view_);
  }
  // False (with no Python error set) when `object` does not export a buffer.
  bool Acquire(PyObject* object) {
    if (PyObject_GetBuffer(object, &view_, PyBUF_STRIDES) != 0) {
      PyErr_Clear();
      return false;
    }
    held_ = true;
    return true;
  }
  const Py_buffer& view() const { return view_; }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

constexpr NRT_STATUS kOk = NRT_SUCCESS;

}  // namespace

std::unique_ptr<Model> Model::Load(const py::buffer& neff, int start_vnc) {
  EnsureOpen();
  py::buffer_info buf = neff.request();
  if (!PyBuffer_IsContiguous(reinterpret_cast<Py_buffer*>(buf.view()), 'C')) {
    RaiseInvalid("load: the NEFF is not a C-contiguous buffer");
  }
  if (start_vnc < -1) RaiseInvalid("load: start_vnc " + std::to_string(start_vnc));
  std::unique_ptr<Model> m(new Model());
  const size_t size = static_cast<size_t>(buf.size * buf.itemsize);
  int status = kOk;
  const char* failed = nullptr;
  bool closed = false;
  {
    py::gil_scoped_release release;
    RuntimeCall call;
    std::lock_guard<std::mutex> lock(m->mu_);
    closed = !call.ok();
    m->session_ = call.session();
    if (!closed) {
      status = nrt_load(buf.ptr, size, start_vnc, -1, &m->model_);
      failed = status == kOk ? m->Setup(&status) : "nrt_load";
    }
  }
  if (closed) Raise(Status(StatusCode::kClosed, "load: the runtime is closed"));
  CheckNrt(failed == nullptr ? "" : failed, status);  // ~Model unloads what Setup made
  return m;
}

const char* Model::Setup(int* nrt_status) {
  nrt_model_info_t info{};
  size_t written = 0;
  if ((*nrt_status = nrt_get_model_info(model_, &info, sizeof(info), &written)) != kOk) {
    return "nrt_get_model_info";
  }
  vnc_ = static_cast<int>(info.vnc);
  nrt_tensor_info_array_t* array = nullptr;
  if ((*nrt_status = nrt_get_model_tensor_info(model_, &array)) != kOk) {
    return "nrt_get_model_tensor_info";
  }
  for (uint64_t k = 0; k < array->tensor_count; ++k) {
    const nrt_tensor_info_t& t = array->tensor_array[k];
    IoTensor io;
    io.name = std::string(t.name, strnlen(t.name, sizeof(t.name)));
    io.dtype = static_cast<isa::Dtype>(t.dtype);
    io.shape.assign(t.shape, t.shape + t.ndim);
    io.nbytes = t.size;
    (t.usage == NRT_TENSOR_USAGE_INPUT ? inputs_ : outputs_).push_back(std::move(io));
  }
  nrt_free_model_tensor_info(array);
  if ((*nrt_status = nrt_allocate_tensor_set(&input_set_)) != kOk ||
      (*nrt_status = nrt_allocate_tensor_set(&output_set_)) != kOk) {
    return "nrt_allocate_tensor_set";
  }
  for (auto* list : {&inputs_, &outputs_}) {
    nrt_tensor_set_t* set = list == &inputs_ ? input_set_ : output_set_;
    for (IoTensor& io : *list) {
      *nrt_status = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc_, io.nbytes,
                                        io.name.c_str(), &io.tensor);
      if (*nrt_status != kOk) return "nrt_tensor_allocate";
      *nrt_status = nrt_add_tensor_to_tensor_set(set, io.name.c_str(), io.tensor);
      if (*nrt_status != kOk) return "nrt_add_tensor_to_tensor_set";
    }
  }
  return nullptr;
}

py::dict Model::Run(const py::dict& inputs, const std::string* profile_path) {
  // Check every argument with the GIL held, before anything reaches libnrt.
  std::vector<InputView> views(inputs_.size());
  std::vector<bool> given(inputs_.size(), false);
  for (auto item : inputs) {
    if (!py::isinstance<py::str>(item.first)) {
      throw py::type_error("execute: input names must be str, not " +
                           std::string(Py_TYPE(item.first.ptr())->tp_name));
    }
    const std::string name = item.first.cast<std::string>();
    auto it = std::find_if(inputs_.begin(), inputs_.end(),
                           [&](const IoTensor& io) { return io.name == name; });
    if (it == inputs_.end()) {
      std::string known;
      for (const IoTensor& io : inputs_) known += (known.empty() ? "" : ", ") + io.name;
      RaiseInvalid("execute: the model has no input '" + name + "' (inputs: " + known + ")");
    }
    const size_t k = static_cast<size_t>(it - inputs_.begin());
    if (!views[k].Acquire(item.second.ptr())) {
      throw py::type_error("execute: input '" + name +
                           "' must be a buffer (bytes, bytearray, numpy array), not " +
                           std::string(Py_TYPE(item.second.ptr())->tp_name));
    }
    if (!PyBuffer_IsContiguous(&views[k].view(), 'C')) {
      RaiseInvalid("execute: input '" + name + "' is not C-contiguous");
    }
    if (static_cast<size_t>(views[k].view().len) != it->nbytes) {
      RaiseInvalid("execute: input '" + name + "' has " + std::to_string(views[k].view().len) +
                   " bytes; the model's takes " + std::to_string(it->nbytes));
    }
    given[k] = true;
  }
  for (size_t k = 0; k < inputs_.size(); ++k) {
    if (!given[k]) RaiseInvalid("execute: input '" + inputs_[k].name + "' is missing");
  }
  // Outputs land straight in new bytes objects, filled before anyone sees them.
  py::dict result;
  std::vector<char*> out(outputs_.size());
  for (size_t k = 0; k < outputs_.size(); ++k) {
    py::bytes b(nullptr, outputs_[k].nbytes);
    out[k] = PyBytes_AsString(b.ptr());
    result[py::str(outputs_[k].name)] = b;
  }

  int status = kOk;
  const char* failed = nullptr;
  bool closed = false, unloaded = false;
  {
    py::gil_scoped_release release;
    RuntimeCall call;
    std::lock_guard<std::mutex> lock(mu_);
    auto step = [&](const char* what, int s) {
      if (status == kOk && s != kOk) status = s, failed = what;
      return status == kOk;
    };
    closed = !LiveLocked(call);
    unloaded = model_ == nullptr;
    if (!closed && !unloaded) {
      for (size_t k = 0; k < inputs_.size() && status == kOk; ++k) {
        step("nrt_tensor_write",
             nrt_tensor_write(inputs_[k].tensor, views[k].view().buf, 0, inputs_[k].nbytes));
      }
      const bool profiling =
          status == kOk && profile_path != nullptr &&
          step("nrt_profile_start", nrt_profile_start(model_, profile_path->c_str()));
      if (status == kOk) step("nrt_execute", nrt_execute(model_, input_set_, output_set_));
      // The profile holds a failed execution too: stop (and write it) whatever happened.
      if (profiling) step("nrt_profile_stop", nrt_profile_stop(profile_path->c_str()));
      for (size_t k = 0; k < outputs_.size() && status == kOk; ++k) {
        step("nrt_tensor_read", nrt_tensor_read(outputs_[k].tensor, out[k], 0, outputs_[k].nbytes));
      }
    }
  }
  if (closed) Raise(Status(StatusCode::kClosed, "execute: the runtime is closed"));
  if (unloaded) Raise(Status(StatusCode::kInvalidHandle, "execute: the model is unloaded"));
  CheckNrt(failed == nullptr ? "" : failed, status);
  return result;
}

py::dict Model::Stats() {
  trnsim_exec_stats_t stats{};
  stats.struct_size = sizeof(stats);
  int status = kOk;
  bool closed = false, unloaded = false;
  {
    py::gil_scoped_release release;
    RuntimeCall call;
    std::lock_guard<std::mutex> lock(mu_);
    closed = !LiveLocked(call);
    unloaded = model_ == nullptr;
    if (!closed && !unloaded) status = trnsim_get_execution_stats(model_, &stats);
  }
  if (closed) Raise(Status(StatusCode::kClosed, "stats: the runtime is closed"));
  if (unloaded) Raise(Status(StatusCode::kInvalidHandle, "stats: the model is unloaded"));
  CheckNrt("trnsim_get_execution_stats", status);
  return StatsDict(stats);
}

bool Model::loaded() {
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mu_);
  return model_ != nullptr && !RuntimeClosed() && RuntimeSession() == session_;
}

int Model::ReleaseLocked() {
  int status = kOk;
  if (RuntimeClosed() || RuntimeSession() != session_) {
    // nrt_close has unloaded the model and freed its tensors; the handles are dead.
  } else {
    for (auto* list : {&inputs_, &outputs_}) {
      for (IoTensor& io : *list) nrt_tensor_free(&io.tensor);
    }
    if (input_set_ != nullptr) nrt_destroy_tensor_set(&input_set_);
    if (output_set_ != nullptr) nrt_destroy_tensor_set(&output_set_);
    if (model_ != nullptr) status = nrt_unload(model_);
  }
  for (auto* list : {&inputs_, &outputs_}) {
    for (IoTensor& io : *list) io.tensor = nullptr;
  }
  input_set_ = output_set_ = nullptr;
  model_ = nullptr;
  return status;
}

void Model::Unload() {
  int status = kOk;
  {
    py::gil_scoped_release release;
    RuntimeCall call;
    std::lock_guard<std::mutex> lock(mu_);
    status = ReleaseLocked();
  }
  CheckNrt("nrt_unload", status);
}

Model::~Model() {
  if (RuntimeClosed()) return;  // at or after interpreter exit: nothing left to free
  py::gil_scoped_release release;
  RuntimeCall call;
  std::lock_guard<std::mutex> lock(mu_);
  (void)ReleaseLocked();  // a destructor cannot report; libnrt has logged any failure
}

py::list Model::Describe(const std::vector<IoTensor>& tensors) {
  py::list list;
  for (const IoTensor& io : tensors) {
    py::dict d;
    d["name"] = io.name;
    d["dtype"] = std::string(isa::DtypeShortName(io.dtype));
    d["shape"] = py::tuple(py::cast(io.shape));
    d["nbytes"] = io.nbytes;
    list.append(d);
  }
  return list;
}

void RegisterModel(py::module_& m) {
  using py::arg;
  py::class_<Model>(m, "Model", "A NEFF loaded through libnrt (nrt_load).")
      .def_static("load", &Model::Load, arg("neff"), arg("start_vnc") = 0,
                  "Loads NEFF bytes on logical core start_vnc (-1: libnrt picks).")
      .def_property_readonly("vnc", &Model::vnc)
      .def_property_readonly("loaded", &Model::loaded)
      .def("inputs", &Model::Inputs, "[{name, dtype, shape, nbytes}], in the NEFF's order.")
      .def("outputs", &Model::Outputs)
      .def("execute", &Model::Execute, arg("inputs"),
           "Runs once: inputs {name: buffer of exactly nbytes}; returns {name: bytes}.")
      .def("profile", &Model::Profile, arg("inputs"), arg("ntff_path"),
           "execute() between nrt_profile_start/stop, writing the profile to ntff_path.")
      .def("stats", &Model::Stats, "trnsim_get_execution_stats of the last execution.")
      .def("unload", &Model::Unload, "nrt_unload; idempotent (also done on destruction).");
}

}  // namespace trnsim::python
