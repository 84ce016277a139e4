"""neuronxcc.nki for trnsim: the legacy ("Beta 1") NKI generation. Kernels written for AWS's
`neuronxcc.nki` (nl.load / nl.store, nl.arange / nl.mgrid indexing, mask=, nl.par_dim,
nisa calls that return their result) are traced by the tracer both generations share
(trnsim_nki) into a NEFF in trnsim's ISA and run through libnrt on the emulated chip.
docs/nki.md lists every name of AWS's reference and its status here."""

from trnsim_nki.legacy_kernel import (  # noqa: F401
    baremetal, benchmark, jit, profile, simulate_kernel)
from trnsim_nki.tensor import Tensor as tensor  # noqa: F401
from trnsim_nki.unsupported import module_getattr as _module_getattr

from neuronxcc.nki import compiler, isa, language, typing  # noqa: F401,E402

__getattr__ = _module_getattr("neuronxcc.nki", globals())
