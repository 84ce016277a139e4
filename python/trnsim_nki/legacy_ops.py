"""Element-wise operations and reductions of the legacy generation (neuronxcc.nki.language),
with its `dtype=` / `mask=` arguments and its type promotion.

Every function returns a new SBUF tile as a legacy_tiles.Result, so `t[...] = nl.exp(x)`
writes straight into t. `mask=` bounds axes of the iteration space (legacy_index): the
instruction reads and writes only that range and the result keeps its full shape. Operators on
tiles (`a + b`, `a * 2`) come here too while a legacy kernel is traced (tensor.py).

Type promotion (general/nki/api/nki.api.shared.rst @ 0521004c, "NKI Type Promotion"): (float,
int) → the float; two floats → the wider, or a new wider type when neither holds the other
(fp16 + bf16 → fp32, fp8e4 + fp8e5 → bf16); two ints → the wider, or a wider signed type
(int8 + uint8 → int16, int32 + uint32 → fp32); Python scalars are weakly typed: bool → uint8,
int → int32, float → fp32. Comparisons and logical ops default to bool.
"""

import numpy as np

from trnsim_nki import dtypes, ops_isa
from trnsim_nki.errors import NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.legacy_mask import empty, mask_bounds
from trnsim_nki.legacy_tiles import NOTHING, Result, new_tile, tile_operand, as_tile
from trnsim_nki.ops_language import BINARY, UNARY, UNSUPPORTED_UNARY, dtype_arg
from trnsim_nki.tensor import Tensor

BOOL_RESULT = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
               "logical_and", "logical_or", "logical_xor", "logical_not")

# numpy functions the legacy generation accepts as operators (np.add, np.amax, ...).
_NUMPY_ALIASES = {"amax": "maximum", "max": "maximum", "amin": "minimum", "min": "minimum",
                  "true_divide": "divide", "sum": "add", "absolute": "abs", "positive": "copy"}


def operator_of(op, api, what="op"):
    """The nl operator object for an nl function, its name, or a numpy ufunc."""
    if hasattr(op, "alu") or hasattr(op, "act"):
        return op
    name = op if isinstance(op, str) else getattr(op, "__name__", None)
    name = _NUMPY_ALIASES.get(name, name)
    found = BINARY.get(name) or UNARY.get(name)
    if found is None:
        raise NkiValueError(f"{api}: {what}={op!r} is not an NKI operator")
    return found


# ---- type promotion -------------------------------------------------------------------------

_WEAK = {bool: "uint8", int: "int32", float: "float32"}
_FLOAT_RANK = {"float8_e4m3": 1, "float8_e5m2": 1, "float8_e3m4": 1, "float16": 2,
               "bfloat16": 2, "tfloat32": 3, "float32": 4}


def dtype_of(value):
    """The DType of a tile, a numpy scalar, or (weakly) a Python scalar."""
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, np.generic):
        try:
            return dtypes.lookup(value.dtype)
        except TypeError:  # float64, int64, ...: weakly typed like Python's numbers
            value = value.item()
    for kind, name in _WEAK.items():
        if type(value) is kind:
            return dtypes.lookup(name)
    raise NkiTypeError(f"{value!r} is not a tile or a number")


def promote(a, b):
    """NKI's type promotion of two DTypes."""
    if a is b:
        return a
    if a.is_float != b.is_float:
        return a if a.is_float else b
    if a.is_float:
        ra, rb = _FLOAT_RANK[a.name], _FLOAT_RANK[b.name]
        if ra != rb:
            return a if ra > rb else b
        return dtypes.lookup("float32" if ra == 2 else "bfloat16")
    (sa, wa), (sb, wb) = _int_info(a), _int_info(b)
    if sa == sb:
        return a if wa >= wb else b
    signed, unsigned = (a, b) if sa else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    width = 2 * max(wa, wb)
    return dtypes.lookup(f"int{width * 8}") if width <= 4 else dtypes.lookup("float32")


