"""neuronxcc.nki.isa: the legacy instruction calls. Each allocates its destination (SBUF, or
PSUM for the Tensor engine's nc_matmul / nc_transpose; `buffer=` picks another where the engine
can write it), emits through trnsim_nki.ops_isa (the shared, dst-first implementation) and
returns the destination as a legacy_tiles.Result, so `psum[...] += nisa.nc_matmul(a, b)`
accumulates into psum and `t[...] = nisa.activation(...)` writes into t.

Output dtypes follow the legacy reference (general/nki/api/nki/isa/__init__.py @ 0521004c):
`dtype=` when given, else the data input's dtype; tensor_tensor promotes its two inputs;
nc_matmul writes fp32. Operators may be nl functions or numpy ufuncs (np.add, np.amax).
"""

import enum

from trnsim_nki import dtypes, ops_isa
from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.legacy_index import IndexExpr, checked, restrict
from trnsim_nki.legacy_mask import Predicate, empty, mask_bounds
from trnsim_nki.legacy_ops import operator_of, promote, reduce as _reduce
from trnsim_nki.legacy_tiles import NOTHING, Result, as_tile, new_tile, tile_operand
from trnsim_nki.ops_language import BINARY, buffer_arg, dtype_arg
from trnsim_nki.tensor import Tensor, SBUF, PSUM


class engine(enum.IntEnum):  # noqa: N801 - NKI's spelling
    unknown = 0
    tensor = 1
    scalar = 2
    gpsimd = 3
    vector = 5
    sync = 6


class reduce_cmd(enum.IntEnum):  # noqa: N801
    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3


class dge_mode(enum.IntEnum):  # noqa: N801 - legacy numbering (none 0 ... unknown 3)
    none = 0
    swdge = 1
    hwdge = 2
    unknown = 3


class oob_mode(enum.IntEnum):  # noqa: N801
    error = 0
    skip = 1


class nc_version(enum.IntEnum):  # noqa: N801 - gen4 (trn3) is trnsim's addition
    gen2 = 2
    gen3 = 3
    gen4 = 4


tensor_engine = engine.tensor
vector_engine = engine.vector
scalar_engine = engine.scalar
gpsimd_engine = engine.gpsimd
unknown_engine = engine.unknown


def get_nc_version():
    chip = tr.current().chip if tr.active() else None
    if chip is None:
        from trnsim_nki.kernel import target_chip
        chip = target_chip()
    return nc_version.gen4 if chip == "trn3" else nc_version.gen3


def _out(shape, dtype, default, kwargs, api, allowed=("sbuf", "psum")):
    buffer = buffer_arg(kwargs.pop("buffer", SBUF))
    if buffer.kind not in allowed:
        raise NkiValueError(f"{api}: cannot write its result to {buffer.name}")
    for key in kwargs:
        if key != "name":
            raise NkiTypeError(f"{api}: unexpected argument {key}=")
    return new_tile(shape, dtype_arg(dtype) if dtype is not None else default, buffer,
                    kwargs.get("name", ""))


def _opnd(x, name, api, bounds):
    return tile_operand(x, name, api, bounds) if isinstance(x, Tensor) else x


def _run(out, bounds, emit):
    """Emits `emit(dst)` unless the mask is empty; the Result of `out`."""
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    return Result.of(out, emit(tile_operand(out, "dst", "nisa", bounds)), bounds)


# ---- Tensor engine ------------------------------------------------------------------------------

