"""neuronxcc.nki.language for trnsim: the legacy generation's tiles, index arithmetic
(nl.arange, nl.mgrid, mask=), nl.par_dim block tensors, nl.load / nl.store and the tile
functions that return new tiles. Loops, SPMD queries, buffers and tile_size are shared with the
current generation (trnsim_nki.language_api); the legacy behaviour lives in
trnsim_nki.legacy_*. docs/nki.md lists every name of AWS's reference and its status here."""

import types as _types

import numpy as _np

from trnsim_nki import dtypes as _dtypes
from trnsim_nki import language_api as _api
from trnsim_nki import legacy_data as _data
from trnsim_nki import legacy_ops as _ops
from trnsim_nki import legacy_tiles as _tiles
from trnsim_nki.api_names import API as _API
from trnsim_nki.errors import NkiTypeError as _NkiTypeError
from trnsim_nki.host import host_array as _host_array
from trnsim_nki.legacy_index import arange, mgrid  # noqa: F401
from trnsim_nki.legacy_kernel import nc, spmd_dim  # noqa: F401
from trnsim_nki.legacy_tiles import par_dim  # noqa: F401
from trnsim_nki.ops_language import BINARY as _BINARY, UNARY as _UNARY
from trnsim_nki.ops_language import UNSUPPORTED_UNARY as _UNSUPPORTED
from trnsim_nki.tensor import SBUF as sbuf, PSUM as psum, SHARED_HBM as shared_hbm  # noqa: F401
from trnsim_nki.tensor import PRIVATE_HBM as private_hbm  # noqa: F401
from trnsim_nki.unsupported import module_getattr as _module_getattr

hbm = private_hbm  # legacy: hbm is an alias of private_hbm

# ---- dtypes: numpy's own types where numpy has them, trnsim's DType otherwise ----------------
bool_, int8, int16, int32 = _np.bool_, _np.int8, _np.int16, _np.int32
uint8, uint16, uint32 = _np.uint8, _np.uint16, _np.uint32
float16, float32 = _np.float16, _np.float32
bfloat16, tfloat32 = _dtypes.bfloat16, _dtypes.tfloat32
float8_e4m3, float8_e5m2 = _dtypes.float8_e4m3, _dtypes.float8_e5m2

fp32 = _types.SimpleNamespace(min=-3.4028234663852886e38)  # bit pattern 0xff7fffff
bfp16 = _types.SimpleNamespace(min=float("-inf"))  # bit pattern 0xff80 (the reference's value)

tile_size = _api.tile_size
ds = _api.ds
program_id, num_programs, program_ndim = _api.program_id, _api.num_programs, _api.program_ndim
shared_constant = _api.shared_constant


def device_print(prefix, x, *, mask=None, **kwargs):
    """Prints the tile (or HBM tensor) with the prefix when the kernel runs."""
    if mask is not None:
        from trnsim_nki.errors import NkiNotImplementedError
        raise NkiNotImplementedError("legacy.nl.device_print", "mask=")
    return _api.device_print(prefix, x)


def _loop(name, shared):
    def loop(*args, **kwargs):
        extra = set(kwargs) - {"multi_buffer", "directive"}
        if extra:
            raise _NkiTypeError(f"nl.{name}: unexpected argument(s) {sorted(extra)}")
        return shared(*args)
    loop.__name__ = name
    loop.__doc__ = shared.__doc__
    return loop


affine_range = _loop("affine_range", _api.affine_range)
sequential_range = _loop("sequential_range", _api.sequential_range)
static_range = _loop("static_range", _api.static_range)


# ---- tensors -----------------------------------------------------------------------------------

def ndarray(shape, dtype, *, buffer=None, name="", **kwargs):
    return _tiles.allocate(shape, dtype, buffer, name)


def full(shape, fill_value, dtype, *, buffer=None, name="", **kwargs):
    return _tiles.fill(_tiles.allocate(shape, dtype, buffer, name), fill_value)


def zeros(shape, dtype, *, buffer=None, name="", **kwargs):
    return full(shape, 0, dtype, buffer=buffer, name=name)


def ones(shape, dtype, *, buffer=None, name="", **kwargs):
    return full(shape, 1, dtype, buffer=buffer, name=name)


def empty_like(a, dtype=None, *, buffer=None, name="", **kwargs):
    return ndarray(a.shape, dtype if dtype is not None else a.dtype,
                   buffer=buffer if buffer is not None else a.buffer, name=name)


def zeros_like(a, dtype=None, *, buffer=None, name="", **kwargs):
    return zeros(a.shape, dtype if dtype is not None else a.dtype,
                 buffer=buffer if buffer is not None else a.buffer, name=name)


def shared_identity_matrix(n, dtype=_np.uint8, **kwargs):
    return _api.shared_identity_matrix(n, dtype=dtype)


def static_cast(input_data, dtype):
    """A host array (or scalar) rounded to dtype; bf16/fp8 arrays come back marked with their
    dtype (trnsim_nki.host.host_array) so a kernel receives them as that dtype."""
    if _np.isscalar(input_data):
        return _dtypes.round_to(_np.asarray(input_data, _np.float32), dtype).item() \
            if _dtypes.lookup(dtype).is_float else int(input_data)
    return _host_array(input_data, dtype)


# ---- data movement and composite operations ----------------------------------------------------
load, store, load_transpose2d = _data.load, _data.store, _data.load_transpose2d
matmul, transpose, softmax, where, copy = (_data.matmul, _data.transpose, _data.softmax,
                                           _data.where, _data.copy)
mean, power = _data.mean, _data.power


def broadcast_to(src, *, shape, **kwargs):
    return _data.broadcast_to(src, shape)


def expand_dims(data, axis):
    return data.expand_dim(axis)


# ---- element-wise ---------------------------------------------------------------------------
_LEGACY = _API["legacy"]["neuronxcc.nki.language"]


def _binary(name):
    op = _BINARY[name]

    def fn(x, y, *, dtype=None, mask=None, **kwargs):
        return _ops.binary(op, x, y, dtype=dtype, mask=mask)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _LEGACY[name].summary
    return fn


def _unary(name):
    op = _UNARY.get(name, name)

    def fn(x, *, dtype=None, mask=None, **kwargs):
        return _ops.unary(op, x, dtype=dtype, mask=mask)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _LEGACY[name].summary
    return fn


for _name, _entry in _LEGACY.items():
    if _entry.kind != "function" or _name in globals() or "." in _name:
        continue
    if _name in _BINARY:
        globals()[_name] = _binary(_name)
    elif _name in _UNARY or _name in _UNSUPPORTED:
        globals()[_name] = _unary(_name)


# ---- reductions --------------------------------------------------------------------------------

def sum(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):  # noqa: A001
    return _ops.reduce("sum", x, axis, dtype, keepdims, mask)


def max(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):  # noqa: A001
    return _ops.reduce("max", x, axis, dtype, keepdims, mask)


def min(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):  # noqa: A001
    return _ops.reduce("min", x, axis, dtype, keepdims, mask)


def prod(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):
    return _ops.reduce("prod", x, axis, dtype, keepdims, mask)


def all(x, axis, *, dtype=bool, mask=None, **kwargs):  # noqa: A001
    return _ops.reduce("all", x, axis, None if dtype is bool else dtype, False, mask)


del _name, _entry
__getattr__ = _module_getattr("neuronxcc.nki.language", globals())
