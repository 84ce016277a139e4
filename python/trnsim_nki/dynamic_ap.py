"""Views addressed through a register: `.ap(pattern, scalar_offset=reg, indirect_dim=d)` and
`t[nl.ds(reg_expr, size)]`.

trnsim's access patterns add `reg_value * reg_stride_bytes` to their start (docs/isa.md §4,
`offset_reg`; text form `+ r<R>*<bytes>`, §10.2), evaluated by the engine that runs the
instruction when it issues. A DynTensor is a view with that term: `reg` (the VirtualRegister)
and `reg_stride_bytes`; everything else (shape, strides, the static byte offset, which is the
address at register value 0) is an ordinary view, and the term survives further slicing,
permuting and dtype views (it is a pure byte offset).

`scalar_offset` scales the register by the stride of `indirect_dim` in the *storage's*
row-major layout (docs/nki-semantics-notes.md §7: the base tensor's shape, not the pattern's);
nl.ds(k * reg + c, size) on dim d scales it by k times the view's stride of d. On SBUF/PSUM a
register can only move the address within each partition: a dynamic partition start is an
error. A [1, 1] int32 SBUF tensor as scalar_offset is loaded into a fresh register at the .ap()
call (nisa.register_load), so its value is the one the tensor holds at that point.

Dependencies (deps.py) see such a view as touching every byte of its storage in the view's
partitions (`reach`), since the register may move it anywhere.
"""

from trnsim_nki import registers
from trnsim_nki.errors import NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.tensor import DynamicSlice, Tensor, row_major_strides


class DynTensor(Tensor):
    """A view with a register term in its address."""

    __slots__ = ("reg", "reg_stride_bytes")

    def __init__(self, storage, reg=None, reg_stride_bytes=0, **fields):
        super().__init__(storage, **fields)
        self.reg = reg
        self.reg_stride_bytes = reg_stride_bytes

    def _derive(self, **changes):
        fields = dict(dtype=self.dtype, shape=self.shape, strides=self.strides,
                      byte_offset=self.byte_offset, part_start=self.part_start)
        fields.update(changes)
        return DynTensor(self.storage, self.reg, self.reg_stride_bytes, **fields)

    def ap(self, *args, **kwargs):
        raise NkiValueError(".ap() on a view that already has a register offset: an indirect "
                            "view cannot be indirected or re-patterned again")

    def is_indirect(self):
        return True

    def __repr__(self):
        return (f"{super().__repr__()[:-1]}, offset += r{self.reg.number} * "
                f"{self.reg_stride_bytes} bytes)")


def _with_term(view, expr, stride_elems, itemsize, what):
    """`view` (the address at register value 0) plus expr.scale * reg * stride elements."""
    if getattr(view, "reg", None) is not None:
        raise NkiValueError(f"{what}: the view already has a register offset (one register per "
                            "access pattern)")
    registers.check_register(expr.reg, what, "the offset register")
    return DynTensor(view.storage, expr.reg, expr.scale * stride_elems * itemsize,
                     dtype=view.dtype, shape=view.shape, strides=view.strides,
                     byte_offset=view.byte_offset, part_start=view.part_start)


# ---- .ap(scalar_offset=) ----------------------------------------------------------------------