def nc_matmul(stationary, moving, *, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, tile_position=(), tile_size=(), mask=None, **kwargs):
    api = "nisa.nc_matmul"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nisa.nc_matmul", "mask= on a matmul (use "
                                     "operand tiles of the needed size)")
    if tile_position or tile_size:
        raise NkiNotImplementedError("legacy.nisa.nc_matmul", "PE tiling (tile_position, "
                                     "tile_size) is not modelled")
    if kwargs.get("perf_mode") not in (None, "none"):
        raise NkiNotImplementedError("legacy.nisa.nc_matmul", "perf_mode is not traced")
    st = tile_operand(stationary, "stationary", api)
    mv = tile_operand(moving, "moving", api)
    ops_isa._buffers(st, ("sbuf",), "stationary", api)
    ops_isa._buffers(mv, ("sbuf",), "moving", api)
    m, n = ops_isa._free_size(st), ops_isa._free_size(mv)
    if m > 128:
        raise NkiValueError(f"{api}: stationary has {m} elements per partition; at most 128 "
                            "(nl.tile_size.gemm_stationary_fmax)")
    out = new_tile((m, n), "float32", PSUM)
    instr = ops_isa.nc_matmul(out, st, mv, is_stationary_onezero=is_stationary_onezero,
                              is_moving_onezero=is_moving_onezero, is_transpose=is_transpose)
    return Result.of(out, instr)


def nc_transpose(data, *, mask=None, dtype=None, engine=engine.unknown, **kwargs):
    api = "nisa.nc_transpose"
    bounds = mask_bounds(mask, api)  # over data's (partition, free) axes
    x = as_tile(data, "data", api)
    p = x.shape[0]
    f = ops_isa._free_size(x)
    if bounds and (x.ndim != 2 or set(bounds) - {0, 1}):
        raise NkiNotImplementedError("legacy.nisa.nc_transpose", "mask= on a tile with more "
                                     "than one free dim")
    eng = ops_isa.resolve_engine(engine, None, api, allowed=("pe", "dve"))
    if eng is None:
        eng = "dve" if p <= 32 and f <= 32 else "pe"
    flat = x if x.ndim == 2 else tile_operand(x, "data", api).reshape((p, f))
    out = new_tile((f, p), x.dtype, PSUM if eng == "pe" else SBUF)
    flipped = {1 - axis: b for axis, b in bounds.items()}
    if empty(bounds):
        instr = None
    else:
        instr = ops_isa.nc_transpose(
            tile_operand(out, "dst", api, flipped), tile_operand(flat, "data", api, bounds),
            engine=ops_isa.engine.tensor if eng == "pe" else ops_isa.engine.vector)
    if dtype is not None and dtype_arg(dtype) is not x.dtype:
        cast = new_tile((f, p), dtype_arg(dtype))
        if instr is None:
            return Result.of(cast, None, NOTHING)
        return Result.of(cast, ops_isa.tensor_copy(tile_operand(cast, "dst", api, flipped),
                                                   tile_operand(out, "src", api, flipped)),
                         flipped)
    return Result.of(out, instr, flipped)


# ---- Scalar engine ------------------------------------------------------------------------------

