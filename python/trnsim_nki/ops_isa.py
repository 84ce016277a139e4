"""nki.isa: one function per NKI instruction, each checking its operands as NKI states and
appending trnsim instructions to the trace (docs/isa.md §7 gives each opcode's semantics).

The functions take `dst` first, as in the current NKI generation; the legacy generation's
module allocates a dst and calls these (python/neuronxcc/nki/isa.py). Every check raises an
error naming the kernel's line (errors.py). Engine choice follows NKI's documented defaults
where it states one, else the engine that can run the op with the most overlap.
"""

import enum

from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiError, NkiTypeError, NkiValueError, NkiNotImplementedError
from trnsim_nki.lower import imm_text, simplify_dims, iota_text
from trnsim_nki.tensor import Tensor

Operand = tr.Operand

# DMA queues the tracer spreads transfers over, round robin (each is one completion channel of
# the issuing engine, tools/kernel_builder/sync.h). Assumption: four keep a consumer's waits
# within an instruction's four wait slots while letting transfers on different queues overlap.
DMA_QUEUES = 4


class engine(enum.Enum):  # noqa: N801 - NKI's spelling
    unknown = 0
    tensor = 1
    scalar = 2
    gpsimd = 3
    dma = 4
    vector = 5
    sync = 6


class reduce_cmd(enum.Enum):  # noqa: N801
    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3
    load_reduce = 4


class dge_mode(enum.Enum):  # noqa: N801
    unknown = 0
    swdge = 1
    hwdge = 2
    none = 3


class oob_mode(enum.Enum):  # noqa: N801
    error = 0
    skip = 1


class matmul_perf_mode(enum.Enum):  # noqa: N801
    none = "none"
    double_row = "double_row"


class nc_version(enum.Enum):  # noqa: N801
    gen2 = 2
    gen3 = 3
    gen4 = 4


class dma_engine(enum.Enum):  # noqa: N801
    dma = 1
    gpsimd_dma = 2


_ENGINE_NAMES = {engine.tensor: "pe", engine.scalar: "act", engine.gpsimd: "pool",
                 engine.vector: "dve", engine.sync: "sp", engine.dma: "sp"}


def resolve_engine(value, default, api, allowed=("act", "dve", "pool")):
    if value is None or value == engine.unknown or value == 0:
        return default
    if isinstance(value, engine):
        name = _ENGINE_NAMES[value]
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            name = _ENGINE_NAMES[engine(value)]
        except (ValueError, KeyError):
            raise NkiValueError(f"{api}: engine={value!r} is not an nki.isa.engine") from None
    else:
        raise NkiTypeError(f"{api}: engine={value!r} is not an nki.isa.engine")
    if name not in allowed:
        raise NkiValueError(f"{api}: cannot run on the {name} engine (allowed: "
                            f"{', '.join(allowed)})")
    return name


# ---- operand checks ------------------------------------------------------------------------

def tensor_arg(value, name, api):
    if not isinstance(value, Tensor):
        raise NkiTypeError(f"{api}: {name} must be a tensor (nl.ndarray or a view), "
                           f"not {type(value).__name__}")
    return value


def _buffers(t, allowed, name, api):
    if t.buffer.kind not in allowed:
        raise NkiValueError(f"{api}: {name} is in {t.buffer.name}; this instruction reads/writes "
                            f"{name} only in {' or '.join(allowed)}")


def _partitions(t, name, api, limit=128):
    if t.on_chip and t.shape[0] > limit:
        raise NkiValueError(f"{api}: {name} has a partition dim of {t.shape[0]}; at most "
                            f"{limit} (nl.tile_size.pmax)")


def _free_size(t):
    n = 1
    for d in (t.shape[1:] if t.on_chip else t.shape):
        n *= d
    return n


def _same_layout(a, b, an, bn, api):
    if a.shape[0] != b.shape[0]:
        raise NkiValueError(f"{api}: {an} has {a.shape[0]} partitions and {bn} {b.shape[0]}")
    if _free_size(a) != _free_size(b):
        raise NkiValueError(f"{api}: {an} has {_free_size(a)} elements per partition and {bn} "
                            f"{_free_size(b)}")


def _on_chip(t, name, api, allowed=("sbuf", "psum")):
    _buffers(t, allowed, name, api)
    _partitions(t, name, api)


