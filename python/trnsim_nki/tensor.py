"""Storage and views: what `nl.ndarray` makes and what slicing returns.

A Storage is one allocation: an HBM tensor (a kernel argument, an output or scratch) or an
on-chip tile in SBUF or PSUM. It has no address while the kernel is traced; the allocator
(alloc.py) places on-chip storages after tracing, and the NEFF's variables give HBM ones their
var_id.

A Tensor is a view of a storage (NKI's NkiTensor): dtype, shape, element strides and a byte
offset. Views never copy. On-chip views keep dim 0 as the partition dimension: `part_start` is
the first partition and strides[0] the partition step; every other dim is a free dim, strided
in elements within each partition. HBM views are plain strided arrays over the variable's
bytes. Slicing follows NKI's rules: an integer index on an on-chip tensor's dim 0 keeps a
size-1 partition dim; elsewhere it removes the dim.
"""

import math

from trnsim_nki import dtypes
from trnsim_nki.errors import NkiError, NkiTypeError, NkiValueError


class Buffer:
    """A memory region name (nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, nl.private_hbm)."""

    __slots__ = ("name", "kind")

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind  # "sbuf", "psum" or "hbm"

    def __repr__(self):
        return self.name

    @property
    def on_chip(self):
        return self.kind != "hbm"


SBUF = Buffer("sbuf", "sbuf")
PSUM = Buffer("psum", "psum")
HBM = Buffer("hbm", "hbm")
SHARED_HBM = Buffer("shared_hbm", "hbm")
PRIVATE_HBM = Buffer("private_hbm", "hbm")
BUFFERS = {b.name: b for b in (SBUF, PSUM, HBM, SHARED_HBM, PRIVATE_HBM)}


class Storage:
    """One allocation. `role` for HBM: input, output, scratch or constant."""

    __slots__ = ("buffer", "shape", "dtype", "name", "core", "site", "role", "ident",
                 "offset", "var_id", "first_use", "last_use", "records", "predecessors",
                 "constant", "site_ordinal", "var_name")

    def __init__(self, buffer, shape, dtype, name, core, site, ident, role=None):
        self.buffer = buffer
        self.shape = tuple(shape)
        self.dtype = dtype
        self.name = name
        self.core = core
        self.site = site  # (filename, lineno) of the nl.ndarray call
        self.role = role
        self.ident = ident
        self.offset = None  # on-chip: byte offset in every partition
        self.var_id = None  # HBM: the NEFF variable
        self.var_name = None  # HBM: its name in the NEFF
        self.first_use = None
        self.last_use = None
        self.records = None
        self.predecessors = ()
        self.constant = None
        self.site_ordinal = 0

    @property
    def kind(self):
        return self.buffer.kind

    @property
    def on_chip(self):
        return self.buffer.kind != "hbm"

    @property
    def partitions(self):
        return self.shape[0] if self.on_chip else 1

    @property
    def bytes_per_partition(self):
        free = self.shape[1:] if self.on_chip else self.shape
        return int(math.prod(free)) * self.dtype.itemsize

    @property
    def nbytes(self):
        return int(math.prod(self.shape)) * self.dtype.itemsize

    def __repr__(self):
        return f"{self.name or 'tensor'}{list(self.shape)} {self.dtype.name} in {self.buffer}"


def row_major_strides(shape):
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


class DynamicSlice:
    """nl.ds(start, size): `size` elements from `start`."""

    __slots__ = ("start", "size")

    def __init__(self, start, size):
        self.start = start
        self.size = size

    def __repr__(self):
        return f"ds({self.start}, {self.size})"


def _as_int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            import numpy as np
            if isinstance(value, np.integer):
                return int(value)
        except ImportError:  # pragma: no cover - numpy is a dependency
            pass
        raise NkiTypeError(f"{what} must be an int known at trace time, not {value!r}")
    return value


def _has_index_expr(key):
    """A key with legacy index expressions or predicates (trnsim_nki.legacy_index)."""
    keys = key if isinstance(key, tuple) else (key,)
    return any(getattr(k, "_nki_index_expr", False) for k in keys)


