"""Data movement and composite operations of neuronxcc.nki.language: nl.load / nl.store (with
index views and `mask=`), nl.load_transpose2d, nl.broadcast_to, nl.matmul, nl.transpose,
nl.softmax, nl.where. Each returns a legacy_tiles.Result (or nothing, for stores).
"""

import numpy as np

from trnsim_nki import legacy_isa, ops_isa
from trnsim_nki.errors import NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.legacy_index import checked, restrict
from trnsim_nki.legacy_mask import empty, mask_bounds
from trnsim_nki.legacy_ops import binary, reduce, unary
from trnsim_nki.legacy_tiles import (NOTHING, BlockTensor, Result, as_tile,
                                     broadcast_to_target, new_tile, tile_operand)
from trnsim_nki.ops_language import BINARY, UNARY, dtype_arg
from trnsim_nki.tensor import Tensor


def _hbm(x, name, api):
    if isinstance(x, BlockTensor) or not isinstance(x, Tensor):
        raise NkiTypeError(f"{api}: {name} must be an HBM tensor, not {x!r}")
    if x.on_chip:
        raise NkiValueError(f"{api}: {name} is in {x.buffer.name}; it must be in HBM "
                            "(err_unsupported_memory)")
    return x


def load(src, *, mask=None, dtype=None, **kwargs):
    """HBM → a new SBUF tile; the index's first axis is the partition dim (a 1-D view of n
    elements is an [n, 1] tile: `nl.load(a[0:128, j])` is a column)."""
    api = "nl.load"
    bounds = mask_bounds(mask, api)
    src = _hbm(src, "src", api)
    if src.ndim == 1:
        src = checked(src).expand_dim(1)
    out = new_tile(src.shape, dtype_arg(dtype) if dtype is not None else src.dtype)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    instr = ops_isa.dma_copy(restrict(out, bounds), checked(restrict(src, bounds)))
    return Result.of(out, instr, bounds)


def store(dst, value, *, mask=None, **kwargs):
    """A tile → HBM (a PSUM tile is copied to SBUF first)."""
    api = "nl.store"
    bounds = mask_bounds(mask, api)
    dst = _hbm(dst, "dst", api)
    value = as_tile(value, "value", api)
    if not value.on_chip:
        raise NkiValueError(f"{api}: value is in HBM; it must be a tile in SBUF or PSUM")
    if empty(bounds):
        return None
    if dst.ndim == 1:
        dst = checked(dst).expand_dim(1)
    d = checked(restrict(dst, bounds))
    v = checked(restrict(value, bounds))
    if v.buffer.kind == "psum":
        staged = new_tile(v.shape, v.dtype)
        ops_isa.tensor_copy(staged, v)
        v = staged
    if v.size != d.size:
        v = broadcast_to_target(v, d, api)
    ops_isa.dma_copy(d, v)
    return None


def load_transpose2d(src, *, mask=None, dtype=None, **kwargs):
    """A 2-D HBM block [N, M] → a new [M, N] SBUF tile, transposed by the DMA."""
    api = "nl.load_transpose2d"
    bounds = mask_bounds(mask, api)
    src = checked(_hbm(src, "src", api))
    if src.ndim != 2:
        raise NkiValueError(f"{api}: src must be 2-D, not {list(src.shape)}")
    view = src.permute((1, 0))
    out = new_tile(view.shape, dtype_arg(dtype) if dtype is not None else src.dtype)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    instr = ops_isa.dma_copy(restrict(out, bounds), checked(restrict(view, bounds)))
    return Result.of(out, instr, bounds)


def broadcast_to(src, shape):
    """A tile grown along size-1 dims; growing the partition dim from 1 copies the row to
    every partition with one DMA (a new SBUF tile), free dims broadcast as a view."""
    api = "nl.broadcast_to"
    x = as_tile(src, "src", api)
    shape = tuple(int(s) for s in shape)
    if len(shape) != x.ndim:
        raise NkiValueError(f"{api}: {list(shape)} has another rank than {list(x.shape)}")
    if x.shape == shape:
        return x
    if not x.on_chip or x.shape[0] == shape[0]:
        return Tensor.broadcast_to(x, shape)
    if x.shape[0] != 1:
        raise NkiValueError(f"{api}: the partition dim {x.shape[0]} cannot grow to {shape[0]}")
    out = new_tile(shape, x.dtype)
    row = x.broadcast_to((1,) + shape[1:])
    rows = Tensor(row.storage, dtype=row.dtype, shape=(1, shape[0]) + shape[1:],
                  strides=(row.strides[0], 0) + row.strides[1:], byte_offset=row.byte_offset,
                  part_start=row.part_start)
    if x.buffer.kind == "psum":
        raise NkiValueError(f"{api}: a PSUM tile cannot be broadcast along partitions; copy "
                            "it to SBUF first")
    return Result.of(out, ops_isa.dma_copy(out, rows))


