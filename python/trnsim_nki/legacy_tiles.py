"""Tiles of the legacy generation (neuronxcc.nki): nl.par_dim block tensors, results that an
assignment writes in place, and the operand checks every legacy operation makes.

**Block tensors.** `nl.ndarray((4, nl.par_dim(128), 512))` is four [128, 512] tiles; the dims
before the par_dim are block dims, indexed with ints (`t[k]`, `t[k, i_p, i_f]`). trnsim makes
one storage per block tensor: its partition dim is the par_dim and the block dims become
leading free dims, so block k is the free-dim slice k (docs/nki.md, "The legacy generation").
All blocks live as long as the tensor does; the allocator's site rotation still gives each
loop iteration's tensor its own buffer.

**Results written in place.** A legacy call returns a new tile (`nl.load`, `nl.exp`,
`nisa.nc_matmul`, ...). `t[...] = call(...)` writes the call's result into `t`, and
`psum[...] += nisa.nc_matmul(a, b)` accumulates into `psum`: NKI's compiler makes the call's
instruction write there. The tracer does the same after the fact: a Result remembers the one
instruction that wrote it, and while nothing else has touched its fresh tile, the assignment
re-points that instruction's destination at the target (Trace.retarget) and retires the fresh
tile; the Result then stands for the target. Otherwise the value is copied (or added).
"""

import math

import numpy as np

from trnsim_nki import ops_isa, ops_language
from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiError, NkiTypeError, NkiValueError, NkiNotImplementedError
from trnsim_nki.legacy_index import checked, restrict
from trnsim_nki.lower import footprint
from trnsim_nki.tensor import Tensor, SBUF

RETIRED = "retired"  # Storage.role of a fresh tile whose instruction now writes elsewhere
NOTHING = {0: (0, 0)}  # the bounds of a result made under an empty mask: nothing was written


class ParDim(int):
    """nl.par_dim(n): the partition dimension of a shape."""

    def __repr__(self):
        return f"par_dim({int(self)})"


def par_dim(size):
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise NkiTypeError(f"nl.par_dim takes a positive int, not {size!r}")
    return ParDim(int(size))


