"""Index arithmetic of the legacy generation (neuronxcc.nki): nl.arange, nl.mgrid, affine
index expressions, index views and `mask=` predicates.

An IndexExpr is an affine function of the axes of a broadcast index space, NumPy style:
`nl.arange(128)[:, None]` is axis 0 of a (128, 1) space, `nl.arange(512)[None, :]` axis 1 of a
(1, 512) space, and `i_p + 128 * k` (k a loop index, an int here because loops unroll) is the
same axis with an offset. Expressions combine by NumPy broadcasting (shapes aligned on the
right); products of two expressions, division and modulo are not affine and are refused.

Indexing a tensor with a tuple of expressions (and ints) gives a strided view with one dim per
axis of the broadcast space (then the tensor's unindexed trailing dims): the view's stride on
axis k is the sum over indexed dims d of coef(d, k) * stride(d). On-chip tensors keep the
partition dim first: it must be indexed by axis 0 alone, with coefficient 1 (no strided
partition access). A view that reaches outside the tensor is not an error yet — `mask=`
may cut it down (the last tile of a loop, `i * 128 + i_p < n`) — but any use of it that is
still out of bounds after the mask is (OutOfBoundsView).

A comparison of an expression with a constant (`i_p < 64`, `i * 128 + i_p < n`) is a
legacy_mask.Predicate, which `restrict` applies to the operands of a masked instruction.
"""

import numpy as np

from trnsim_nki.errors import NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.legacy_mask import Predicate
from trnsim_nki.tensor import Tensor


def _int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None


def _non_affine(what):
    return NkiNotImplementedError(
        "legacy.nl.arange", f"{what} is not an affine index expression (only sums of "
        "integer multiples of nl.arange/nl.mgrid axes and integer offsets are)")


class IndexExpr:
    """const + sum(coefs[k] * axis_k) over a broadcast index space of `shape`."""

    __slots__ = ("shape", "coefs", "const")
    _nki_index_expr = True
    __array_ufunc__ = None  # numpy scalars defer to our reflected operators

    def __init__(self, shape, coefs, const=0):
        self.shape = tuple(shape)
        self.coefs = tuple(coefs)
        self.const = const

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        terms = [f"{c}*a{k}" for k, c in enumerate(self.coefs) if c]
        return f"IndexExpr({' + '.join(terms + [str(self.const)])}, shape={list(self.shape)})"

    def _aligned(self, ndim):
        pad = ndim - self.ndim
        return (1,) * pad + self.shape, (0,) * pad + self.coefs

    def __add__(self, other):
        k = _int(other)
        if k is not None:
            return IndexExpr(self.shape, self.coefs, self.const + k)
        if isinstance(other, IndexExpr):
            shape, (ca, cb) = broadcast_shapes([self, other])
            return IndexExpr(shape, tuple(a + b for a, b in zip(ca, cb)),
                             self.const + other.const)
        return NotImplemented

    __radd__ = __add__

    def __neg__(self):
        return IndexExpr(self.shape, tuple(-c for c in self.coefs), -self.const)

    def __sub__(self, other):
        if _int(other) is None and not isinstance(other, IndexExpr):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other):
        if _int(other) is None:
            return NotImplemented
        return (-self) + other

    def __mul__(self, other):
        k = _int(other)
        if k is None:
            if isinstance(other, IndexExpr):
                raise _non_affine("a product of two index expressions")
            return NotImplemented
        return IndexExpr(self.shape, tuple(c * k for c in self.coefs), self.const * k)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        raise _non_affine("'//' of an index expression")

    __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = __floordiv__

    def __getitem__(self, key):
        """`nl.arange(n)[:, None]`: full slices keep the axes in order, None adds size-1 axes."""
        key = key if isinstance(key, tuple) else (key,)
        kept = [k for k in key if k is not None]
        if len(kept) != self.ndim or any(k != slice(None) for k in kept):
            raise NkiNotImplementedError(
                "legacy.nl.arange", "an index expression is reshaped only with ':' and None "
                f"(e.g. nl.arange(n)[:, None]), not {key!r}")
        shape, coefs, axis = [], [], 0
        for k in key:
            if k is None:
                shape.append(1)
                coefs.append(0)
            else:
                shape.append(self.shape[axis])
                coefs.append(self.coefs[axis])
                axis += 1
        return IndexExpr(shape, coefs, self.const)

    def _compare(self, other, op):
        if _int(other) is None and not isinstance(other, IndexExpr):
            return NotImplemented
        return Predicate([(self - other, op)])

    def __lt__(self, other): return self._compare(other, "lt")
    def __le__(self, other): return self._compare(other, "le")
    def __gt__(self, other): return self._compare(other, "gt")
    def __ge__(self, other): return self._compare(other, "ge")

    def __bool__(self):
        raise NkiTypeError("an nl.arange/nl.mgrid index has no truth value at trace time; "
                           "control flow on index values is not allowed (use mask=)")

    def __iter__(self):
        raise NkiTypeError("an nl.arange/nl.mgrid index cannot be iterated; index a tensor "
                           "with it instead")

    def __index__(self):
        raise NkiTypeError("an nl.arange/nl.mgrid index is not an integer")

    def axis_range(self):
        """(min, max) of the expression over its index space."""
        lo = hi = self.const
        for c, n in zip(self.coefs, self.shape):
            ext = c * (n - 1)
            lo += min(0, ext)
            hi += max(0, ext)
        return lo, hi