def _int_info(dt):
    """(signed, bytes) of an integer DType (bool_ counts as uint8)."""
    name = "uint8" if dt.name == "bool_" else dt.name
    return (not name.startswith("u"), dt.itemsize)


def result_dtype(x, y, dtype, opname):
    if dtype is not None:
        return dtype_arg(dtype)
    if opname in BOOL_RESULT:
        return dtypes.lookup("bool_")
    return promote(dtype_of(x), dtype_of(y))


# ---- element-wise ----------------------------------------------------------------------------

def _free(t):
    n = 1
    for d in t.shape[1:]:
        n *= d
    return n


def _in_sbuf(t):
    """A PSUM operand staged into SBUF (Vector binary ops cannot read two PSUM inputs)."""
    staged = new_tile(t.shape, t.dtype)
    ops_isa.tensor_copy(staged, t)
    return staged


def binary(op, x, y, dtype=None, mask=None):
    op = operator_of(op, "nl")
    api = f"nl.{op.name}"
    if op.alu is None:
        raise NkiNotImplementedError(f"legacy.nl.{op.name}")
    bounds = mask_bounds(mask, api)
    tx, ty = isinstance(x, Tensor), isinstance(y, Tensor)
    if not tx and not ty:
        raise NkiTypeError(f"{api}: at least one operand must be a tile")
    out_dtype = result_dtype(x, y, dtype, op.name)
    if tx:
        x = as_tile(x, "x", api)
    if ty:
        y = as_tile(y, "y", api)
    if tx and ty:
        if x.shape[0] != y.shape[0]:
            raise NkiValueError(f"{api}: operands have {x.shape[0]} and {y.shape[0]} partitions"
                                " (err_num_partition_mismatch: broadcast_to first)")
        if x.buffer.kind == "psum" and y.buffer.kind == "psum":
            y = _in_sbuf(y)
        if _free(y) == 1 and _free(x) != 1:
            return _tensor_scalar(op, x, y, False, out_dtype, bounds, api)
        if _free(x) == 1 and _free(y) != 1:
            return _tensor_scalar(op, y, x, True, out_dtype, bounds, api)
        x, y = _broadcast_free(x, y, api)
        out = new_tile(x.shape, out_dtype)
        if empty(bounds):
            return Result.of(out, None, NOTHING)
        instr = ops_isa.tensor_tensor(tile_operand(out, "dst", api, bounds),
                                      tile_operand(x, "x", api, bounds),
                                      tile_operand(y, "y", api, bounds), op)
        return Result.of(out, instr, bounds)
    if tx:
        return _tensor_scalar(op, x, y, False, out_dtype, bounds, api)
    return _tensor_scalar(op, y, x, True, out_dtype, bounds, api)


def _tensor_scalar(op, data, scalar, reverse, out_dtype, bounds, api):
    out = new_tile(data.shape, out_dtype)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    if isinstance(scalar, Tensor):
        scalar = tile_operand(scalar, "operand", api, bounds)
    instr = ops_isa.tensor_scalar(tile_operand(out, "dst", api, bounds),
                                  tile_operand(data, "data", api, bounds), op, scalar,
                                  reverse0=reverse)
    return Result.of(out, instr, bounds)


def _broadcast_free(x, y, api):
    if x.shape == y.shape:
        return x, y
    if len(x.shape) == len(y.shape):
        shape = tuple(max(a, b) for a, b in zip(x.shape, y.shape))
        try:
            return x.broadcast_to(shape), y.broadcast_to(shape)
        except NkiValueError:
            pass
    if _free(x) == _free(y):
        return x, y.reshape(x.shape) if y.is_contiguous() else y
    raise NkiValueError(f"{api}: shapes {list(x.shape)} and {list(y.shape)} do not broadcast")