def split_shape(shape):
    """(block dims, tile shape) of a legacy shape with at most one par_dim."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    marks = [i for i, s in enumerate(shape) if isinstance(s, ParDim)]
    if len(marks) > 1:
        raise NkiValueError(f"a shape has at most one nl.par_dim, not {len(marks)}: {shape}")
    if not shape or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1
                        for s in shape):
        raise NkiValueError(f"a shape must be positive ints, not {shape!r}")
    at = marks[0] if marks else 0
    return tuple(int(s) for s in shape[:at]), tuple(int(s) for s in shape[at:])


class BlockTensor:
    """An on-chip tensor with block dims before its partition dim (not a tile itself)."""

    def __init__(self, whole, blocks):
        self.whole = whole  # Tensor (P, *blocks, *free)
        self.blocks = blocks

    @property
    def shape(self):
        free = self.whole.shape[1 + len(self.blocks):]
        return self.blocks + (self.whole.shape[0],) + free

    dtype = property(lambda self: self.whole.dtype)
    buffer = property(lambda self: self.whole.buffer)
    ndim = property(lambda self: len(self.shape))
    itemsize = property(lambda self: self.whole.dtype.itemsize)

    def __repr__(self):
        return f"BlockTensor(shape={list(self.shape)}, dtype={self.dtype.name}, " \
               f"buffer={self.buffer})"

    def block(self, index):
        nb = len(self.blocks)
        key = [slice(None)]
        for i, (k, n) in enumerate(zip(index, self.blocks)):
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
                raise NkiNotImplementedError(
                    "legacy.nl.par_dim", f"block dim {i} is indexed by {k!r}; block dims "
                    "take ints (loop indices)")
            if not 0 <= k < n:
                raise NkiValueError(f"block index {int(k)} is out of bounds for block dim {i} "
                                    f"of size {n} (err_tensor_access_out_of_bound)")
            key.append(int(k))
        return self.whole[tuple(key) + (Ellipsis,)] if nb else self.whole

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        nb = len(self.blocks)
        if len(key) < nb or any(k is Ellipsis for k in key[:nb]):
            raise NkiValueError(f"index the {nb} block dim(s) of {self!r} with ints first "
                                "(err_failed_to_infer_tile_from_local_tensor)")
        tile = self.block(key[:nb])
        rest = key[nb:]
        return tile[rest] if rest else tile

    def __setitem__(self, key, value):
        ops_language.assign(self[key], value)

    def __iadd__(self, other):
        raise NkiTypeError("index a block tensor down to a tile before '+=' (t[k] += x)")

    def __bool__(self):
        raise NkiTypeError("a tensor has no truth value at trace time")


def new_tile(shape, dtype, buffer=SBUF, name=""):
    return ops_language.new_tile(shape, dtype, buffer, name)


def allocate(shape, dtype, buffer, name=""):
    """legacy nl.ndarray: a tile, a block tensor, or an HBM tensor (par_dim ignored)."""
    buffer = ops_language.buffer_arg(buffer if buffer is not None else SBUF)
    dt = ops_language.dtype_arg(dtype)
    blocks, tile = split_shape(shape)
    if not buffer.on_chip:
        return tr.current().tensor(buffer, blocks + tile, dt, name)
    if len(tile) < 2:
        tile = tile + (1,)
    if not blocks:
        return new_tile(tile, dt, buffer, name)
    whole = new_tile((tile[0],) + blocks + tile[1:], dt, buffer, name)
    return BlockTensor(whole, blocks)


def fill(target, value):
    """memset of a tile or of every block of a block tensor."""
    view = target.whole if isinstance(target, BlockTensor) else target
    if not view.on_chip:
        raise NkiValueError("an HBM tensor cannot be created with an initial value "
                            "(err_hbm_tensor_with_init_value_not_supported)")
    instr = ops_isa.memset(view, value)
    return target if isinstance(target, BlockTensor) else Result.of(view, instr)


# ---- operands -------------------------------------------------------------------------------

def as_tile(x, name, api):
    """A tensor operand of a legacy call, checked."""
    if isinstance(x, BlockTensor):
        raise NkiValueError(f"{api}: {name} {x!r} has block dims; index it down to a tile "
                            "(err_failed_to_infer_tile_from_local_tensor)")
    if not isinstance(x, Tensor):
        raise NkiTypeError(f"{api}: {name} must be a tile, not {type(x).__name__}")
    if x.storage.role == RETIRED:
        raise NkiError(f"{api}: {name} is a view of a result taken before that result was "
                       "assigned into another tensor (t[...] = result); take views after the "
                       "assignment, or of the target")
    return x


def tile_operand(x, name, api, bounds=None):
    """An on-chip operand restricted to the mask bounds."""
    x = as_tile(x, name, api)
    if not x.on_chip:
        raise NkiValueError(f"{api}: {name} is in {x.buffer.name}; this operation reads tiles "
                            "in SBUF or PSUM (err_unsupported_memory; nl.load it first)")
    return checked(restrict(x, bounds) if bounds else x)


def squeezed(shape):
    return tuple(s for s in shape[1:] if s != 1)


# ---- results --------------------------------------------------------------------------------

class Result(Tensor):
    """A fresh tile made by one legacy call; `producer` is the instruction that wrote it and
    `bounds` the mask it was written under."""

    __slots__ = ("producer", "bounds")

    @classmethod
    def of(cls, tile, producer, bounds=None):
        r = cls(tile.storage, dtype=tile.dtype, shape=tile.shape, strides=tile.strides,
                byte_offset=tile.byte_offset, part_start=tile.part_start)
        r.producer = producer
        r.bounds = bounds or {}
        return r

    def _dst_operand(self):
        """The producer's write operand into this fresh tile, if nothing else touched it."""
        instr, s = self.producer, self.storage
        t = tr.active()
        if instr is None or t is None or instr.core != t.core or s.role == RETIRED:
            return None
        if s.first_use != instr.position or s.last_use != instr.position:
            return None
        if t.cores[t.core][instr.position] is not instr:
            return None
        ops = [op for op in instr.operands if op.tensor.storage is s]
        if len(ops) != 1 or not ops[0].write or ops[0].read:
            return None
        whole = (self.shape == s.shape and not self.byte_offset and not self.part_start)
        return ops[0] if whole else None

    def _can_write(self, target):
        instr = self.producer
        if not target.on_chip or target.storage.core != tr.current().core:
            return False
        kind = target.buffer.kind
        if instr.opcode == "multiply_moving":
            return kind == "psum" and target.dtype.isa == "fp32"
        if instr.engine == "pe":  # a transpose keeps its dtype
            return kind == "psum" and target.dtype is self.dtype
        if instr.opcode == "dma_copy" or instr.engine == "pool":
            return kind == "sbuf"
        return True

    def _retarget(self, target, accumulate):
        op = self._dst_operand()
        if op is None or not self._can_write(target):
            return False
        if squeezed(target.shape) != squeezed(self.shape) or target.shape[0] != self.shape[0]:
            return False
        instr = self.producer
        view = checked(restrict(target, self.bounds))
        matmul = instr.opcode == "multiply_moving"
        if matmul:
            flags = [f for f in instr.fields if f not in ("first", "accumulate")]
            instr.fields[:] = ["accumulate" if accumulate else "first"] + flags
        t = tr.current()
        t.retarget(instr, op, view, read=accumulate)
        if matmul:
            t.psum_matmul_written(view, footprint(view))
        fresh = self.storage
        fresh.first_use = fresh.last_use = None  # the allocator skips it
        fresh.role = RETIRED
        for slot in ("storage", "dtype", "shape", "strides", "byte_offset", "part_start"):
            setattr(self, slot, getattr(target, slot))
        self.producer = None
        return True

    def materialize_into(self, target):
        """`target[...] = self`."""
        target = checked(target)
        if self._retarget(target, accumulate=False):
            return None
        return copy_into(target, self)

    def accumulate_into(self, target):
        """`target += self`: a matmul accumulates in PSUM; anything else is added."""
        target = checked(target)
        if self.producer is not None and self.producer.opcode == "multiply_moving" and \
                self._retarget(target, accumulate=True):
            return None
        return add_into(target, self)


