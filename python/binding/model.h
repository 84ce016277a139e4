// Model: one NEFF loaded through libnrt's public API (nrt_load), with one device tensor per
// input and output allocated at load and bound to two tensor sets, so an execution is: write
// the inputs, nrt_execute, read the outputs. Nothing here reaches past libnrt, so every
// setting libnrt reads (TRNSIM_DAEMON, TRNSIM_INSTANCE, NEURON_RT_*, TRNSIM_FAULTS) applies.
//
// Errors raise TrnsimError (errors.h): the binding's checks as NRT_INVALID naming the problem,
// libnrt's failures naming the call and its status. After unload() (or once the runtime is
// closed at interpreter exit) every call but inputs()/outputs() raises NRT_INVALID_HANDLE.
//
// Thread safety: any thread may call any method; calls into libnrt run with the GIL released,
// one at a time per model (mu_), in the lock order RuntimeCall, then mu_.
#pragma once

#include "python/binding/runtime.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nrt/nrt.h"
#include "simulator/isa/dtype.h"
#include "trnsim/trnsim.h"

namespace trnsim::python {

class Model {
 public:
  // nrt_load on logical core `start_vnc` (-1: libnrt picks one).
  static std::unique_ptr<Model> Load(const pybind11::buffer& neff, int start_vnc);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  pybind11::list Inputs() const { return Describe(inputs_); }
  pybind11::list Outputs() const { return Describe(outputs_); }
  // name -> buffer of exactly the input's bytes, for every input; returns name -> bytes.
  pybind11::dict Execute(const pybind11::dict& inputs) { return Run(inputs, nullptr); }
  // Execute between nrt_profile_start/stop: writes the profile file (docs/profiling.md).
  pybind11::dict Profile(const pybind11::dict& inputs, const std::string& ntff_path) {
    return Run(inputs, &ntff_path);
  }
  // trnsim_get_execution_stats of the last execution.
  pybind11::dict Stats();
  // Idempotent.
  void Unload();
  int vnc() const { return vnc_; }
  bool loaded();

 private:
  struct IoTensor {
    std::string name;
    isa::Dtype dtype = isa::Dtype::kUnknown;
    std::vector<uint32_t> shape;
    size_t nbytes = 0;
    nrt_tensor_t* tensor = nullptr;
  };

  Model() = default;
  // With the GIL and mu_ free: tensor info, tensors, sets. Returns the failed call or nullptr.
  const char* Setup(int* nrt_status);
  pybind11::dict Run(const pybind11::dict& inputs, const std::string* profile_path);
  // Frees everything libnrt gave this model (mu_ held); returns nrt_unload's status.
  int ReleaseLocked();
  static pybind11::list Describe(const std::vector<IoTensor>& tensors);

  std::mutex mu_;
  nrt_model_t* model_ = nullptr;
  uint64_t session_ = 0;  // RuntimeSession() at load; another session means dead handles
  // True when this model's handles belong to the running session (mu_ held).
  bool LiveLocked(const RuntimeCall& call) const { return call.ok() && call.session() == session_; }
  nrt_tensor_set_t* input_set_ = nullptr;
  nrt_tensor_set_t* output_set_ = nullptr;
  std::vector<IoTensor> inputs_;
  std::vector<IoTensor> outputs_;
  int vnc_ = -1;
};

// The dict form of trnsim_exec_stats_t (stats.cc).
pybind11::dict StatsDict(const trnsim_exec_stats_t& stats);

}  // namespace trnsim::python