def ap_scalar_offset(tensor, pattern, offset, scalar_offset, indirect_dim, dtype):
    """NkiTensor.ap with scalar_offset (a register, a register expression or a [1, 1] int32
    tensor)."""
    what = ".ap(scalar_offset=)"
    if getattr(tensor, "reg", None) is not None:
        raise NkiValueError(f"{what}: the view already has a register offset")
    expr = registers.as_expr(scalar_offset)
    if expr is None:
        if isinstance(scalar_offset, Tensor):
            reg = registers.register_alloc()
            registers.register_load(reg, scalar_offset)
            expr = registers.RegExpr(reg)
        else:
            raise NkiTypeError(f"{what}: scalar_offset must be a register (nisa.register_alloc, a "
                               "loop's induction register) or a [1, 1] int32 SBUF tensor, not "
                               f"{type(scalar_offset).__name__}")
    storage = tensor.storage
    if isinstance(indirect_dim, bool) or not isinstance(indirect_dim, int) or \
            not 0 <= indirect_dim < len(storage.shape):
        raise NkiValueError(f"{what}: indirect_dim={indirect_dim!r} is not a dim of the "
                            f"storage {list(storage.shape)}")
    if storage.on_chip and indirect_dim == 0:
        raise NkiNotImplementedError("nl.NkiTensor.ap", "a register offset on the partition "
                                     "dim of an on-chip tensor (trnsim's register offsets move "
                                     "the address within each partition)")
    static = Tensor.ap(tensor, pattern, offset=offset, dtype=dtype)
    if expr.offset:
        static = _shift(static, expr.offset * _storage_stride(storage, indirect_dim) *
                        storage.dtype.itemsize, what)
    return _with_term(static, expr, _storage_stride(storage, indirect_dim),
                      storage.dtype.itemsize, what)


def _storage_stride(storage, dim):
    """Elements between consecutive indices of `dim` in the storage's row-major layout (on
    chip: within a partition)."""
    shape = storage.shape
    strides = row_major_strides(shape[1:]) if storage.on_chip else row_major_strides(shape)
    return strides[dim - 1] if storage.on_chip else strides[dim]


def _shift(view, nbytes, what):
    if view.byte_offset + nbytes < 0:
        raise NkiValueError(f"{what}: the static offset is negative")
    return Tensor(view.storage, dtype=view.dtype, shape=view.shape, strides=view.strides,
                  byte_offset=view.byte_offset + nbytes, part_start=view.part_start)


# ---- t[..., nl.ds(reg_expr, size), ...] -------------------------------------------------------

def has_register(key):
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, DynamicSlice) and registers.as_expr(k.start) is not None
               for k in keys)


def getitem(tensor, key):
    """Indexing with one nl.ds whose start is a register expression: the static view with
    the start's constant part, plus the register term on that dim's stride."""
    what = "nl.ds"
    keys = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in keys):
        at = keys.index(Ellipsis)
        named = sum(1 for k in keys if k is not None and k is not Ellipsis)
        keys = keys[:at] + (slice(None),) * (tensor.ndim - named) + keys[at + 1:]
    static, found = [], None
    dim = 0
    for k in keys:
        if k is None:
            static.append(k)
            continue
        expr = registers.as_expr(k.start) if isinstance(k, DynamicSlice) else None
        if expr is not None:
            if found is not None:
                raise NkiValueError(f"{what}: at most one register offset per access pattern")
            if tensor.on_chip and dim == 0:
                raise NkiNotImplementedError("nl.ds", "a register start on the partition dim of "
                                             "an on-chip tensor (trnsim's register offsets move "
                                             "the address within each partition)")
            found = (dim, expr)
            k = DynamicSlice(expr.offset, k.size)
        static.append(k)
        dim += 1
    view = Tensor.__getitem__(tensor, tuple(static))
    dim, expr = found
    if dim >= len(tensor.strides):
        raise NkiValueError(f"{what}: too many indices")
    return _with_term(view, expr, tensor.strides[dim], tensor.dtype.itemsize, what)


# ---- what the rest of the tracer asks ------------------------------------------------------------

def reach(view, fp):
    """The footprint `fp` (p0, p1, b0, b1) of a view at register value 0, widened to what
    the register may reach: every byte of the storage (in the view's partitions on chip)."""
    s = view.storage
    whole = s.bytes_per_partition if s.on_chip else s.nbytes
    return (fp[0], fp[1], min(0, fp[2]), max(whole, fp[3]))


def register_term(view):
    """The text-form term ` + r<R>*<bytes>` of a view, or ''."""
    reg = getattr(view, "reg", None)
    if reg is None:
        return ""
    return f" + r{reg.number}*{view.reg_stride_bytes}"
