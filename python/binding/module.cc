// _trnsim_nki: the native half of the NKI front end (python/README.md).
#include "python/binding/binding.h"
#include "python/binding/errors.h"

PYBIND11_MODULE(_trnsim_nki, m) {
  m.doc() =
      "trnsim's native layer for the NKI front end: build NEFFs with the kernel builder and run "
      "them through libnrt (docs/nki.md, 'The native module').";
  trnsim::python::RegisterErrors(m);
  trnsim::python::RegisterBuilder(m);
  trnsim::python::RegisterChipInfo(m);
  trnsim::python::RegisterRuntime(m);
  trnsim::python::RegisterModel(m);
}
