"""Lowering views to trnsim access patterns (docs/isa.md §4, text form §10.2).

An access pattern has a partition (or row) dimension and at most four free dims of at most
65535 elements each. A view's free dims are simplified first — size-1 dims dropped, dims that
are contiguous with their inner neighbour merged — then any dim over 65535 is split. A view
that still needs more than four free dims is an error naming the kernel line.
"""

from trnsim_nki.errors import NkiValueError

MAX_FREE_DIMS = 4
MAX_DIM = 65535


def footprint(view):
    """(p0, p1, b0, b1): the partitions and the byte span (relative to the storage) a view
    touches. HBM views use partition range (0, 1)."""
    item = view.dtype.itemsize
    lo = hi = view.byte_offset
    dims = zip(view.shape, view.strides)
    if view.on_chip:
        next(dims)
    for n, s in dims:
        extent = (n - 1) * s * item
        if extent < 0:
            lo += extent
        else:
            hi += extent
    if view.on_chip:
        p0 = view.part_start
        p1 = p0 + (view.shape[0] - 1) * view.strides[0] + 1
        fp = (p0, p1, lo, hi + item)
    else:
        fp = (0, 1, lo, hi + item)
    if getattr(view, "reg", None) is not None:  # a register offset may reach the whole storage
        from trnsim_nki.dynamic_ap import reach
        fp = reach(view, fp)
    return fp


def simplify_dims(dims):
    """Drops size-1 dims, merges contiguous neighbours, splits dims over MAX_DIM."""
    kept = [(n, s) for n, s in dims if n != 1]
    merged = []
    for n, s in kept:
        if merged and merged[-1][1] == n * s:
            n0, _ = merged.pop()
            merged.append((n0 * n, s))
        else:
            merged.append((n, s))
    out = []
    for n, s in merged:
        if n <= MAX_DIM:
            out.append((n, s))
            continue
        inner = _largest_factor_at_most(n, MAX_DIM)
        outer = n // inner
        if outer > MAX_DIM or inner == 1:
            raise NkiValueError(f"a dimension of {n} elements cannot be addressed "
                                f"(split it into dims of at most {MAX_DIM})")
        out.append((outer, s * inner))
        out.append((inner, s))
    return out


def _largest_factor_at_most(n, limit):
    for f in range(min(limit, n), 0, -1):
        if n % f == 0:
            return f
    return 1


def _dims_text(dims):
    return ", ".join(f"{n} x {s}" for n, s in dims)


def ap_text(view, what="operand", split=None):
    """The text form of a view whose storage has been placed. With `split` (a view dim of an
    on-chip view), the free dims before and after it are simplified separately, so a
    reduction's axes stay their own dims."""
    storage = view.storage
    dtype = view.dtype.isa
    if storage.on_chip:
        if view.strides[0] != 1 and view.shape[0] != 1:
            raise NkiValueError(f"{what}: the partition dim of an on-chip access must have step 1")
        dims = list(zip(view.shape, view.strides))
        if split is None:
            free = simplify_dims(dims[1:]) or [(1, 1)]
        else:
            free = simplify_dims(dims[1:split]) + (simplify_dims(dims[split:]) or [(1, 1)])
        if len(free) > MAX_FREE_DIMS:
            raise NkiValueError(f"{what}: {len(free)} free dims after merging; the engines "
                                f"address at most {MAX_FREE_DIMS}")
        p0 = view.part_start
        offset = storage.offset + view.byte_offset
        return (f"{storage.kind}[p{p0}:{p0 + view.shape[0]}, {offset}{_reg(view)} + "
                f"[{_dims_text(free)}]] {dtype}")
    dims = simplify_dims(list(zip(view.shape, view.strides)))
    if not dims:
        dims = [(1, 1)]
    rows = dims[0] if len(dims) > 1 else (1, 0)
    free = dims[1:] if len(dims) > 1 else dims
    if len(free) > MAX_FREE_DIMS:
        raise NkiValueError(f"{what}: {len(free)} free dims after merging; a DMA addresses at "
                            f"most {MAX_FREE_DIMS} besides its rows")
    return (f"hbm[var{storage.var_id} + {view.byte_offset}{_reg(view)}, [{rows[0]} x "
            f"{rows[1]}, {_dims_text(free)}]] {dtype}")


def _reg(view):
    """` + r<R>*<bytes>` for a view addressed through a register (dynamic_ap.py), else ''."""
    if getattr(view, "reg", None) is None:
        return ""
    from trnsim_nki.dynamic_ap import register_term
    return register_term(view)


def iota_text(offset, channel_multiplier, pattern, partitions):
    """An iota AP: `offset + p * channel_multiplier + sum_d i_d * step_d` (nki.isa.iota)."""
    dims = [(n, s) for s, n in pattern] or [(1, 0)]
    if len(dims) > MAX_FREE_DIMS:
        raise NkiValueError(f"an iota pattern has at most {MAX_FREE_DIMS} dims")
    return f"iota[{offset}, [{partitions} x {channel_multiplier}, {_dims_text(dims)}]] int32"


def imm_text(value):
    """An immediate: ints as integers, everything else as an fp32 literal."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "." not in text and "e" not in text:
        text += ".0"
    return text