def copy_into(target, value):
    """target[...] = value for a tile value (broadcast along size-1 free dims)."""
    api = "assignment"
    value = as_tile(value, "value", api)
    bounds = getattr(value, "bounds", None) or {}
    if any(hi <= lo for lo, hi in bounds.values()):
        return None  # the value was made under an empty mask: nothing was written
    target = checked(restrict(target, bounds))
    value = checked(restrict(value, bounds))
    value = broadcast_to_target(value, target, api)
    if not target.on_chip:
        if value.buffer.kind == "psum":
            staged = new_tile(value.shape, value.dtype)
            ops_isa.tensor_copy(staged, value)
            value = staged
        return ops_isa.dma_copy(target, value)
    if not value.on_chip:
        return ops_isa.dma_copy(target, value)
    return ops_isa.tensor_copy(target, value)


def add_into(target, value):
    value = as_tile(value, "value", "+=")
    bounds = getattr(value, "bounds", None) or {}
    if any(hi <= lo for lo, hi in bounds.values()):
        return None
    if bounds:
        target, value = checked(restrict(target, bounds)), checked(restrict(value, bounds))
    value = broadcast_to_target(checked(value), target, "+=")
    return ops_isa.tensor_tensor(target, target, value, ops_language.BINARY["add"])


def broadcast_to_target(value, target, api):
    if value.shape == target.shape:
        return value
    if value.shape[0] != target.shape[0] and value.shape[0] != 1:
        raise NkiValueError(f"{api}: a {list(value.shape)} value cannot be written into a "
                            f"{list(target.shape)} tensor (err_num_partition_mismatch)")
    if squeezed(value.shape) == squeezed(target.shape):
        return value
    if math.prod(value.shape[1:]) == 1 and value.shape[0] == target.shape[0]:
        shape = (target.shape[0],) + (1,) * (target.ndim - 1)
        v = value.reshape(shape) if value.shape != shape else value
        return v.broadcast_to(target.shape)
    if len(value.shape) == len(target.shape) and value.shape[0] == target.shape[0]:
        try:
            return value.broadcast_to(target.shape)
        except NkiValueError:
            pass
    raise NkiValueError(f"{api}: a {list(value.shape)} value does not fit a "
                        f"{list(target.shape)} tensor "
                        "(err_store_dst_shape_smaller_than_other_shape)")
