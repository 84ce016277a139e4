// runtime_info() and the process-wide libnrt session (runtime.h).
#include "python/binding/runtime.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

#include "nrt/nrt.h"
#include "python/binding/binding.h"
#include "python/binding/errors.h"
#include "simulator/spec/instance_spec.h"
#include "trnsim/trnsim.h"

namespace trnsim::python {
namespace py = pybind11;

namespace {

enum class State { kNotStarted, kOpen, kClosed };
std::atomic<State> g_state{State::kNotStarted};
std::mutex g_init_mu;        // serialises the first nrt_init
std::shared_mutex g_api_mu;  // shared: a call inside libnrt; exclusive: nrt_close
std::atomic<uint64_t> g_session{0};

// At interpreter exit (atexit): waits for calls in flight, then nrt_close, which unloads the
// models still loaded.
void Close() {
  {
    std::lock_guard<std::mutex> init_lock(g_init_mu);
    const State was = g_state.exchange(State::kClosed);
    if (was != State::kOpen) return;
  }
  // From here every new call sees kClosed; the ones already inside libnrt finish first.
  py::gil_scoped_release release;
  std::unique_lock<std::shared_mutex> lock(g_api_mu);
  nrt_close();
}

// runtime_close(): nrt_close now, nrt_init again on the next use (with the environment of
// then). Models loaded before are dead: their calls raise NRT_CLOSED. No-op when not open.
void Restart() {
  std::lock_guard<std::mutex> init_lock(g_init_mu);
  if (g_state.load() != State::kOpen) return;
  py::gil_scoped_release release;
  std::unique_lock<std::shared_mutex> lock(g_api_mu);
  nrt_close();
  ++g_session;  // models of the closed session are dead from now on, before any restart
  g_state = State::kNotStarted;
}

// The instance type whose libnrt codes these are (trnsim's table, simulator/spec/).
const simulator::InstanceSpec* InstanceOf(const nrt_instance_info_t& info) {
  for (const simulator::InstanceSpec& spec : simulator::InstanceSpecs()) {
    if (spec.nrt_family == info.family && spec.nrt_size == info.size) return &spec;
  }
  return nullptr;
}

py::dict RuntimeInfo() {
  EnsureOpen();
  RuntimeCall call;
  if (!call.ok()) Raise(Status(StatusCode::kClosed, "the runtime is closed"));
  nrt_instance_info_t info{};
  CheckNrt("nrt_get_instance_info", nrt_get_instance_info(&info, sizeof(info)));
  uint32_t total = 0, visible = 0;
  CheckNrt("nrt_get_total_vnc_count", nrt_get_total_vnc_count(&total));
  CheckNrt("nrt_get_visible_vnc_count", nrt_get_visible_vnc_count(&visible));
  char version[64] = {0}, git[64] = {0};
  CheckNrt("trnsim_get_version", trnsim_get_version(version, sizeof(version), git, sizeof(git)));

  py::dict d;
  d["family"] = info.family;
  d["size"] = info.size;
  d["arch_name"] = std::string(info.arch_name, strnlen(info.arch_name, sizeof(info.arch_name)));
  d["total_logical_cores"] = total;
  d["visible_logical_cores"] = visible;
  d["version"] = std::string(version);
  d["git"] = std::string(git);
  const simulator::InstanceSpec* spec = InstanceOf(info);
  if (spec == nullptr) {
    // Not an instance trnsim emulates: say what libnrt said, and nothing derived.
    d["instance"] = py::none();
    d["chip"] = py::none();
    d["lnc"] = py::none();
    d["physical_cores"] = py::none();
    return d;
  }
  d["instance"] = spec->type_name;
  d["chip"] = spec->chip == &simulator::Trainium3Spec() ? "trn3" : "trn2";
  d["physical_cores"] = spec->PhysicalCores();
  // Physical cores per logical core at the runtime's LNC setting.
  d["lnc"] = total == 0 ? py::object(py::none())
                        : py::object(py::int_(spec->PhysicalCores() / static_cast<int>(total)));
  return d;
}

}  // namespace

void EnsureOpen() {
  State state = g_state.load();
  if (state == State::kOpen) return;
  if (state == State::kClosed) Raise(Status(StatusCode::kClosed, "the runtime is closed"));
  std::lock_guard<std::mutex> lock(g_init_mu);
  state = g_state.load();
  if (state == State::kOpen) return;
  if (state == State::kClosed) Raise(Status(StatusCode::kClosed, "the runtime is closed"));
  CheckNrt("nrt_init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
  ++g_session;
  g_state = State::kOpen;
}

bool RuntimeClosed() { return g_state.load() == State::kClosed; }

uint64_t RuntimeSession() { return g_session.load(); }

RuntimeCall::RuntimeCall()
    : lock_(g_api_mu), ok_(g_state.load() == State::kOpen), session_(g_session.load()) {}

void RegisterRuntime(py::module_& m) {
  m.def("runtime_info", &RuntimeInfo,
        "libnrt's view of this process (nrt_init on first use): instance type and chip, LNC, "
        "logical cores, trnsim version.");
  m.def("runtime_close", &Restart,
        "nrt_close; the next call starts the runtime again (nrt_init) with the environment of "
        "then. Models loaded before are dead (their calls raise TrnsimError NRT_CLOSED).");
  py::module_::import("atexit").attr("register")(py::cpp_function(&Close));
}

}  // namespace trnsim::python