def _not_both_psum(a, b, api):
    if a.buffer.kind == "psum" and b.buffer.kind == "psum":
        raise NkiValueError(f"{api}: both inputs are in PSUM; at most one may be")


def _pool_no_psum(eng, tensors, api):
    if eng == "pool" and any(t.buffer.kind == "psum" for t in tensors):
        raise NkiValueError(f"{api}: the GpSimd engine cannot access PSUM")


def alu_name(op, api, what="op"):
    name = getattr(op, "alu", None)
    if name is None:
        if isinstance(op, str):
            return op
        raise NkiValueError(f"{api}: {what}={getattr(op, '__name__', op)!r} is not an ALU "
                            "operator (nl.add, nl.multiply, nl.maximum, ...)")
    return name


def act_name(op, api):
    name = getattr(op, "act", None)
    if name is None:
        raise NkiValueError(f"{api}: op={getattr(op, '__name__', op)!r} is not an activation "
                            "function (nl.exp, nl.copy, nl.tanh, ...)")
    return name


def cmp_name(op, api):
    name = getattr(op, "cmp", None)
    if name is None:
        raise NkiValueError(f"{api}: {getattr(op, '__name__', op)!r} is not a comparison "
                            "(nl.equal, nl.greater_equal, ...)")
    return name


def _scalar(key, value, operands, fields, api, integer=False, partitions=None):
    """An operand that is an immediate or a [P, 1] tensor."""
    if isinstance(value, Tensor):
        _on_chip(value, key, api)
        if _free_size(value) != 1:
            raise NkiValueError(f"{api}: {key} must be a scalar or a [P, 1] tensor, not "
                                f"{list(value.shape)}")
        if partitions is not None and value.shape[0] != partitions:
            raise NkiValueError(f"{api}: {key} has {value.shape[0]} partitions, the data "
                                f"{partitions}")
        operands.append(Operand(key, value))
    elif value is None:
        return
    else:
        try:
            number = int(value) if integer and float(value) == int(value) else float(value)
        except (TypeError, ValueError):
            raise NkiTypeError(f"{api}: {key} must be a number or a tensor, not "
                               f"{value!r}") from None
        fields.append(f"{key}={imm_text(number)}")


def _emit(eng, opcode, operands, fields, api, queue=None):
    return tr.current().emit(eng, opcode, operands, fields, api=api, queue=queue)


# ---- data movement ---------------------------------------------------------------------------

def dma_copy(dst, src, priority=None, oob_mode=oob_mode.error, dge_mode=dge_mode.unknown,
             engine=engine.unknown, name=None):
    api = "nisa.dma_copy"
    tensor_arg(dst, "dst", api)
    tensor_arg(src, "src", api)
    _buffers(dst, ("sbuf", "hbm"), "dst", api)
    _buffers(src, ("sbuf", "hbm"), "src", api)
    _partitions(dst, "dst", api)
    _partitions(src, "src", api)
    if dst.size != src.size:
        raise NkiValueError(f"{api}: dst has {dst.size} elements {list(dst.shape)} and src "
                            f"{src.size} {list(src.shape)}")
    t = tr.current()
    mode = _dge_mode(dge_mode, api)
    if mode == "swdge":  # GpSimd generates the descriptors, so GpSimd issues the DMA
        eng = resolve_engine(engine, "pool", api, allowed=("pool",))
    elif mode == "hwdge":  # the DGE blocks are commanded from SyncE or ScalarE only
        eng = resolve_engine(engine, "sp", api, allowed=("sp", "act"))
    else:
        eng = resolve_engine(engine, _dma_engine(t, src), api,
                             allowed=("sp", "act", "pool", "dve", "pe"))
    queue = t.next_dma_queue(min(DMA_QUEUES, t.info["dma_queues_per_core"]))
    fields = [f"queue={queue}"] + ([mode] if mode in ("swdge", "hwdge") else [])
    return _emit(eng, "dma_copy", [Operand("dst", dst, write=True, read=False),
                                   Operand("src", src)], fields, api, queue=queue)