def broadcast_shapes(exprs):
    """(shape, [coefs of each expr aligned to it]) for expressions broadcast together."""
    ndim = max(e.ndim for e in exprs)
    shape = [1] * ndim
    aligned = []
    for e in exprs:
        s, c = e._aligned(ndim)
        for k, n in enumerate(s):
            if n != 1:
                if shape[k] not in (1, n):
                    raise NkiValueError(f"index expressions of shapes {[list(x.shape) for x in exprs]}"
                                        " do not broadcast together")
                shape[k] = n
        aligned.append(c)
    return tuple(shape), aligned


def arange(*args):
    """nl.arange(stop) / nl.arange(start, stop): a 1-D index expression."""
    if len(args) == 1:
        start, stop = 0, args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        raise NkiTypeError("nl.arange takes (stop) or (start, stop)")
    start, stop = _int(start), _int(stop)
    if start is None or stop is None:
        raise NkiTypeError("nl.arange: start and stop must be ints known at trace time")
    if stop <= start:
        raise NkiValueError(f"nl.arange({start}, {stop}) is empty")
    return IndexExpr((stop - start,), (1,), start)


class Grid(tuple):
    """What nl.mgrid[...] returns: one expression per dimension, also as .p, .x, .y, .z."""

    @property
    def p(self):
        return self[0]

    def _free(self, i, name):
        if len(self) <= i:
            raise AttributeError(f"a {len(self)}-D nl.mgrid has no .{name}")
        return self[i]

    x = property(lambda self: self._free(1, "x"))
    y = property(lambda self: self._free(2, "y"))
    z = property(lambda self: self._free(3, "z"))


class _MGrid:
    """nl.mgrid[a:b, c:d, ...] (steps allowed): dense index grids, like numpy.mgrid."""

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        sizes, starts, steps = [], [], []
        for k in key:
            if not isinstance(k, slice) or k.stop is None:
                raise NkiTypeError(f"nl.mgrid takes slices with a stop, not {k!r}")
            start = _int(k.start if k.start is not None else 0)
            stop, step = _int(k.stop), _int(k.step if k.step is not None else 1)
            if start is None or stop is None or step is None or step <= 0:
                raise NkiTypeError(f"nl.mgrid: {k!r} must have int bounds and a positive step")
            n = len(range(start, stop, step))
            if n == 0:
                raise NkiValueError(f"nl.mgrid: {k!r} is empty")
            sizes.append(n)
            starts.append(start)
            steps.append(step)
        exprs = []
        for axis in range(len(sizes)):
            coefs = [0] * len(sizes)
            coefs[axis] = steps[axis]
            exprs.append(IndexExpr(sizes, coefs, starts[axis]))
        return Grid(exprs)


mgrid = _MGrid()


# ---- index views --------------------------------------------------------------------------------

def is_index_key(key):
    key = key if isinstance(key, tuple) else (key,)
    return any(getattr(k, "_nki_index_expr", False) for k in key)


class OutOfBoundsView(Tensor):
    """An index view that reaches outside its tensor: legal only once a mask cuts it back.

    `dims` holds, per indexed tensor dim, (dim, size, const, coefs over the view's axes) so
    `restrict` can re-check the bounds; any other use raises."""

    __slots__ = ("dims", "base_shape")

    def error(self):
        parts = []
        for d, size, const, coefs in self.dims:
            lo, hi = IndexExpr(self.shape[:len(coefs)], coefs, const).axis_range()
            if lo < 0 or hi >= size:
                parts.append(f"dim {d} (size {size}) is indexed from {lo} to {hi}")
        return NkiValueError(
            f"index out of bounds of the tensor {list(self.base_shape)}: {'; '.join(parts)} "
            "(err_tensor_access_out_of_bound; restrict the access with mask=)")

    def __getitem__(self, key):
        raise self.error()

    def _derive(self, **changes):
        raise self.error()

    def in_bounds(self):
        for d, size, const, coefs in self.dims:
            lo, hi = IndexExpr(self.shape[:len(coefs)], coefs, const).axis_range()
            if lo < 0 or hi >= size:
                return False
        return True