def activation(op, data, *, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
               reduce_cmd=reduce_cmd.idle, mask=None, dtype=None, **kwargs):
    api = "nisa.activation"
    bounds = mask_bounds(mask, api)
    x = as_tile(data, "data", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    fn = operator_of(op, api)
    rop = operator_of(reduce_op, api, "reduce_op") if reduce_op is not None else None
    part = {0: bounds[0]} if 0 in bounds else None
    return _run(out, bounds, lambda dst: ops_isa.activation(
        dst, fn, tile_operand(x, "data", api, bounds), bias=_opnd(bias, "bias", api, part),
        scale=_opnd(scale, "scale", api, part), reduce_op=rop,
        reduce_res=_opnd(reduce_res, "reduce_res", api, part), reduce_cmd=reduce_cmd))


def activation_reduce(op, data, *, reduce_op, reduce_res, bias=None, scale=1.0, mask=None,
                      dtype=None, **kwargs):
    return activation(op, data, bias=bias, scale=scale, reduce_op=reduce_op,
                      reduce_res=reduce_res, reduce_cmd=reduce_cmd.reset_reduce, mask=mask,
                      dtype=dtype, **kwargs)


# ---- Vector / GpSimd engines --------------------------------------------------------------------

def tensor_tensor(data1, data2, op, *, dtype=None, mask=None, engine=engine.unknown, **kwargs):
    api = "nisa.tensor_tensor"
    bounds = mask_bounds(mask, api)
    a, b = as_tile(data1, "data1", api), as_tile(data2, "data2", api)
    out = _out(a.shape, dtype, promote(a.dtype, b.dtype), dict(kwargs), api)
    fn = operator_of(op, api)
    return _run(out, bounds, lambda dst: ops_isa.tensor_tensor(
        dst, tile_operand(a, "data1", api, bounds), tile_operand(b, "data2", api, bounds), fn,
        engine=engine))


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  *, dtype=None, mask=None, engine=engine.unknown, **kwargs):
    api = "nisa.tensor_scalar"
    bounds = mask_bounds(mask, api)
    x = as_tile(data, "data", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    f0 = operator_of(op0, api, "op0")
    f1 = operator_of(op1, api, "op1") if op1 is not None else None
    return _run(out, bounds, lambda dst: ops_isa.tensor_scalar(
        dst, tile_operand(x, "data", api, bounds), f0, _opnd(operand0, "operand0", api, bounds),
        reverse0=reverse0, op1=f1, operand1=_opnd(operand1, "operand1", api, bounds),
        reverse1=reverse1, engine=engine))


def scalar_tensor_tensor(*, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False,
                         dtype=None, mask=None, **kwargs):
    api = "nisa.scalar_tensor_tensor"
    bounds = mask_bounds(mask, api)
    x = as_tile(data, "data", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    return _run(out, bounds, lambda dst: ops_isa.scalar_tensor_tensor(
        dst, tile_operand(x, "data", api, bounds), operator_of(op0, api, "op0"),
        _opnd(operand0, "operand0", api, bounds), operator_of(op1, api, "op1"),
        tile_operand(operand1, "operand1", api, bounds), reverse0=reverse0, reverse1=reverse1))


def tensor_copy(src, *, mask=None, dtype=None, engine=engine.unknown, **kwargs):
    api = "nisa.tensor_copy"
    bounds = mask_bounds(mask, api)
    x = as_tile(src, "src", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    return _run(out, bounds, lambda dst: ops_isa.tensor_copy(
        dst, tile_operand(x, "src", api, bounds), engine=engine))


def reciprocal(data, *, dtype=None, mask=None, **kwargs):
    api = "nisa.reciprocal"
    bounds = mask_bounds(mask, api)
    x = as_tile(data, "data", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    return _run(out, bounds, lambda dst: ops_isa.reciprocal(
        dst, tile_operand(x, "data", api, bounds)))


def tensor_reduce(op, data, axis, *, mask=None, dtype=None, negate=False, keepdims=False,
                  **kwargs):
    name = operator_of(op, "nisa.tensor_reduce").alu
    return _reduce(name, data, axis, dtype=dtype, keepdims=keepdims, mask=mask, negate=negate,
                   api="nisa.tensor_reduce")


def tensor_scalar_reduce(*, data, op0, operand0, reduce_op, reduce_res, reverse0=False,
                         dtype=None, mask=None, **kwargs):
    api = "nisa.tensor_scalar_reduce"
    bounds = mask_bounds(mask, api)
    x = as_tile(data, "data", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    part = {0: bounds[0]} if 0 in bounds else None
    return _run(out, bounds, lambda dst: ops_isa.tensor_scalar_reduce(
        dst, tile_operand(x, "data", api, bounds), operator_of(op0, api, "op0"),
        _opnd(operand0, "operand0", api, bounds), operator_of(reduce_op, api, "reduce_op"),
        reduce_res=tile_operand(reduce_res, "reduce_res", api, part), reverse0=reverse0))


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, *,
                       dtype=None, mask=None, **kwargs):
    api = "nisa.tensor_tensor_scan"
    bounds = mask_bounds(mask, api)
    a, b = as_tile(data0, "data0", api), as_tile(data1, "data1", api)
    out = _out(a.shape, dtype, promote(a.dtype, b.dtype), dict(kwargs), api)
    return _run(out, bounds, lambda dst: ops_isa.tensor_tensor_scan(
        dst, tile_operand(a, "data0", api, bounds), tile_operand(b, "data1", api, bounds),
        _opnd(initial, "initial", api, bounds), operator_of(op0, api, "op0"),
        operator_of(op1, api, "op1"), reverse0=reverse0, reverse1=reverse1))


def tensor_partition_reduce(op, data, *, mask=None, dtype=None, **kwargs):
    api = "nisa.tensor_partition_reduce"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nisa.tensor_partition_reduce", "mask=")
    x = tile_operand(data, "data", api)
    out = _out((1,) + x.shape[1:], dtype, x.dtype, dict(kwargs), api, allowed=("sbuf",))
    return Result.of(out, ops_isa.tensor_partition_reduce(out, operator_of(op, api), x))


def _stats(fn, api, data, free, mask, dtype, kwargs, out_dtype=None):
    bounds = mask_bounds(mask, api)  # a free-axis bound shortens the data only
    x = as_tile(data, "data", api)
    out = _out((x.shape[0], free), dtype, out_dtype or x.dtype, dict(kwargs), api)
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    part = {0: bounds[0]} if 0 in bounds else {}
    return Result.of(out, fn(tile_operand(out, "dst", api, part),
                             tile_operand(x, "data", api, bounds)), part)


def bn_stats(data, *, mask=None, dtype=None, **kwargs):
    return _stats(ops_isa.bn_stats, "nisa.bn_stats", data, 6, mask, dtype, kwargs)


def bn_aggr(data, *, mask=None, dtype=None, **kwargs):
    return _stats(ops_isa.bn_aggr, "nisa.bn_aggr", data, 2, mask, dtype, kwargs)


def max8(*, src, mask=None, dtype=None, **kwargs):
    return _stats(ops_isa.max8, "nisa.max8", src, 8, mask, dtype, kwargs)


def nc_find_index8(*, data, vals, mask=None, dtype=None, **kwargs):
    api = "nisa.nc_find_index8"
    v = tile_operand(vals, "vals", api)
    return _stats(lambda dst, d: ops_isa.nc_find_index8(dst, d, v), api, data, 8, mask, dtype,
                  kwargs, out_dtype=dtypes.lookup("uint32"))


def nc_match_replace8(*, data, vals, imm, dst_idx=None, mask=None, dtype=None, **kwargs):
    api = "nisa.nc_match_replace8"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nisa.nc_match_replace8", "mask=")
    x = tile_operand(data, "data", api)
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api)
    return Result.of(out, ops_isa.nc_match_replace8(
        out, x, tile_operand(vals, "vals", api), imm,
        dst_idx=tile_operand(dst_idx, "dst_idx", api) if dst_idx is not None else None))


# ---- GpSimd: constants --------------------------------------------------------------------------

def iota(expr, dtype, *, mask=None, **kwargs):
    api = "nisa.iota"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nisa.iota", "mask=")
    if not isinstance(expr, IndexExpr):
        raise NkiTypeError(f"{api}: expr must be an affine expression of nl.arange, not {expr!r}")
    if expr.ndim < 2:
        raise NkiValueError(f"{api}: a 1-D nl.arange expression has no partition axis "
                            "(err_1d_arange_not_supported: use nl.arange(n)[:, None])")
    out = _out(expr.shape, dtype, None, dict(kwargs), api, allowed=("sbuf",))
    pattern = [(c, n) for c, n in zip(expr.coefs[1:], expr.shape[1:])]
    return Result.of(out, ops_isa.iota(out, pattern, offset=expr.const,
                                       channel_multiplier=expr.coefs[0]))


def memset(shape, value, dtype, *, mask=None, engine=engine.unknown, **kwargs):
    api = "nisa.memset"
    bounds = mask_bounds(mask, api)
    shape = tuple(int(s) for s in ((shape,) if isinstance(shape, int) else shape))
    out = _out(shape if len(shape) > 1 else shape + (1,), dtype, None, dict(kwargs), api)
    return _run(out, bounds, lambda dst: ops_isa.memset(dst, value, engine=engine))


_PRED_OPS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}


def affine_select(pred, on_true_tile, on_false_value, *, mask=None, dtype=None, **kwargs):
    api = "nisa.affine_select"
    bounds = mask_bounds(mask, api)
    if not isinstance(pred, Predicate) or len(pred.terms) != 1:
        raise NkiValueError(f"{api}: pred must be one comparison of nl.arange/nl.mgrid "
                            "expressions (not several joined with &)")
    (expr, op), = pred.terms
    x = as_tile(on_true_tile, "on_true_tile", api)
    if expr.ndim > x.ndim:
        raise NkiValueError(f"{api}: pred has {expr.ndim} axes, on_true_tile {x.ndim} dims")
    out = _out(x.shape, dtype, x.dtype, dict(kwargs), api, allowed=("sbuf",))
    if empty(bounds):
        return Result.of(out, None, NOTHING)
    x = tile_operand(x, "on_true_tile", api, bounds)
    if x.buffer.kind == "psum":  # GpSimd cannot read PSUM: the tile goes through SBUF
        staged = new_tile(x.shape, x.dtype)
        ops_isa.tensor_copy(staged, x)
        x = staged
    coefs = expr.coefs + (0,) * (x.ndim - expr.ndim)  # axes count from the partition axis
    offset = expr.const + sum(coefs[a] * lo for a, (lo, _) in bounds.items() if a < len(coefs))
    pattern = [(c, n) for c, n in zip(coefs[1:], x.shape[1:])]
    return Result.of(out, ops_isa.affine_select(
        tile_operand(out, "dst", api, bounds), pattern, coefs[0], x, float(on_false_value),
        cmp_op=BINARY[_PRED_OPS[op]], offset=offset), bounds)


def tensor_copy_predicated(*, src, dst, predicate, reverse_pred=False, mask=None, dtype=None,
                           **kwargs):
    api = "nisa.tensor_copy_predicated"
    bounds = mask_bounds(mask, api)
    if empty(bounds):
        return None
    ops_isa.tensor_copy_predicated(
        tile_operand(dst, "dst", api, bounds), tile_operand(src, "src", api, bounds),
        tile_operand(predicate, "predicate", api, bounds), reverse_pred=reverse_pred)
    return None


# ---- DMA ----------------------------------------------------------------------------------------

# Legacy dge_mode numbering (none 0, swdge 1, hwdge 2, unknown 3) to the current enum.
_DGE_MODES = {dge_mode.none: ops_isa.dge_mode.none, dge_mode.swdge: ops_isa.dge_mode.swdge,
              dge_mode.hwdge: ops_isa.dge_mode.hwdge}

def dma_copy(*, dst, src, mask=None, dst_rmw_op=None, oob_mode=oob_mode.error,
             dge_mode=dge_mode.unknown):
    api = "nisa.dma_copy"
    if dst_rmw_op is not None:
        raise NkiNotImplementedError("legacy.nisa.dma_copy", "dst_rmw_op (read-modify-write "
                                     "DMA) is not supported")
    bounds = mask_bounds(mask, api)
    d, s = as_tile(dst, "dst", api), as_tile(src, "src", api)
    if empty(bounds):
        return None
    ops_isa.dma_copy(checked(restrict(d, bounds)), checked(restrict(s, bounds)),
                     dge_mode=_DGE_MODES.get(dge_mode, ops_isa.dge_mode.unknown))
    return None


def dma_transpose(src, *, axes=None, mask=None, dtype=None, **kwargs):
    api = "nisa.dma_transpose"
    if mask is not None:
        raise NkiNotImplementedError("legacy.nisa.dma_transpose", "mask=")
    s = checked(as_tile(src, "src", api))
    order = tuple(axes) if axes is not None else tuple(reversed(range(s.ndim)))
    shape = tuple(s.shape[a] for a in order)
    out = _out(shape, dtype, s.dtype, dict(kwargs), api, allowed=("sbuf",))
    return Result.of(out, ops_isa.dma_transpose(out, s, axes=order))