def _dge_mode(value, api):
    """The descriptor generation of a DMA (docs/isa.md §7.2): "swdge", "hwdge" or "none". The
    compiler's choice for `unknown` is pre-built descriptors ("none"), as AWS's compiler chose
    for the DMA overview's kernel (a static queue, qSyncIO0); docs/decisions.md, "DMA engines"."""
    if value is None or value == dge_mode.unknown or value == dge_mode.none:
        return "none"
    if value == dge_mode.swdge:
        return "swdge"
    if value == dge_mode.hwdge:
        return "hwdge"
    raise NkiTypeError(f"{api}: dge_mode={value!r} is not an nki.isa.dge_mode")


def _dma_engine(t, src):
    """Which engine's queue issues a DMA when the kernel does not say. Every engine's sequencer
    starts DMAs, and one engine issues in program order, so a store that waits for its data
    would hold back every later DMA of its engine. Loads go on SP; a store of an on-chip tile
    goes on the engine that wrote the tile last (ACT when that was the PE, which cannot write
    SBUF), so it issues right after its data and never blocks the loads. This is what lets an
    NKI kernel prefetch its next tiles while earlier results drain."""
    if not src.on_chip:
        return "sp"
    engine = t.last_writer_engine.get(src.storage.ident, "sp")
    return "act" if engine == "pe" else engine


def dma_transpose(dst, src, axes=None, priority=None, dge_mode=dge_mode.unknown,
                  oob_mode=oob_mode.error, name=None):
    api = "nisa.dma_transpose"
    tensor_arg(src, "src", api)
    tensor_arg(dst, "dst", api)
    if src.on_chip:
        raise NkiNotImplementedError(api, "only an HBM source is supported (an on-chip source "
                                     "cannot be read with the partition dim permuted)")
    order = tuple(axes) if axes is not None else tuple(reversed(range(src.ndim)))
    return dma_copy(dst, src.permute(order), dge_mode=dge_mode)


def tensor_copy(dst, src, engine=engine.unknown, name=None):
    api = "nisa.tensor_copy"
    tensor_arg(dst, "dst", api)
    tensor_arg(src, "src", api)
    _on_chip(dst, "dst", api)
    _on_chip(src, "src", api)
    _same_layout(dst, src, "dst", "src", api)
    eng = resolve_engine(engine, "dve", api)
    _pool_no_psum(eng, (dst, src), api)
    return _emit(eng, "tensor_copy", [Operand("dst", dst, True, False), Operand("in", src)], [],
                 api)


def memset(dst, value, engine=engine.unknown, name=None):
    api = "nisa.memset"
    tensor_arg(dst, "dst", api)
    _on_chip(dst, "dst", api)
    eng = resolve_engine(engine, "dve", api, allowed=("dve", "pool"))
    _pool_no_psum(eng, (dst,), api)
    number = float(value)
    if not dst.dtype.is_float:
        number = int(value)
    return _emit(eng, "memset", [Operand("dst", dst, True, False)],
                 [f"value={imm_text(number)}"], api)


def iota(dst, pattern, offset=0, channel_multiplier=0, name=None):
    api = "nisa.iota"
    tensor_arg(dst, "dst", api)
    _on_chip(dst, "dst", api, allowed=("sbuf",))
    pairs = [(int(s), int(n)) for s, n in pattern]
    count = 1
    for _, n in pairs:
        count *= n
    if count != _free_size(dst):
        raise NkiValueError(f"{api}: the pattern makes {count} values per partition, dst holds "
                            f"{_free_size(dst)}")
    expr = iota_text(int(offset), int(channel_multiplier), pairs, dst.shape[0])
    return _emit("pool", "iota", [Operand("dst", dst, True, False)], [f"expr={expr}"], api)


# ---- PE ----------------------------------------------------------------------------------------

def _pe_dtype_class(dtype):
    return "fp32" if dtype.isa in ("fp32", "fp32r") else "low"


def nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, accumulate=None, tile_position=(), tile_size=(),
              perf_mode=matmul_perf_mode.none, name=None):
    api = "nisa.nc_matmul"
    for value, key in ((dst, "dst"), (stationary, "stationary"), (moving, "moving")):
        tensor_arg(value, key, api)
    _buffers(dst, ("psum",), "dst", api)
    _buffers(stationary, ("sbuf",), "stationary", api)
    _buffers(moving, ("sbuf",), "moving", api)
    for value, key in ((dst, "dst"), (stationary, "stationary"), (moving, "moving")):
        _partitions(value, key, api)
    k, m = stationary.shape[0], _free_size(stationary)
    n = _free_size(moving)
    if moving.shape[0] != k:
        raise NkiValueError(f"{api}: stationary {list(stationary.shape)} and moving "
                            f"{list(moving.shape)} must have the same partition (contraction) "
                            f"dim; {k} != {moving.shape[0]}")
    if m > 128:
        raise NkiValueError(f"{api}: stationary has {m} elements per partition; at most 128 "
                            "(nl.tile_size.gemm_stationary_fmax)")
    if n > 512:
        raise NkiValueError(f"{api}: moving has {n} elements per partition; at most 512 "
                            "(nl.tile_size.gemm_moving_fmax)")
    if dst.shape[0] != m or _free_size(dst) != n:
        raise NkiValueError(f"{api}: dst {list(dst.shape)} must be [{m}, {n}] for stationary "
                            f"{list(stationary.shape)} and moving {list(moving.shape)}")
    if _pe_dtype_class(stationary.dtype) != _pe_dtype_class(moving.dtype):
        raise NkiTypeError(f"{api}: stationary is {stationary.dtype.name} and moving "
                           f"{moving.dtype.name}; fp32 operands cannot mix with low-precision "
                           "ones")
    if tile_position or tile_size:
        raise NkiNotImplementedError("nisa.nc_matmul(tile_position=, tile_size=)",
                                     "PE row/column tiling is not modelled")
    if perf_mode not in (None, matmul_perf_mode.none, "none"):
        raise NkiNotImplementedError("nisa.nc_matmul(perf_mode=)", "double_row mode is not "
                                     "traced yet")
    t = tr.current()
    if is_transpose:
        return _emit("pe", "nc_transpose", [Operand("dst", dst, True, False),
                                            Operand("in", stationary)], [], api)
    from trnsim_nki.lower import footprint
    fp = footprint(dst)
    inferred = accumulate is None
    if inferred:
        accumulate = t.psum_initialised(dst, fp)
    stationary_key = (stationary.storage.ident, stationary.dtype.isa, stationary.shape,
                      stationary.strides, stationary.byte_offset, stationary.part_start,
                      t.write_epoch(stationary.storage), getattr(stationary, "reg", None))
    if t.last_stationary[t.core] != stationary_key:
        flags = []
        if is_stationary_onezero:
            flags.append("onezero")
        _emit("pe", "load_stationary", [Operand("stationary", stationary)], flags, api)
        t.last_stationary[t.core] = stationary_key
    flags = ["accumulate"] if accumulate else ["first"]
    if is_moving_onezero:
        flags.append("onezero")
    instr = _emit("pe", "multiply_moving",
                  [Operand("dst", dst, write=True, read=bool(accumulate)),
                   Operand("moving", moving)], flags, api)
    t.psum_matmul_written(dst, fp)
    if inferred and not accumulate and t.control is not None:  # in a register loop? (loops.py)
        from trnsim_nki import loops
        loops.note_inferred_overwrite(t, instr, dst, fp)
    return instr


def nc_transpose(dst, data, engine=engine.unknown, name=None):
    api = "nisa.nc_transpose"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    p, f = data.shape[0], _free_size(data)
    if dst.shape[0] != f or _free_size(dst) != p:
        raise NkiValueError(f"{api}: dst {list(dst.shape)} must be [{f}, {p}] for data "
                            f"{list(data.shape)}")
    if dst.dtype is not data.dtype:
        raise NkiTypeError(f"{api}: dst is {dst.dtype.name} and data {data.dtype.name}; a "
                           "transpose keeps the dtype")
    small = p <= 32 and f <= 32
    default = "dve" if small and dst.buffer.kind != "psum" else "pe"
    eng = resolve_engine(engine, default, api, allowed=("pe", "dve"))
    if eng == "pe":
        _buffers(data, ("sbuf",), "data", api)
        _buffers(dst, ("psum",), "dst", api)
        if p > 128 or f > 128:
            raise NkiValueError(f"{api}: the Tensor engine transposes at most [128, 128], not "
                                f"{list(data.shape)}")
        tr.current().last_stationary[tr.current().core] = None  # the array now holds `data`
        return _emit("pe", "nc_transpose", [Operand("dst", dst, True, False),
                                            Operand("in", data)], [], api)
    _on_chip(data, "data", api)
    _on_chip(dst, "dst", api)
    if not small:
        raise NkiValueError(f"{api}: the Vector engine transposes at most [32, 32], not "
                            f"{list(data.shape)}")
    return _emit("dve", "transpose", [Operand("dst", dst, True, False), Operand("in", data)], [],
                 api)


