"""The public names of nki.language, shared by both generations (each generation's module
re-exports these and adds its own: python/nki/language.py, python/neuronxcc/nki/language.py).
"""

from trnsim_nki import dtypes as _dtypes
from trnsim_nki import ops_isa as _isa
from trnsim_nki import trace as _tr
from trnsim_nki.api_names import TILE_SIZE
from trnsim_nki.errors import NkiError, NkiTypeError, NkiValueError, NkiNotImplementedError
from trnsim_nki.ops_language import (  # noqa: F401 - re-exported
    BINARY as _BINARY, UNARY as _UNARY, UNSUPPORTED_UNARY as _UNSUPPORTED, ndarray, zeros, ones,
    full, zeros_like, empty_like, load, store, transpose, matmul, softmax, where, reduce as
    _reduce)
from trnsim_nki.tensor import (  # noqa: F401
    SBUF as sbuf, PSUM as psum, HBM as hbm, SHARED_HBM as shared_hbm,
    PRIVATE_HBM as private_hbm, DynamicSlice as _DynamicSlice, Tensor as NkiTensor, Storage)

# ---- dtypes ---------------------------------------------------------------------------------
_DTYPE_NAMES = ("bool_", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16",
                "float32", "bfloat16", "tfloat32", "float8_e4m3", "float8_e4m3fn", "float8_e5m2",
                "float8_e3m4", "float8_e8m0fnu", "float8_e5m2_x4", "float8_e4m3fn_x4",
                "float4_e2m1fn_x4")
for _name in _DTYPE_NAMES:
    try:
        globals()[_name] = _dtypes.lookup(_name)
    except (TypeError, ValueError, KeyError, NotImplementedError):
        pass  # not a trnsim dtype: nl.<name> resolves through unsupported.py

# ---- math: every nl function object (also the `op=` of nisa calls) --------------------------
globals().update(_BINARY)
globals().update(_UNARY)
copy = _UNARY["copy"]


def _unsupported_unary(name, reason):
    def fn(x, dtype=None):
        raise NkiNotImplementedError(f"nl.{name}", reason)
    fn.__name__ = name
    return fn


for _name, _reason in _UNSUPPORTED.items():
    globals()[_name] = _unsupported_unary(_name, _reason)


def sum(x, axis, dtype=None, keepdims=False, mask=None):  # noqa: A001 - NKI's name
    return _reduce("sum", x, axis, dtype, keepdims)


def max(x, axis, dtype=None, keepdims=False, mask=None):  # noqa: A001
    return _reduce("max", x, axis, dtype, keepdims)


def min(x, axis, dtype=None, keepdims=False, mask=None):  # noqa: A001
    return _reduce("min", x, axis, dtype, keepdims)


def mean(x, axis, dtype=None, keepdims=False, mask=None):
    return _reduce("mean", x, axis, dtype, keepdims)


def prod(x, axis, dtype=None, keepdims=False, mask=None):
    return _reduce("prod", x, axis, dtype, keepdims)


def all(x, axis, dtype=None, mask=None):  # noqa: A001
    return _reduce("all", x, axis, dtype, False)


# ---- buffers --------------------------------------------------------------------------------

def is_hbm(buffer):
    return getattr(buffer, "kind", None) == "hbm"


def is_on_chip(buffer):
    return getattr(buffer, "kind", None) in ("sbuf", "psum")


def is_psum(buffer):
    return getattr(buffer, "kind", None) == "psum"


def is_sbuf(buffer):
    return getattr(buffer, "kind", None) == "sbuf"


class _TileSize:
    """nl.tile_size: the target chip's tile limits (api_names.TILE_SIZE, with their sources)."""

    def _values(self):
        t = _tr.active()
        if t is not None:
            chip = t.chip
        else:
            from trnsim_nki.kernel import target_chip
            chip = target_chip()
        return TILE_SIZE[chip]

    def __getattr__(self, name):
        values = self._values()
        if name not in values:
            raise AttributeError(f"nl.tile_size has no attribute {name!r}")
        return values[name]

    def __dir__(self):
        return sorted(TILE_SIZE["trn2"])


tile_size = _TileSize()


# ---- indexing and loops ----------------------------------------------------------------------