class Tensor:
    """A view of a Storage (NKI's NkiTensor)."""

    __slots__ = ("storage", "dtype", "shape", "strides", "byte_offset", "part_start")

    def __init__(self, storage, dtype=None, shape=None, strides=None, byte_offset=0,
                 part_start=0):
        self.storage = storage
        self.dtype = dtype or storage.dtype
        self.shape = tuple(storage.shape if shape is None else shape)
        if strides is None:
            strides = row_major_strides(self.shape)
            if storage.on_chip:
                strides = (1,) + row_major_strides(self.shape[1:])
        self.strides = tuple(strides)
        self.byte_offset = byte_offset
        self.part_start = part_start

    # ---- NkiTensor attributes -------------------------------------------------------------
    @property
    def buffer(self):
        return self.storage.buffer

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(math.prod(self.shape))

    @property
    def name(self):
        return self.storage.name

    @property
    def offset(self):
        return self.byte_offset // self.dtype.itemsize

    @property
    def on_chip(self):
        return self.storage.on_chip

    def __repr__(self):
        return (f"NkiTensor({self.name or 'tensor'}, shape={list(self.shape)}, "
                f"dtype={self.dtype.name}, buffer={self.buffer})")

    def _derive(self, **changes):
        fields = dict(dtype=self.dtype, shape=self.shape, strides=self.strides,
                      byte_offset=self.byte_offset, part_start=self.part_start)
        fields.update(changes)
        return Tensor(self.storage, **fields)

    # ---- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        from trnsim_nki import dynamic_ap
        if dynamic_ap.has_register(key):  # nl.ds(register, size): a register offset
            return dynamic_ap.getitem(self, key)
        if _has_index_expr(key):  # legacy generation: nl.arange / nl.mgrid expressions
            from trnsim_nki import legacy_index
            return legacy_index.index_view(self, key)
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            at = [i for i, k in enumerate(key) if k is Ellipsis]
            if len(at) > 1:
                raise NkiValueError("an index may contain at most one Ellipsis")
            named = sum(1 for k in key if k is not None and k is not Ellipsis)
            fill = (slice(None),) * (self.ndim - named)
            key = key[:at[0]] + fill + key[at[0] + 1:]
        named = sum(1 for k in key if k is not None)
        if named > self.ndim:
            raise NkiValueError(f"too many indices ({named}) for a {self.ndim}-D tensor "
                                f"{list(self.shape)}")
        key = key + (slice(None),) * (self.ndim - named)
        shape, strides = [], []
        offset = self.byte_offset
        part_start = self.part_start
        item = self.dtype.itemsize
        dim = 0
        for k in key:
            if k is None:
                if self.on_chip and not shape:
                    raise NkiValueError("cannot insert a dimension before the partition dim")
                shape.append(1)
                strides.append(0)
                continue
            size, stride = self.shape[dim], self.strides[dim]
            partition_dim = self.on_chip and dim == 0
            if isinstance(k, DynamicSlice):
                start = _as_int(k.start, "nl.ds start")
                count = _as_int(k.size, "nl.ds size")
                if start < 0 or count < 1 or start + count > size:
                    raise NkiValueError(f"nl.ds({start}, {count}) is out of bounds for dim {dim} "
                                        f"of size {size}")
                k = slice(start, start + count, 1)
            if isinstance(k, slice):
                start, stop, step = k.indices(size)
                count = len(range(start, stop, step))
                if count == 0:
                    raise NkiValueError(f"slice {k} of dim {dim} (size {size}) is empty")
                if step < 0:
                    raise NkiValueError("negative slice steps are not supported")
                if partition_dim:
                    part_start += start * stride
                else:
                    offset += start * stride * item
                shape.append(count)
                strides.append(stride * step)
            else:
                index = _as_int(k, "an index")
                if index < 0:
                    index += size
                if not 0 <= index < size:
                    raise NkiValueError(f"index {k} is out of bounds for dim {dim} of size {size}")
                if partition_dim:
                    part_start += index * stride
                    shape.append(1)
                    strides.append(stride)
                else:
                    offset += index * stride * item
            dim += 1
        if not shape:
            shape, strides = [1], [0]
        if self.on_chip and len(shape) == 1:
            shape.append(1)
            strides.append(1)
        return self._derive(shape=tuple(shape), strides=tuple(strides), byte_offset=offset,
                            part_start=part_start)

    def __setitem__(self, key, value):
        from trnsim_nki import ops_language
        ops_language.assign(self[key], value)

    # ---- view operations (NkiTensor methods) ---------------------------------------------------
    def _check_free_dim(self, dim, what):
        if not -self.ndim <= dim < self.ndim:
            raise NkiValueError(f"{what}: dim {dim} out of range for a {self.ndim}-D tensor")
        dim %= self.ndim
        if self.on_chip and dim == 0:
            raise NkiValueError(f"{what}: the partition dim (0) of an on-chip tensor cannot change")
        return dim

    def slice(self, dim, start, end, step=1):
        key = [slice(None)] * self.ndim
        key[dim] = slice(start, end, step)
        return self[tuple(key)]

    def select(self, dim, index):
        if isinstance(index, Tensor):
            raise NkiError("dynamic select is not supported by trnsim's NKI front end "
                           "(docs/nki.md#coverage, row `NkiTensor.select`)")
        key = [slice(None)] * self.ndim
        key[dim] = index
        return self[tuple(key)]

    def permute(self, dims):
        dims = tuple(dims)
        if sorted(dims) != list(range(self.ndim)):
            raise NkiValueError(f"permute: {dims} is not a permutation of range({self.ndim})")
        if self.on_chip and dims[0] != 0:
            raise NkiValueError("permute: the partition dim of an on-chip tensor stays first")
        return self._derive(shape=tuple(self.shape[d] for d in dims),
                            strides=tuple(self.strides[d] for d in dims))

    def broadcast(self, dim, size):
        dim = self._check_free_dim(dim, "broadcast")
        if self.shape[dim] != 1:
            raise NkiValueError(f"broadcast: dim {dim} has size {self.shape[dim]}, not 1")
        shape, strides = list(self.shape), list(self.strides)
        shape[dim], strides[dim] = size, 0
        return self._derive(shape=tuple(shape), strides=tuple(strides))

    def broadcast_to(self, shape):
        shape = tuple(shape)
        if self.on_chip and len(shape) == self.ndim and self.shape[0] == 1 and shape[0] > 1:
            from trnsim_nki import trace
            current = trace.active()
            if current is not None and current.legacy:  # neuronxcc.nki: grows partitions
                from trnsim_nki import legacy_data
                return legacy_data.broadcast_to(self, shape)
        if len(shape) != self.ndim:
            raise NkiValueError(f"broadcast_to: {list(shape)} has another rank than "
                                f"{list(self.shape)}")
        view = self
        for d, (have, want) in enumerate(zip(self.shape, shape)):
            if have != want:
                if self.on_chip and d == 0:
                    raise NkiValueError("broadcast_to cannot broadcast the partition dim")
                view = view.broadcast(d, want)
        return view

    def expand_dim(self, dim):
        if self.on_chip and dim == 0:
            raise NkiValueError("expand_dim: cannot insert before the partition dim")
        shape, strides = list(self.shape), list(self.strides)
        shape.insert(dim, 1)
        strides.insert(dim, 0)
        return self._derive(shape=tuple(shape), strides=tuple(strides))

    def squeeze_dim(self, dim):
        dim = self._check_free_dim(dim, "squeeze_dim")
        if self.shape[dim] != 1:
            raise NkiValueError(f"squeeze_dim: dim {dim} has size {self.shape[dim]}, not 1")
        return self._derive(shape=self.shape[:dim] + self.shape[dim + 1:],
                            strides=self.strides[:dim] + self.strides[dim + 1:])

    def reshape_dim(self, dim, shape):
        dim = self._check_free_dim(dim, "reshape_dim")
        shape = list(shape)
        if shape.count(-1) > 1:
            raise NkiValueError("reshape_dim: at most one -1")
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape[shape.index(-1)] = self.shape[dim] // known if known else 0
        if math.prod(shape) != self.shape[dim]:
            raise NkiValueError(f"reshape_dim: {shape} does not multiply to {self.shape[dim]}")
        inner = row_major_strides(shape)
        strides = tuple(s * self.strides[dim] for s in inner)
        return self._derive(shape=self.shape[:dim] + tuple(shape) + self.shape[dim + 1:],
                            strides=self.strides[:dim] + strides + self.strides[dim + 1:])

    def flatten_dims(self, start_dim, end_dim):
        if self.on_chip and start_dim == 0:
            raise NkiValueError("flatten_dims: the partition dim cannot be merged")
        for d in range(start_dim, end_dim):
            if self.strides[d] != self.strides[d + 1] * self.shape[d + 1]:
                raise NkiValueError(f"flatten_dims: dims {start_dim}..{end_dim} are not "
                                    "contiguous in memory")
        size = math.prod(self.shape[start_dim:end_dim + 1])
        return self._derive(
            shape=self.shape[:start_dim] + (size,) + self.shape[end_dim + 1:],
            strides=self.strides[:start_dim] + (self.strides[end_dim],) + self.strides[end_dim + 1:])

    def reshape(self, shape):
        shape = tuple(shape) if not isinstance(shape, int) else (shape,)
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        if math.prod(shape) != self.size:
            raise NkiValueError(f"reshape: {list(shape)} has {math.prod(shape)} elements, the "
                                f"tensor {list(self.shape)} has {self.size}")
        if self.on_chip:
            if shape[0] != self.shape[0]:
                raise NkiValueError("reshape: the partition dim of an on-chip tensor is kept")
            free = self._contiguous_free("reshape")
            return self._derive(shape=shape, strides=(self.strides[0],) + tuple(
                s * free for s in row_major_strides(shape[1:])))
        step = self._contiguous_all("reshape")
        return self._derive(shape=shape,
                            strides=tuple(s * step for s in row_major_strides(shape)))

    def _contiguous_free(self, what):
        dims = [(n, s) for n, s in zip(self.shape[1:], self.strides[1:]) if n != 1]
        for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
            if s0 != n1 * s1:
                raise NkiValueError(f"{what}: the view is not contiguous in memory")
        return dims[-1][1] if dims else 1

    def _contiguous_all(self, what):
        dims = [(n, s) for n, s in zip(self.shape, self.strides) if n != 1]
        for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
            if s0 != n1 * s1:
                raise NkiValueError(f"{what}: the view is not contiguous in memory")
        return dims[-1][1] if dims else 1

    def view(self, dtype):
        new = dtypes.lookup(dtype)
        old = self.dtype
        if new.itemsize == old.itemsize:
            return self._derive(dtype=new)
        if self.strides[-1] != 1 and self.shape[-1] != 1:
            raise NkiValueError("view: the last dim must be contiguous")
        shape, strides = list(self.shape), list(self.strides)
        if new.itemsize < old.itemsize:
            ratio = old.itemsize // new.itemsize
            shape[-1] *= ratio
            strides = [s * ratio for s in strides[:-1]] + [1]
        else:
            ratio = new.itemsize // old.itemsize
            if shape[-1] % ratio or any(s % ratio for s in strides[:-1] if s):
                raise NkiValueError(f"view: last dim {shape[-1]} does not divide by {ratio}")
            shape[-1] //= ratio
            strides = [s // ratio for s in strides[:-1]] + [1]
        if self.on_chip:
            strides[0] = self.strides[0]
        return self._derive(dtype=new, shape=tuple(shape), strides=tuple(strides))

    reinterpret_cast = view

    def ap(self, pattern, offset=None, scalar_offset=None, vector_offset=None, indirect_dim=0,
           dtype=None):
        """Explicit [[stride, count], ...] over the storage (strides in elements)."""
        if vector_offset is not None:
            raise NkiError("indirect access patterns with a vector_offset are not supported by "
                           "trnsim's NKI front end (docs/nki.md#coverage, row `nl.NkiTensor.ap`)")
        if scalar_offset is not None:  # a register offset (dynamic_ap.py)
            from trnsim_nki import dynamic_ap
            return dynamic_ap.ap_scalar_offset(self, pattern, offset, scalar_offset,
                                               indirect_dim, dtype)
        new = dtypes.lookup(dtype) if dtype is not None else self.dtype
        pairs = [tuple(p) for p in pattern]
        if not pairs or any(len(p) != 2 for p in pairs):
            raise NkiValueError(f".ap pattern must be [[stride, count], ...], not {pattern!r}")
        byte_offset = self.byte_offset
        if offset:
            byte_offset += _as_int(offset, ".ap offset") * new.itemsize
        strides = [_as_int(s, ".ap stride") for s, _ in pairs]
        shape = [_as_int(n, ".ap count") for _, n in pairs]
        part_start = self.part_start
        if self.on_chip:
            # NKI's first pair of an on-chip pattern walks partitions: its stride is the
            # per-partition row length, which a partition step of 1 is here.
            strides[0] = 1
        return Tensor(self.storage, dtype=new, shape=tuple(shape), strides=tuple(strides),
                      byte_offset=byte_offset, part_start=part_start)

    # ---- the legacy generation's tensor methods (neuronxcc.nki.tensor) -------------------------
    @property
    def itemsize(self):
        return self.dtype.itemsize

    def assert_shape(self, shape):
        if tuple(shape) != self.shape:
            raise NkiValueError(f"assert_shape: the tensor is {list(self.shape)}, not "
                                f"{list(shape)}")
        return self

    def expand_dims(self, axis):
        return self.expand_dim(axis)

    def astype(self, dtype):
        """A copy cast to dtype (a new SBUF tile)."""
        from trnsim_nki import legacy_ops
        return legacy_ops.unary("copy", self, dtype=dtype)

    def get_pattern(self):
        return [[s, n] for n, s in zip(self.shape, self.strides)]

    def is_contiguous(self):
        try:
            if self.on_chip:
                self._contiguous_free("is_contiguous")
            else:
                self._contiguous_all("is_contiguous")
        except NkiValueError:
            return False
        return self.strides[-1] in (1, 0) or self.shape[-1] == 1

    def is_indirect(self):
        return False

    @property
    def T(self):  # noqa: N802 - NKI's name
        if self.ndim != 2:
            raise NkiValueError(".T needs a 2-D tensor")
        from trnsim_nki import ops_language
        return ops_language.transpose(self)

    # ---- arithmetic operators (build new tiles through nl.*) -----------------------------------
    def _binary(self, other, op, reverse=False):
        from trnsim_nki import ops_language, trace
        current = trace.active()
        if current is not None and current.legacy:  # neuronxcc.nki: its dtype rules
            from trnsim_nki import legacy_ops
            return legacy_ops.operator(op, other, self) if reverse else \
                legacy_ops.operator(op, self, other)
        return ops_language.elementwise_binary(op, other, self) if reverse else \
            ops_language.elementwise_binary(op, self, other)

    def __add__(self, o): return self._binary(o, "add")
    def __radd__(self, o): return self._binary(o, "add", True)
    def __sub__(self, o): return self._binary(o, "subtract")
    def __rsub__(self, o): return self._binary(o, "subtract", True)
    def __mul__(self, o): return self._binary(o, "multiply")
    def __rmul__(self, o): return self._binary(o, "multiply", True)
    def __truediv__(self, o): return self._binary(o, "divide")
    def __rtruediv__(self, o): return self._binary(o, "divide", True)
    def __pow__(self, o): return self._binary(o, "power")
    def __neg__(self):
        from trnsim_nki import trace
        current = trace.active()
        if current is not None and current.legacy:  # keeps the tile's dtype
            from trnsim_nki import legacy_ops
            return legacy_ops.unary("negative", self)
        return self._binary(-1.0, "multiply")

    def __iadd__(self, other):
        from trnsim_nki import ops_language
        ops_language.accumulate_into(self, other)
        return self

    def __bool__(self):
        raise NkiTypeError("a tensor has no truth value at trace time (use a register loop, "
                           "nl.while_loop, for data-dependent control flow)")

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        raise NkiTypeError("iterating over a tensor is not supported; index it instead")