def index_view(tensor, key):
    """tensor[key] for a key with nl.arange/nl.mgrid expressions (numpy advanced indexing)."""
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, Predicate) for k in key):
        raise NkiNotImplementedError(
            "legacy.nl.matmul", "operand masking (tensor[predicate]) is not supported; pass "
            "mask= to the operation instead")
    exprs = []
    for k in key:
        if isinstance(k, IndexExpr):
            exprs.append(k)
        elif _int(k) is not None:
            exprs.append(IndexExpr((), (), _int(k)))
        else:
            raise NkiValueError(
                f"an index mixes nl.arange/nl.mgrid expressions with {k!r} "
                "(err_unsupported_mixing_basic_advanced_tensor_indexing: use only index "
                "expressions and ints in one subscript)")
    if len(exprs) > tensor.ndim:
        raise NkiValueError(f"too many indices ({len(exprs)}) for a {tensor.ndim}-D tensor "
                            f"{list(tensor.shape)}")
    if any(e.ndim == 1 for e in exprs):
        raise NkiValueError("a 1-D nl.arange cannot index a tensor (err_1d_arange_not_supported:"
                            " use nl.arange(n)[:, None] or nl.arange(n)[None, :])")
    shape, coefs = broadcast_shapes(exprs)
    ndim = len(shape)
    item = tensor.dtype.itemsize
    strides = [0] * ndim
    offset = tensor.byte_offset
    part_start = tensor.part_start
    dims = []
    for d, (e, c) in enumerate(zip(exprs, coefs)):
        dims.append((d, tensor.shape[d], e.const, c))
        if tensor.on_chip and d == 0:
            if ndim == 0 or any(c[k] and shape[k] > 1 for k in range(1, ndim)):
                raise NkiValueError("the partition dim of an on-chip tensor must be indexed by "
                                    "the first index axis (nl.arange(n)[:, None])")
            if shape and shape[0] > 1 and c[0] != 1:
                raise NkiValueError(f"the partition dim cannot be accessed with a step of "
                                    f"{c[0]} (advanced indexing strides free dims only)")
            part_start += e.const * tensor.strides[0]
            continue
        if tensor.on_chip and shape and shape[0] > 1 and c[0]:
            raise NkiValueError(f"dim {d} of an on-chip tensor is indexed by the partition "
                                "axis (axis 0); only dim 0 may be")
        offset += e.const * tensor.strides[d] * item
        for k in range(ndim):
            strides[k] += c[k] * tensor.strides[d]
    if tensor.on_chip:
        strides[0] = tensor.strides[0]
    rest = range(len(exprs), tensor.ndim)
    view_shape = tuple(shape) + tuple(tensor.shape[d] for d in rest)
    view_strides = tuple(strides) + tuple(tensor.strides[d] for d in rest)
    if tensor.on_chip and len(view_shape) == 1:
        view_shape, view_strides = view_shape + (1,), view_strides + (1,)
    view = OutOfBoundsView(tensor.storage, dtype=tensor.dtype, shape=view_shape,
                           strides=view_strides, byte_offset=offset, part_start=part_start)
    view.dims = dims
    view.base_shape = tensor.shape
    return plain(view) if view.in_bounds() else view


def plain(view):
    """An in-bounds OutOfBoundsView as an ordinary Tensor."""
    return Tensor(view.storage, dtype=view.dtype, shape=view.shape, strides=view.strides,
                  byte_offset=view.byte_offset, part_start=view.part_start)


def restrict(view, bounds):
    """The part of `view` inside {axis: (lo, hi)} (axes the view does not span are ignored when
    it has size 1 there: a broadcast operand)."""
    if not bounds:
        return view
    shape, offset, part_start = list(view.shape), view.byte_offset, view.part_start
    dims = [list(x) for x in getattr(view, "dims", ())]
    for axis, (lo, hi) in sorted(bounds.items()):
        if axis >= len(shape) or shape[axis] == 1:
            continue
        if hi > shape[axis]:
            raise NkiValueError(f"a mask bounds axis {axis} to [{lo}, {hi}), beyond the "
                                f"operand's {shape[axis]} elements there")
        if view.on_chip and axis == 0:
            part_start += lo * view.strides[0]
        else:
            offset += lo * view.strides[axis] * view.dtype.itemsize
        shape[axis] = hi - lo
        for entry in dims:
            if axis < len(entry[3]):
                entry[2] += entry[3][axis] * lo
    out = OutOfBoundsView(view.storage, dtype=view.dtype, shape=tuple(shape),
                          strides=view.strides, byte_offset=offset, part_start=part_start)
    out.dims = [tuple(e) for e in dims]
    out.base_shape = getattr(view, "base_shape", view.storage.shape)
    if isinstance(view, OutOfBoundsView) and not out.in_bounds():
        raise out.error()
    return plain(out)


def checked(view):
    """`view` as an in-bounds Tensor, or the out-of-bounds error."""
    if isinstance(view, OutOfBoundsView):
        if not view.in_bounds():
            raise view.error()
        return plain(view)
    return view