# ---- element-wise --------------------------------------------------------------------------

def tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None):
    api = "nisa.tensor_tensor"
    for value, key in ((dst, "dst"), (data1, "data1"), (data2, "data2")):
        tensor_arg(value, key, api)
        _on_chip(value, key, api)
    _same_layout(dst, data1, "dst", "data1", api)
    _same_layout(dst, data2, "dst", "data2", api)
    _not_both_psum(data1, data2, api)
    opname = alu_name(op, api)
    ints = all(x.dtype.isa in ("int32", "uint32") for x in (dst, data1, data2))
    psum = any(x.buffer.kind == "psum" for x in (dst, data1, data2))
    default = "pool" if (opname == "power" or ints) and not psum else "dve"
    eng = resolve_engine(engine, default, api, allowed=("dve", "pool"))
    _pool_no_psum(eng, (dst, data1, data2), api)
    return _emit(eng, "tensor_tensor", [Operand("dst", dst, True, False), Operand("in0", data1),
                                        Operand("in1", data2)], [f"op0={opname}"], api)


_ACT_TENSOR_SCALAR = {("multiply", "add"), ("multiply", "bypass"), ("add", "bypass")}


def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None,
                  reverse1=False, engine=engine.unknown, name=None):
    api = "nisa.tensor_scalar"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api)
    _on_chip(data, "data", api)
    _same_layout(dst, data, "dst", "data", api)
    name0 = alu_name(op0, api, "op0")
    name1 = alu_name(op1, api, "op1") if op1 is not None else "bypass"
    if op1 is None and operand1 is not None:
        raise NkiValueError(f"{api}: operand1 is given without op1")
    eng = resolve_engine(engine, "dve", api)
    _pool_no_psum(eng, (dst, data), api)
    if eng == "act" and ((name0, name1) not in _ACT_TENSOR_SCALAR or reverse0 or reverse1):
        raise NkiValueError(f"{api}: the Scalar engine runs only (multiply, add), (multiply) or "
                            f"(add), unreversed; not ({name0}, {name1})")
    bitvec = name0.startswith(("bitwise", "left_shift", "right_shift", "invert"))
    operands = [Operand("dst", dst, True, False), Operand("in", data)]
    fields = []
    _scalar("operand0", operand0, operands, fields, api, integer=bitvec, partitions=data.shape[0])
    if op1 is not None:
        _scalar("operand1", operand1 if operand1 is not None else 0.0, operands, fields, api,
                integer=bitvec, partitions=data.shape[0])
    fields += [f"op0={name0}", f"op1={name1}"]
    if reverse0:
        fields.append("reverse0")
    if reverse1:
        fields.append("reverse1")
    return _emit(eng, "tensor_scalar", operands, fields, api)


def scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False,
                         name=None):
    api = "nisa.scalar_tensor_tensor"
    for value, key in ((dst, "dst"), (data, "data"), (operand1, "operand1")):
        tensor_arg(value, key, api)
        _on_chip(value, key, api)
    _same_layout(dst, data, "dst", "data", api)
    _same_layout(dst, operand1, "dst", "operand1", api)
    _not_both_psum(data, operand1, api)
    operands = [Operand("dst", dst, True, False), Operand("data", data)]
    fields = []
    _scalar("operand0", operand0, operands, fields, api, partitions=data.shape[0])
    operands.append(Operand("operand1", operand1))
    fields += [f"op0={alu_name(op0, api, 'op0')}", f"op1={alu_name(op1, api, 'op1')}"]
    if reverse0:
        fields.append("reverse0")
    if reverse1:
        fields.append("reverse1")
    return _emit("dve", "scalar_tensor_tensor", operands, fields, api)


def reciprocal(dst, data, name=None):
    api = "nisa.reciprocal"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api)
    _on_chip(data, "data", api)
    _same_layout(dst, data, "dst", "data", api)
    return _emit("dve", "reciprocal", [Operand("dst", dst, True, False), Operand("in", data)], [],
                 api)


