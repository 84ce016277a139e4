"""neuronxcc.nki.compiler for trnsim: the compiler directives a legacy kernel may carry.

trnsim's tracer has no middle end and its own allocator (trnsim_nki.alloc), so the decorators
that tune AWS's compiler are accepted and change nothing; `sbuf.auto_alloc()` / `psum.auto_alloc()`
are nl.sbuf / nl.psum. Manual placement (`sbuf.alloc`, `mod_alloc`, `multi_buffer`,
`allocation_scope`) is not supported: it raises NotImplementedError naming its docs/nki.md row."""

import contextlib
import types

from trnsim_nki.errors import NkiNotImplementedError
from trnsim_nki.tensor import PSUM, SBUF
from trnsim_nki.unsupported import module_getattr as _module_getattr


def _identity(func=None, **kwargs):
    return (lambda f: f) if func is None else func


def skip_middle_end_transformations(func=None):
    """Accepted: trnsim has no middle end."""
    return _identity(func)


def enable_stack_allocator(func=None, log_level=50):
    """Accepted: trnsim allocates with its own allocator (site rotation, trnsim_nki.alloc)."""
    return _identity(func)


def force_auto_alloc(func=None):
    """Accepted: trnsim always allocates automatically."""
    return _identity(func)


def no_reorder():
    """Accepted: trnsim keeps program order on each engine."""
    return contextlib.nullcontext()


def _manual(name):
    def fn(*args, **kwargs):
        raise NkiNotImplementedError(f"legacy.ncc.{name}", "manual SBUF/PSUM placement; trnsim "
                                     "places tiles automatically")
    fn.__name__ = name.split(".")[-1]
    return fn


sbuf = types.SimpleNamespace(auto_alloc=lambda: SBUF, alloc=_manual("sbuf.alloc"),
                             mod_alloc=_manual("sbuf.mod_alloc"))
psum = types.SimpleNamespace(auto_alloc=lambda: PSUM, alloc=_manual("psum.alloc"),
                             mod_alloc=_manual("psum.mod_alloc"))

__getattr__ = _module_getattr("neuronxcc.nki.compiler", globals())