def ds(start, size):
    return _DynamicSlice(start, size)


def _range(name, start, stop, step):
    if stop is None:
        start, stop = 0, start
    for v, what in ((start, "start"), (stop, "stop"), (step, "step")):
        if isinstance(v, NkiTensor) or not isinstance(v, int):
            raise NkiTypeError(f"nl.{name}: {what} must be an int known at trace time (use "
                               f"a register loop for a data-dependent trip count), not {v!r}")
    return range(start, stop, step)


def affine_range(start, stop=None, step=1):
    """Iterations without loop-carried dependencies: unrolled at trace time; the tracer's
    dependencies and buffer rotation let independent iterations overlap."""
    return _range("affine_range", start, stop, step)


def sequential_range(start, stop=None, step=1):
    """Iterations in order: unrolled; dependencies through the tiles keep the order."""
    return _range("sequential_range", start, stop, step)


def static_range(start, stop=None, step=1):
    return _range("static_range", start, stop, step)


# Register loops, run on the device (loops.py).
from trnsim_nki.loops import fori_loop, while_loop, dynamic_range  # noqa: E402,F401


# ---- SPMD ---------------------------------------------------------------------------------------

def program_id(axis=0):
    t = _tr.current()
    if not t.grid:
        if axis == 0:
            return 0
        raise NkiValueError(f"nl.program_id({axis}): the kernel was launched without a grid")
    if not 0 <= axis < len(t.grid):
        raise NkiValueError(f"nl.program_id({axis}): the launch grid has {len(t.grid)} axes")
    return t.program[axis]


def num_programs(axes=None):
    t = _tr.current()
    grid = t.grid or (1,)
    if axes is None:
        n = 1
        for g in grid:
            n *= g
        return n
    if isinstance(axes, int):
        if not 0 <= axes < len(grid):
            raise NkiValueError(f"nl.num_programs({axes}): the launch grid has {len(grid)} axes")
        return grid[axes]
    n = 1
    for a in axes:
        n *= grid[a]
    return n


def program_ndim():
    return len(_tr.current().grid)


# ---- views as functions -----------------------------------------------------------------------

def expand_dims(x, axis):
    return x.expand_dim(axis)


def broadcast_to(x, shape, dtype=None):
    return x.broadcast_to(shape)


# ---- constants in HBM -------------------------------------------------------------------------

def shared_constant(constant, dtype=None):
    import numpy as np
    array = np.ascontiguousarray(constant)
    dt = _dtypes.lookup(dtype if dtype is not None else array.dtype)
    t = _tr.current()
    storage = t.new_storage(shared_hbm, array.shape or (1,), dt, "const", role="constant")
    storage.constant = _dtypes.to_device(array, dt)
    return NkiTensor(storage)


def shared_identity_matrix(n, dtype=None, dst=None):
    import numpy as np
    if dst is not None:
        raise NkiNotImplementedError("nl.shared_identity_matrix(dst=)")
    return shared_constant(np.eye(int(n), dtype=np.float32),
                           dtype=dtype if dtype is not None else "uint8")


# ---- debug output -------------------------------------------------------------------------------

def device_print(print_prefix, tensor):
    """Prints `tensor` (SBUF or HBM) with the prefix when the kernel runs: a debug_print
    instruction (docs/isa.md §7.10) whose event reaches nrt_debug_client_* and, from this
    front end, the kernel's `device_prints` after the call."""
    if not isinstance(print_prefix, str):
        raise NkiTypeError("nl.device_print: the prefix must be a str")
    if not isinstance(tensor, NkiTensor):
        raise NkiTypeError("nl.device_print: tensor must be a tile or an HBM tensor")
    if tensor.buffer.kind == "psum":
        raise NkiValueError("nl.device_print: the tensor must be in SBUF or HBM, not PSUM")
    t = _tr.current()
    instr = t.emit("sp", "debug_print", [_tr.Operand("src", tensor)], [],
                   api="nl.device_print")
    instr.prefix = print_prefix
    return instr


def no_reorder():
    """A scheduling hint; trnsim's tracer keeps program order within each engine anyway."""
    import contextlib
    return contextlib.nullcontext()