def matmul(x, y, *, transpose_x=False, mask=None, **kwargs):
    """x @ y (x.T @ y with transpose_x) into a new fp32 PSUM tile; `psum += nl.matmul(...)`
    accumulates. Without transpose_x, x is transposed on the Tensor engine first."""
    api = "nl.matmul"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nl.matmul", "mask= on a matmul (use operand "
                                     "tiles of the needed size)")
    x = tile_operand(x, "x", api)
    y = tile_operand(y, "y", api)
    if not transpose_x:
        xt = legacy_isa.nc_transpose(x)
        staged = new_tile(xt.shape, x.dtype)
        ops_isa.tensor_copy(staged, xt)
        x = staged
    return legacy_isa.nc_matmul(x, y)


def transpose(x, *, dtype=None, mask=None, **kwargs):
    """Swaps the partition and free dim of a 2-D tile (Vector engine up to [32, 32], else the
    Tensor engine into PSUM)."""
    x = tile_operand(x, "x", "nl.transpose")
    if x.ndim != 2:
        raise NkiValueError(f"nl.transpose: x must be a 2-D tile, not {list(x.shape)}")
    return legacy_isa.nc_transpose(x, mask=mask, dtype=dtype)


def softmax(x, axis, *, dtype=None, compute_dtype=None, mask=None, **kwargs):
    """exp(x - max(x)) / sum(exp(x - max(x))) over the last free axis."""
    api = "nl.softmax"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nl.softmax", "mask=")
    x = tile_operand(x, "x", api)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if [a % x.ndim for a in axes] != [x.ndim - 1]:
        raise NkiNotImplementedError("legacy.nl.softmax", "only the last axis")
    p = x.shape[0]
    neg_max = new_tile((p, 1), "float32")
    ops_isa.tensor_reduce(neg_max, "maximum", x, x.ndim - 1, negate=True)
    e = new_tile(x.shape, "float32")
    total = new_tile((p, 1), "float32")
    ops_isa.activation(e, UNARY["exp"], x, bias=neg_max, reduce_op=BINARY["add"],
                       reduce_res=total)
    inv = new_tile((p, 1), "float32")
    ops_isa.reciprocal(inv, total)
    out = new_tile(x.shape, dtype_arg(dtype) if dtype is not None else x.dtype)
    return Result.of(out, ops_isa.tensor_scalar(out, e, BINARY["multiply"], inv))


def where(condition, x, y, *, dtype=None, mask=None, **kwargs):
    """x where condition is nonzero, else y (y may be a number)."""
    api = "nl.where"
    bounds = mask_bounds(mask, api)
    cond = as_tile(condition, "condition", api)
    x = as_tile(x, "x", api)
    out = new_tile(x.shape, dtype_arg(dtype) if dtype is not None else x.dtype)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    dst = tile_operand(out, "dst", api, bounds)
    if isinstance(y, Tensor):
        ops_isa.tensor_copy(dst, tile_operand(y, "y", api, bounds))
    else:
        ops_isa.memset(dst, y)
    ops_isa.tensor_copy_predicated(dst, tile_operand(x, "x", api, bounds),
                                   tile_operand(cond, "condition", api, bounds))
    return Result.of(out, None, bounds)


def copy(src, *, mask=None, dtype=None, **kwargs):
    return unary(UNARY["copy"], src, dtype=dtype, mask=mask)


def mean(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):
    return reduce("mean", x, axis, dtype, keepdims, mask)


def power(x, y, *, dtype=None, mask=None, **kwargs):
    return binary(BINARY["power"], x, y, dtype=dtype, mask=mask)