def tensor_copy_predicated(dst, src, predicate, reverse_pred=False, name=None):
    api = "nisa.tensor_copy_predicated"
    for value, key in ((dst, "dst"), (src, "src"), (predicate, "predicate")):
        tensor_arg(value, key, api)
        _on_chip(value, key, api)
    _same_layout(dst, src, "dst", "src", api)
    _same_layout(dst, predicate, "dst", "predicate", api)
    _not_both_psum(src, predicate, api)
    return _emit("dve", "tensor_copy_predicated",
                 [Operand("dst", dst, True, True), Operand("in", src),
                  Operand("predicate", predicate)], ["reverse_pred"] if reverse_pred else [], api)


# ---- reductions ------------------------------------------------------------------------------

def _axes(axis, ndim, api):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(sorted(a % ndim for a in axes))
    if not axes or 0 in axes:
        raise NkiValueError(f"{api}: axis {axis!r} must name free dims (the partition dim 0 "
                            "cannot be reduced)")
    if axes != tuple(range(ndim - len(axes), ndim)):
        raise NkiValueError(f"{api}: axis {axis!r} must be the last contiguous free dims of a "
                            f"{ndim}-D tile")
    return axes


def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None):
    api = "nisa.tensor_reduce"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api)
    _on_chip(data, "data", api)
    axes = _axes(axis, data.ndim, api)
    first = axes[0]
    reduced = simplify_dims(list(zip(data.shape[first:], data.strides[first:])))
    kept = 1
    for d in data.shape[1:first]:
        kept *= d
    if dst.shape[0] != data.shape[0] or _free_size(dst) != kept:
        raise NkiValueError(f"{api}: dst {list(dst.shape)} must hold [{data.shape[0]}, {kept}] "
                            f"for data {list(data.shape)} reduced over {axes}")
    opname = alu_name(op, api)
    fields = [f"op0={opname}", f"axes={max(len(reduced), 1)}"]
    if negate:
        fields.append("negate")
    return _emit("dve", "tensor_reduce", [Operand("dst", dst, True, False),
                                          Operand("in", data, split=first)], fields, api)


def tensor_partition_reduce(dst, op, data, name=None):
    api = "nisa.tensor_partition_reduce"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api, allowed=("sbuf",))
    _on_chip(data, "data", api, allowed=("sbuf",))
    if dst.shape[0] != 1 or _free_size(dst) != _free_size(data):
        raise NkiValueError(f"{api}: dst must be [1, {_free_size(data)}], not {list(dst.shape)}")
    return _emit("pool", "tensor_partition_reduce",
                 [Operand("dst", dst, True, False), Operand("in", data)],
                 [f"op0={alu_name(op, api)}"], api)


def tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res=None, reverse0=False,
                         reduce_cmd=reduce_cmd.reset_reduce, reduce_init=None,
                         reduce_res_negate=False, name=None):
    api = "nisa.tensor_scalar_reduce"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    tensor_arg(reduce_res, "reduce_res", api)
    for value, key in ((dst, "dst"), (data, "data"), (reduce_res, "reduce_res")):
        _on_chip(value, key, api)
    _same_layout(dst, data, "dst", "data", api)
    if reduce_init is not None:
        raise NkiNotImplementedError("nisa.tensor_scalar_reduce(reduce_init=)")
    operands = [Operand("dst", dst, True, False), Operand("data", data)]
    fields = []
    _scalar("operand0", operand0, operands, fields, api, partitions=data.shape[0])
    operands.append(Operand("reduce_res", reduce_res, True, False))
    fields += [f"op0={alu_name(op0, api, 'op0')}", f"op1={alu_name(reduce_op, api, 'reduce_op')}"]
    if reverse0:
        fields.append("reverse0")
    if reduce_res_negate:
        fields.append("negate")
    return _emit("dve", "tensor_scalar_reduce", operands, fields, api)


def tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False,
                       name=None):
    api = "nisa.tensor_tensor_scan"
    for value, key in ((dst, "dst"), (data0, "data0"), (data1, "data1")):
        tensor_arg(value, key, api)
        _on_chip(value, key, api)
    _same_layout(dst, data0, "dst", "data0", api)
    _same_layout(dst, data1, "dst", "data1", api)
    if reverse0 or reverse1:
        raise NkiNotImplementedError("nisa.tensor_tensor_scan(reverse0=/reverse1=)")
    operands = [Operand("dst", dst, True, False), Operand("data0", data0),
                Operand("data1", data1)]
    fields = []
    _scalar("initial", initial, operands, fields, api, partitions=data0.shape[0])
    fields += [f"op0={alu_name(op0, api, 'op0')}", f"op1={alu_name(op1, api, 'op1')}"]
    return _emit("dve", "tensor_tensor_scan", operands, fields, api)


def bn_stats(dst, data, name=None):
    api = "nisa.bn_stats"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api)
    _on_chip(data, "data", api)
    if _free_size(data) > 512:
        raise NkiValueError(f"{api}: data has {_free_size(data)} elements per partition; at most "
                            "512 (nl.tile_size.bn_stats_fmax)")
    if dst.shape[0] != data.shape[0] or _free_size(dst) != 6:
        raise NkiValueError(f"{api}: dst must be [{data.shape[0]}, 6], not {list(dst.shape)}")
    return _emit("dve", "bn_stats", [Operand("dst", dst, True, False), Operand("in", data)], [],
                 api)


def bn_aggr(dst, data, name=None):
    api = "nisa.bn_aggr"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api)
    _on_chip(data, "data", api)
    if _free_size(data) % 3:
        raise NkiValueError(f"{api}: data must hold groups of 3 (bn_stats results), not "
                            f"{_free_size(data)} elements per partition")
    if dst.shape[0] != data.shape[0] or _free_size(dst) != 2:
        raise NkiValueError(f"{api}: dst must be [{data.shape[0]}, 2], not {list(dst.shape)}")
    return _emit("dve", "bn_aggr", [Operand("dst", dst, True, False), Operand("in", data)], [],
                 api)


def max8(dst, src, name=None):
    api = "nisa.max8"
    tensor_arg(dst, "dst", api)
    tensor_arg(src, "src", api)
    _on_chip(dst, "dst", api)
    _on_chip(src, "src", api)
    return _emit("dve", "max8", [Operand("dst", dst, True, False), Operand("in", src)], [], api)


def nc_find_index8(dst, data, vals, name=None):
    api = "nisa.nc_find_index8"
    for value, key in ((dst, "dst"), (data, "data"), (vals, "vals")):
        tensor_arg(value, key, api)
        _on_chip(value, key, api)
    return _emit("dve", "nc_find_index8", [Operand("dst", dst, True, False), Operand("data", data),
                                           Operand("vals", vals)], [], api)


def nc_match_replace8(dst, data, vals, imm, dst_idx=None, name=None):
    api = "nisa.nc_match_replace8"
    for value, key in ((dst, "dst"), (data, "data"), (vals, "vals")):
        tensor_arg(value, key, api)
        _on_chip(value, key, api)
    operands = [Operand("dst", dst, True, False), Operand("data", data), Operand("vals", vals)]
    if dst_idx is not None:
        tensor_arg(dst_idx, "dst_idx", api)
        operands.append(Operand("dst_idx", dst_idx, True, False))
    return _emit("dve", "nc_match_replace8", operands, [f"imm={imm_text(float(imm))}"], api)


# ---- ACT ---------------------------------------------------------------------------------------

def activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
               reduce_cmd=reduce_cmd.idle, name=None):
    api = "nisa.activation"
    tensor_arg(dst, "dst", api)
    tensor_arg(data, "data", api)
    _on_chip(dst, "dst", api)
    _on_chip(data, "data", api)
    _same_layout(dst, data, "dst", "data", api)
    func = act_name(op, api)
    if reduce_op is not None and alu_name(reduce_op, api, "reduce_op") != "add":
        raise NkiValueError(f"{api}: reduce_op must be nl.add")
    cmd = reduce_cmd.name if isinstance(reduce_cmd, enum.Enum) else str(reduce_cmd)
    if cmd == "load_reduce":
        raise NkiNotImplementedError("nisa.reduce_cmd.load_reduce")
    operands = [Operand("dst", dst, True, False), Operand("in", data)]
    fields = []
    _scalar("bias", bias if bias is not None else 0.0, operands, fields, api,
            partitions=data.shape[0])
    _scalar("scale", scale, operands, fields, api, partitions=data.shape[0])
    if reduce_res is not None:
        tensor_arg(reduce_res, "reduce_res", api)
        _on_chip(reduce_res, "reduce_res", api)
        if cmd in ("idle", "reset_reduce"):
            operands.append(Operand("reduce_res", reduce_res, True, False))
            return _emit("act", "activation_reduce", operands, fields + [f"func={func}"], api)
        _emit("act", "activation", operands, fields + [f"func={func}", f"reduce_cmd={cmd}"], api)
        return _emit("act", "read_accumulator", [Operand("dst", reduce_res, True, False)], [], api)
    return _emit("act", "activation", operands, fields + [f"func={func}", f"reduce_cmd={cmd}"],
                 api)


