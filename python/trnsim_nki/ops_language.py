"""nki.language operations: the tile-returning functions (nl.add, nl.exp, nl.sum, nl.load, ...)
and the operator objects nisa calls take (`op=nl.add`, `op=nl.exp`).

Each nl math function is an NlOp: callable on tiles (it allocates a new SBUF tile and emits the
instruction through ops_isa), and carrying the names nisa needs — `alu` (docs/isa.md §6.3),
`act` (§6.4) and `cmp` (comparisons). Shared by both generations.
"""

import numpy as np

from trnsim_nki import dtypes, ops_isa
from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiValueError, NkiTypeError, NkiNotImplementedError
from trnsim_nki.tensor import Tensor, SBUF, PSUM, BUFFERS, Buffer


class NlOp:
    """An nki.language math function."""

    def __init__(self, name, alu=None, act=None, cmp=None, arity=2):
        self.__name__ = name
        self.name = name
        self.alu = alu
        self.act = act
        self.cmp = cmp
        self.arity = arity

    def __repr__(self):
        return f"nl.{self.name}"

    def __call__(self, *args, dtype=None, **kwargs):
        if kwargs.get("mask") is not None:
            raise NkiNotImplementedError(f"nl.{self.name}(mask=)")
        if self.arity == 2:
            if len(args) != 2:
                raise NkiTypeError(f"nl.{self.name} takes (x, y, dtype=None)")
            return elementwise_binary(self, args[0], args[1], dtype)
        if len(args) != 1:
            raise NkiTypeError(f"nl.{self.name} takes (x, dtype=None)")
        return elementwise_unary(self, args[0], dtype)


def _binary(name, cmp=None):
    return NlOp(name, alu=name, cmp=cmp)


BINARY = {op.name: op for op in (
    _binary("add"), _binary("subtract"), _binary("multiply"), _binary("divide"),
    _binary("maximum"), _binary("minimum"), _binary("abs_max"), _binary("abs_min"),
    _binary("power"), _binary("equal", "eq"), _binary("not_equal", "ne"),
    _binary("less", "lt"), _binary("less_equal", "le"), _binary("greater", "gt"),
    _binary("greater_equal", "ge"), _binary("bitwise_and"), _binary("bitwise_or"),
    _binary("bitwise_xor"), _binary("left_shift"), _binary("right_shift"),
    _binary("logical_and"), _binary("logical_or"), _binary("logical_xor"),
    NlOp("mod", alu="mod"), NlOp("fmod", alu="mod"), NlOp("average", alu="average"),
)}

# Unary functions: the ACT function when the Scalar engine has one, else an ALU op.
UNARY = {op.name: op for op in (
    NlOp("exp", act="exp", arity=1), NlOp("log", act="log", arity=1),
    NlOp("sqrt", act="sqrt", arity=1), NlOp("rsqrt", act="rsqrt", alu="rsqrt", arity=1),
    NlOp("tanh", act="tanh", arity=1), NlOp("sigmoid", act="sigmoid", arity=1),
    NlOp("relu", act="relu", alu="relu", arity=1), NlOp("gelu", act="gelu", arity=1),
    NlOp("gelu_dx", act="gelu_dx", arity=1),
    NlOp("gelu_apprx_tanh", act="gelu_apprx_tanh", arity=1),
    NlOp("gelu_apprx_sigmoid", act="gelu_apprx_sigmoid", arity=1),
    NlOp("gelu_apprx_sigmoid_dx", act="gelu_apprx_sigmoid_dx", arity=1),
    NlOp("silu", act="silu", arity=1), NlOp("silu_dx", act="silu_dx", arity=1),
    NlOp("softplus", act="softplus", arity=1), NlOp("mish", act="mish", arity=1),
    NlOp("erf", act="erf", arity=1), NlOp("erf_dx", act="erf_dx", arity=1),
    NlOp("sin", act="sin", arity=1), NlOp("arctan", act="arctan", arity=1),
    NlOp("sign", act="sign", arity=1), NlOp("abs", act="abs", alu="abs", arity=1),
    NlOp("square", act="square", alu="square", arity=1),
    NlOp("reciprocal", act="reciprocal", alu="reciprocal", arity=1),
    NlOp("copy", act="copy", arity=1), NlOp("identity", act="copy", arity=1),
    NlOp("invert", alu="invert", arity=1), NlOp("negative", arity=1),
    NlOp("logical_not", arity=1), NlOp("prelu", act="prelu", arity=1),
    NlOp("bypass", alu="bypass", arity=1),
)}

