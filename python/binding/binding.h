// The pieces of the `_trnsim_nki` module (python/README.md, docs/nki.md "The native module"):
// each file adds its names to the module. The module is a thin layer: it converts Python values
// to the kernel builder's and libnrt's, checks every argument, and raises TrnsimError
// (errors.h) for every failure. No tracing logic lives here.
#pragma once

#include <pybind11/pybind11.h>

namespace trnsim::python {

// KernelBuilder (builder.cc): the NEFF builder, instructions in the ISA's text form.
void RegisterBuilder(pybind11::module_& m);
// chip_info() (chip_info.cc): the simulator's chip spec as a dict.
void RegisterChipInfo(pybind11::module_& m);
// runtime_info() (runtime.cc): libnrt's process-wide state.
void RegisterRuntime(pybind11::module_& m);
// Model (model.cc, stats.cc): a NEFF loaded through libnrt, executed, profiled.
void RegisterModel(pybind11::module_& m);

}  // namespace trnsim::python