def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None):
    return activation(dst, op, data, bias=bias, scale=scale, reduce_op=reduce_op,
                      reduce_res=reduce_res, reduce_cmd=reduce_cmd.reset_reduce)


# ---- GpSimd ----------------------------------------------------------------------------------

def affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
                  cmp_op=None, offset=0, name=None):
    api = "nisa.affine_select"
    tensor_arg(dst, "dst", api)
    tensor_arg(on_true_tile, "on_true_tile", api)
    _on_chip(dst, "dst", api, allowed=("sbuf",))
    _on_chip(on_true_tile, "on_true_tile", api, allowed=("sbuf",))
    _same_layout(dst, on_true_tile, "dst", "on_true_tile", api)
    pairs = [(int(s), int(n)) for s, n in pattern]
    expr = iota_text(int(offset), int(channel_multiplier), pairs, dst.shape[0])
    cmp = cmp_name(cmp_op, api) if cmp_op is not None else "eq"
    return _emit("pool", "affine_select",
                 [Operand("dst", dst, True, False), Operand("on_true", on_true_tile)],
                 [f"expr={expr}", f"on_false={imm_text(float(on_false_value))}", f"cmp={cmp}"],
                 api)


# ---- LNC=2 ---------------------------------------------------------------------------------

def core_barrier(data, cores, engine=engine.gpsimd, name=None):
    api = "nisa.core_barrier"
    tensor_arg(data, "data", api)
    t = tr.current()
    if tuple(cores) != (0, 1):
        raise NkiValueError(f"{api}: cores must be (0, 1), not {cores!r}")
    if t.lnc != 2:
        raise NkiError(f"{api}: needs LNC=2 (launch the kernel as kernel[2](...)); this kernel "
                       f"runs with LNC={t.lnc}")
    eng = resolve_engine(engine, "pool", api, allowed=("pe", "act", "dve", "pool", "sp"))
    # `data` is not an operand of core_barrier: it orders the barrier after this core's
    # accesses to it and later accesses after the barrier.
    return _emit(eng, "core_barrier", [Operand(None, data, write=True, read=True)],
                 [f"sem={t.barrier_semaphore(eng)}"], api)


def sendrecv(src, dst, send_to_rank, recv_from_rank, pipe_id, dma_engine=dma_engine.dma,
             name=None):
    api = "nisa.sendrecv"
    tensor_arg(src, "src", api)
    tensor_arg(dst, "dst", api)
    _buffers(src, ("sbuf",), "src", api)
    _buffers(dst, ("sbuf",), "dst", api)
    t = tr.current()
    if t.lnc != 2:
        raise NkiError(f"{api}: needs LNC=2 (launch the kernel as kernel[2](...)); this kernel "
                       f"runs with LNC={t.lnc}")
    if src.dtype is not dst.dtype or src.shape != dst.shape:
        raise NkiValueError(f"{api}: src {list(src.shape)} {src.dtype.name} and dst "
                            f"{list(dst.shape)} {dst.dtype.name} must match")
    peer = 1 - t.core
    if int(send_to_rank) != peer or int(recv_from_rank) != peer:
        raise NkiValueError(f"{api}: core {t.core} can only exchange with core {peer} "
                            f"(send_to_rank={send_to_rank}, recv_from_rank={recv_from_rank})")
    return t.sendrecv(src, dst, int(pipe_id), api)


# ---- version queries ---------------------------------------------------------------------------

def get_nc_version():
    chip = tr.current().chip if tr.active() else None
    return nc_version.gen4 if chip == "trn3" else nc_version.gen3


def get_nc_sub_version():
    return 0