UNSUPPORTED_UNARY = {
    "cos": "the Scalar engine's function table has no cos (docs/isa.md §6.4)",
    "tan": "the Scalar engine's function table has no tan (docs/isa.md §6.4)",
    "ceil": "no engine op rounds to an integer (docs/isa.md §6.3)",
    "floor": "no engine op rounds to an integer (docs/isa.md §6.3)",
    "trunc": "no engine op rounds to an integer (docs/isa.md §6.3)",
}


def _result_dtype(x, y, dtype):
    if dtype is not None:
        return dtypes.lookup(dtype)
    tensors = [t.dtype for t in (x, y) if isinstance(t, Tensor)]
    if any(d.name == "float32" for d in tensors):
        return dtypes.lookup("float32")
    return tensors[0]


def dtype_arg(dtype):
    try:
        dt = dtypes.lookup(dtype)
    except TypeError as e:
        raise NkiTypeError(str(e)) from None
    if dt.unsupported is not None:
        raise NkiNotImplementedError(f"nl.{dt.name}", dt.unsupported)
    return dt


def new_tile(shape, dtype, buffer=SBUF, name=""):
    shape = tuple(int(s) for s in shape)
    if buffer.on_chip and shape[0] > 128:
        raise NkiValueError(f"a tile's partition dim is at most 128 (nl.tile_size.pmax), not "
                            f"{shape[0]} (shape {list(shape)})")
    return tr.current().tensor(buffer, shape, dtype_arg(dtype), name)


def elementwise_binary(op, x, y, dtype=None):
    if isinstance(op, str):
        op = BINARY[op]
    if op.alu is None:
        raise NkiNotImplementedError(f"nl.{op.name}")
    api = f"nl.{op.name}"
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise NkiTypeError(f"{api}: at least one operand must be a tile")
    out_dtype = _result_dtype(x, y, dtype)
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        x, y = _broadcast_pair(x, y, api)
        if _free(y) == 1 and _free(x) != 1:
            out = new_tile(x.shape, out_dtype)
            ops_isa.tensor_scalar(out, x, op, y)
            return out
        if _free(x) == 1 and _free(y) != 1:
            out = new_tile(y.shape, out_dtype)
            ops_isa.tensor_scalar(out, y, op, x, reverse0=True)
            return out
        out = new_tile(x.shape, out_dtype)
        ops_isa.tensor_tensor(out, x, y, op)
        return out
    if isinstance(x, Tensor):
        out = new_tile(x.shape, out_dtype)
        ops_isa.tensor_scalar(out, x, op, y)
        return out
    out = new_tile(y.shape, out_dtype)
    ops_isa.tensor_scalar(out, y, op, x, reverse0=True)
    return out


def _free(t):
    n = 1
    for d in t.shape[1:]:
        n *= d
    return n


def _broadcast_pair(x, y, api):
    if x.shape[0] != y.shape[0]:
        raise NkiValueError(f"{api}: operands have {x.shape[0]} and {y.shape[0]} partitions; "
                            "tiles do not broadcast along the partition dim")
    if x.shape == y.shape or _free(x) == 1 or _free(y) == 1:
        return x, y
    if len(x.shape) == len(y.shape):
        try:
            shape = tuple(max(a, b) for a, b in zip(x.shape, y.shape))
            return x.broadcast_to(shape), y.broadcast_to(shape)
        except NkiValueError:
            pass
    raise NkiValueError(f"{api}: shapes {list(x.shape)} and {list(y.shape)} do not broadcast")


