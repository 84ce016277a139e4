"""trnsim's NKI front end, current generation (`import nki`): kernels written for AWS's Neuron
Kernel Interface are traced into a NEFF in trnsim's ISA and run through libnrt on the emulated
chip, with outputs as numpy arrays and the simulated timing of every engine (docs/nki.md)."""

from trnsim_nki.kernel import Kernel, jit  # noqa: F401
from trnsim_nki.harness import benchmark, profile, simulate  # noqa: F401
from trnsim_nki.unsupported import module_getattr as _module_getattr

from nki import isa, language  # noqa: F401,E402

__getattr__ = _module_getattr("nki", globals())