def unary(op, x, dtype=None, mask=None):
    name = op if isinstance(op, str) else getattr(op, "name", None)
    if name in UNSUPPORTED_UNARY:
        raise NkiNotImplementedError(f"legacy.nl.{name}", UNSUPPORTED_UNARY[name])
    op = operator_of(op, "nl")
    api = f"nl.{op.name}"
    bounds = mask_bounds(mask, api)
    x = as_tile(x, "x", api)
    if op.name == "logical_not" and dtype is None:
        dtype = "bool_"
    out = new_tile(x.shape, dtype_arg(dtype) if dtype is not None else x.dtype)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    dst, src = tile_operand(out, "dst", api, bounds), tile_operand(x, "x", api, bounds)
    if op.name in ("copy", "identity"):
        instr = ops_isa.tensor_copy(dst, src)
    elif op.name == "negative":
        instr = ops_isa.tensor_scalar(dst, src, BINARY["multiply"], -1.0)
    elif op.name == "logical_not":
        instr = ops_isa.tensor_scalar(dst, src, BINARY["equal"], 0.0)
    elif op.act is not None:
        instr = ops_isa.activation(dst, op, src)
    elif op.alu is not None and op.alu != "bypass":
        instr = ops_isa.tensor_scalar(dst, src, op, 0.0)
    else:
        raise NkiNotImplementedError(f"legacy.nl.{op.name}")
    return Result.of(out, instr, bounds)


def operator(opname, x, y):
    """`a + b` and friends on tiles in a legacy kernel."""
    return binary(BINARY[opname], x, y)


# ---- reductions -----------------------------------------------------------------------------

_REDUCE_ALU = {"sum": "add", "max": "maximum", "min": "minimum", "prod": "multiply",
               "all": "logical_and"}


def _axes(axis, ndim, api):
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(sorted({int(a) % ndim for a in axes}))
    if not axes or 0 in axes:
        raise NkiValueError(f"{api}: axis {axis!r} must name free dims (the partition dim 0 "
                            "cannot be reduced)")
    return axes


def reduce(opname, x, axis, dtype=None, keepdims=False, mask=None, negate=False, api=None):
    """nl.sum/max/min/prod/all/mean (and nisa.tensor_reduce): reduced axes are moved last
    (a free view permutation), so any set of free axes can be reduced."""
    api = api or f"nl.{opname}"
    bounds = mask_bounds(mask, api)
    x = as_tile(x, "x", api)
    axes = _axes(axis, x.ndim, api)
    kept = [d for d in range(x.ndim) if d not in axes]
    if opname == "mean":
        total = reduce("sum", x, axis, "float32", keepdims, mask)
        count = 1
        for a in axes:
            lo, hi = bounds.get(a, (0, x.shape[a]))
            count *= max(hi - lo, 1)
        return binary(BINARY["multiply"], total, 1.0 / count,
                      dtype=dtype if dtype is not None else
                      (x.dtype if x.dtype.is_float else "float32"))
    alu = _REDUCE_ALU.get(opname, opname)
    if keepdims:
        shape = [1 if d in axes else n for d, n in enumerate(x.shape)]
    else:
        shape = [x.shape[d] for d in kept]
    if len(shape) == 1:
        shape.append(1)
    default = "bool_" if opname == "all" else x.dtype
    out = new_tile(shape, dtype_arg(dtype) if dtype is not None else default)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    out_bounds = {}
    for a, b in bounds.items():
        if a in kept:
            out_bounds[a if keepdims else kept.index(a)] = b
    data = tile_operand(x, "x", api, bounds)
    order = kept + list(axes)
    if order != list(range(x.ndim)):
        data = data.permute(order)
    first = len(kept)
    dst = tile_operand(out, "dst", api, out_bounds)
    instr = ops_isa.tensor_reduce(dst, alu, data, tuple(range(first, x.ndim)), negate=negate)
    return Result.of(out, instr, out_bounds)