def elementwise_unary(op, x, dtype=None):
    api = f"nl.{op.name}"
    if not isinstance(x, Tensor):
        raise NkiTypeError(f"{api}: x must be a tile")
    out = new_tile(x.shape, dtypes.lookup(dtype) if dtype is not None else x.dtype)
    if op.name == "copy":
        ops_isa.tensor_copy(out, x)
    elif op.name == "negative":
        ops_isa.tensor_scalar(out, x, BINARY["multiply"], -1.0)
    elif op.name == "logical_not":
        ops_isa.tensor_scalar(out, x, BINARY["equal"], 0.0)
    elif op.act is not None:
        ops_isa.activation(out, op, x)
    else:
        ops_isa.tensor_scalar(out, x, op, 0.0)
    return out


# ---- reductions --------------------------------------------------------------------------------

def reduce(opname, x, axis, dtype=None, keepdims=False):
    api = f"nl.{opname}"
    if not isinstance(x, Tensor):
        raise NkiTypeError(f"{api}: x must be a tile")
    if opname == "mean":
        total = reduce("sum", x, axis, "float32", keepdims)
        axes = ops_isa._axes(axis, x.ndim, api)
        count = 1
        for a in axes:
            count *= x.shape[a]
        out = new_tile(total.shape, dtype or x.dtype)
        ops_isa.tensor_scalar(out, total, BINARY["multiply"], 1.0 / count)
        return out
    alu = {"sum": "add", "max": "maximum", "min": "minimum", "prod": "multiply",
           "all": "logical_and"}.get(opname)
    if alu is None:
        raise NkiNotImplementedError(api)
    axes = ops_isa._axes(axis, x.ndim, api)
    shape = [d for i, d in enumerate(x.shape) if i not in axes or keepdims]
    if keepdims:
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
    if len(shape) == 1:
        shape.append(1)
    out = new_tile(shape, dtype or x.dtype)
    ops_isa.tensor_reduce(out, alu, x, axes, keepdims=keepdims)
    return out


# ---- tensors -----------------------------------------------------------------------------------

def buffer_arg(buffer):
    if isinstance(buffer, Buffer):
        return buffer
    if isinstance(buffer, str) and buffer in BUFFERS:
        return BUFFERS[buffer]
    raise NkiTypeError(f"buffer={buffer!r} is not one of nl.sbuf, nl.psum, nl.hbm, "
                       "nl.shared_hbm, nl.private_hbm")


def ndarray(shape, dtype, buffer=SBUF, name="", address=None):
    if address is not None:
        raise NkiNotImplementedError("nl.ndarray(address=)", "tiles are placed by the tracer's "
                                     "allocator")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape or any(not isinstance(s, (int, np.integer)) or s < 1 for s in shape):
        raise NkiValueError(f"nl.ndarray: shape {shape!r} must be positive ints")
    buffer = buffer_arg(buffer)
    if buffer.on_chip and len(shape) < 2:
        shape = shape + (1,)
    return new_tile(shape, dtype, buffer, name)


def full(shape, fill_value, dtype, buffer=SBUF, name=""):
    t = ndarray(shape, dtype, buffer, name)
    if not t.on_chip:
        raise NkiNotImplementedError("nl.full(buffer=hbm)", "fill an SBUF tile and dma_copy it")
    ops_isa.memset(t, fill_value)
    return t


def zeros(shape, dtype, buffer=SBUF, name=""):
    return full(shape, 0, dtype, buffer, name)


def ones(shape, dtype, buffer=SBUF, name=""):
    return full(shape, 1, dtype, buffer, name)


def zeros_like(x, dtype=None, buffer=None, name=""):
    return zeros(x.shape, dtype or x.dtype, buffer or x.buffer, name)


def empty_like(x, dtype=None, buffer=None, name=""):
    return ndarray(x.shape, dtype or x.dtype, buffer or x.buffer, name)


def load(src, dtype=None, mask=None):
    if mask is not None:
        raise NkiNotImplementedError("nl.load(mask=)")
    if not isinstance(src, Tensor):
        raise NkiTypeError("nl.load: src must be an HBM tensor")
    if src.on_chip:
        raise NkiValueError(f"nl.load: src is in {src.buffer.name}; it loads from HBM")
    shape = src.shape if len(src.shape) >= 2 else (1,) + src.shape
    out = new_tile(shape, dtype or src.dtype)
    ops_isa.dma_copy(out, src)
    return out


def store(dst, value, mask=None):
    if mask is not None:
        raise NkiNotImplementedError("nl.store(mask=)")
    if not isinstance(dst, Tensor) or dst.on_chip:
        raise NkiValueError("nl.store: dst must be an HBM tensor")
    if not isinstance(value, Tensor):
        raise NkiTypeError("nl.store: value must be a tile")
    if value.buffer.kind == "psum":
        staged = new_tile(value.shape, value.dtype)
        ops_isa.tensor_copy(staged, value)
        value = staged
    return ops_isa.dma_copy(dst, value)


def assign(target, value):
    """`tile[...] = value`: copy a tile, store to HBM or fill with a scalar."""
    if hasattr(value, "materialize_into"):  # a result that can be written into target
        return value.materialize_into(target)
    if isinstance(value, Tensor):
        if (value.storage is target.storage and value.shape == target.shape
                and value.strides == target.strides and value.byte_offset == target.byte_offset
                and value.part_start == target.part_start):
            return  # `t[k] += x` stores the updated view back onto itself
        if not target.on_chip or not value.on_chip:
            return ops_isa.dma_copy(target, value)
        return ops_isa.tensor_copy(target, value)
    if isinstance(value, (int, float, np.number)):
        return ops_isa.memset(target, value)
    raise NkiTypeError(f"cannot assign {type(value).__name__} to a tile")


def accumulate_into(target, value):
    """`psum_tile += value`: a deferred matmul accumulates into it; a tile is added."""
    if hasattr(value, "accumulate_into"):
        return value.accumulate_into(target)
    if isinstance(value, Tensor):
        return ops_isa.tensor_tensor(target, target, value, BINARY["add"])
    return ops_isa.tensor_scalar(target, target, BINARY["add"], value)


def transpose(x, dtype=None):
    if not isinstance(x, Tensor):
        raise NkiTypeError("nl.transpose: x must be a tile")
    p, f = x.shape[0], _free(x)
    if p <= 32 and f <= 32:
        out = new_tile((f, p), x.dtype)
        ops_isa.nc_transpose(out, x.reshape((p, f)) if x.ndim != 2 else x,
                             engine=ops_isa.engine.vector)
        return out
    out = new_tile((f, p), x.dtype, PSUM)
    ops_isa.nc_transpose(out, x)
    return out


def matmul(x, y, transpose_x=False):
    """x @ y (transpose_x: x is given as [K, M]); the result is a new PSUM tile, fp32."""
    api = "nl.matmul"
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise NkiTypeError(f"{api}: x and y must be tiles")
    stationary = x
    if not transpose_x:
        if x.buffer.kind != "sbuf":
            raise NkiValueError(f"{api}: x must be in SBUF")
        t = transpose(x)
        stationary = new_tile(t.shape, x.dtype)
        ops_isa.tensor_copy(stationary, t)
    out = new_tile((_free(stationary), _free(y)), "float32", PSUM)
    ops_isa.nc_matmul(out, stationary, y)
    return out


def softmax(x, axis=-1, dtype=None):
    """exp(x - max) / sum, over the free dims (`axis` must be the last)."""
    api = "nl.softmax"
    if axis not in (-1, x.ndim - 1):
        raise NkiValueError(f"{api}: only the last axis is supported")
    neg_max = new_tile((x.shape[0], 1), "float32")
    ops_isa.tensor_reduce(neg_max, "maximum", x, x.ndim - 1, negate=True)
    e = new_tile(x.shape, "float32")
    total = new_tile((x.shape[0], 1), "float32")
    ops_isa.activation(e, UNARY["exp"], x, bias=neg_max, reduce_op=BINARY["add"],
                       reduce_res=total)
    inv = new_tile((x.shape[0], 1), "float32")
    ops_isa.reciprocal(inv, total)
    out = new_tile(x.shape, dtype or x.dtype)
    ops_isa.tensor_scalar(out, e, BINARY["multiply"], inv)
    return out


def where(condition, x, y, dtype=None):
    raise NkiNotImplementedError("nl.where")
