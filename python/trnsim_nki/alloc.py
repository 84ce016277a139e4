"""On-chip allocation after tracing: every SBUF/PSUM storage gets a byte offset.

NKI semantics: a tile created inside a loop is a new buffer in every iteration. Placing each
one only for its live range [first use, last use] would make iteration i+1 reuse iteration i's
bytes at once, and the write-after-read dependency that reuse implies would serialise
independent iterations. So, like the NKI compiler's allocator, the storages created at one
source line (an allocation *site*) rotate through a small pool: a storage stays reserved until
the storage `depth - 1` places later from the same site starts, so up to `depth` iterations
are in flight. Depth 4 is tried first, then 3, 2 and 1 (pure liveness); a kernel that does not
fit even with depth 1 is an NkiResourceError naming the tile, its line and what was live.

Placement is next fit: the search starts where the previous placement ended and wraps around,
so memory is reused in the order it was freed — the oldest first. Reusing the bytes a tile
freed a moment ago would make the new tile's first write wait for that tile's last readers
(deps.py); reusing the longest-free bytes makes that wait one that has long been satisfied.

SBUF capacity is what NKI leaves a kernel (nl.tile_size.total_available_sbuf_size: 212984 bytes
per partition on trn2, 245752 on trn3), not the physical 224/256 KiB, so a kernel that fits
here fits under AWS's compiler too. Every allocation reserves its byte range in all partitions (as the C++ builder's allocator
does). PSUM: an allocation of at most one bank never straddles a bank boundary and a larger one
starts on a bank (docs/isa.md §9). Alignment: 32 bytes in SBUF, 4 in PSUM... rounded up to the
dtype size. Each storage records the earlier storages whose bytes it reuses (`predecessors`),
which deps.py turns into dependencies.
"""

import bisect
import os

from trnsim_nki.api_names import TILE_SIZE
from trnsim_nki.errors import NkiResourceError

DEPTHS = (4, 3, 2, 1)
SBUF_ALIGN = 32  # bytes; the C++ builder's default (tools/kernel_builder/allocator.h)
PSUM_ALIGN = 4


def allocate(trace):
    """Places every on-chip storage of every core; raises NkiResourceError if one does not fit."""
    for core in range(trace.lnc):
        for kind, capacity, bank in (
                ("sbuf", TILE_SIZE[trace.chip]["total_available_sbuf_size"], 0),
                ("psum", trace.info["psum_bytes_per_partition"], trace.info["psum_bank_bytes"])):
            storages = [s for s in trace.storages
                        if s.kind == kind and s.core == core and s.first_use is not None]
            _place(storages, kind, capacity, bank)


def _place(storages, kind, capacity, bank):
    if not storages:
        return
    sites = {}
    for s in storages:
        sites.setdefault(s.site, []).append(s)
    for group in sites.values():
        group.sort(key=lambda s: s.ident)
    failure = None
    for depth in DEPTHS:
        ends = {}
        for group in sites.values():
            for i, s in enumerate(group):
                later = group[i + depth - 1] if i + depth - 1 < len(group) else None
                end = s.last_use
                if later is not None and depth > 1:
                    end = max(end, later.first_use)
                ends[s.ident] = end
        failure = _linear_scan(storages, ends, kind, capacity, bank, commit=False)
        if failure is None:
            _linear_scan(storages, ends, kind, capacity, bank, commit=True)
            return
    storage, live = failure
    live_text = ", ".join(f"{t!r} ({_where(t)})" for t in live[:6])
    more = f" and {len(live) - 6} more" if len(live) > 6 else ""
    need = storage.bytes_per_partition + sum(t.bytes_per_partition for t in live)
    raise NkiResourceError(
        f"{kind.upper()} overflow: {storage!r} needs {storage.bytes_per_partition} bytes per "
        f"partition, but only {capacity} bytes per partition exist and {need - storage.bytes_per_partition} "
        f"are held by tiles live at the same time: {live_text}{more}", location=storage.site)


def _where(storage):
    filename, line = storage.site
    return f"{os.path.basename(filename)}:{line}"


def _align(size, kind, itemsize):
    align = max(SBUF_ALIGN if kind == "sbuf" else PSUM_ALIGN, itemsize)
    return (size + align - 1) // align * align


def _linear_scan(storages, ends, kind, capacity, bank, commit):
    order = sorted(storages, key=lambda s: (s.first_use, s.ident))
    by_offset = []  # live reservations (offset, size, storage), sorted by offset
    occupancy = _Occupancy()  # byte range -> the storage placed there last
    cursor = 0  # next fit: search from the end of the previous placement, then wrap
    for s in order:
        start = s.first_use
        # Release storages whose reservation ended before this one starts.
        by_offset = [a for a in by_offset if ends[a[2].ident] >= start]
        size = _align(max(s.bytes_per_partition, 1), kind, s.dtype.itemsize)
        offset = _first_fit(by_offset, size, capacity, bank, kind, cursor)
        if offset is None:
            offset = _first_fit(by_offset, size, capacity, bank, kind, 0)
        if offset is None:
            return s, [a[2] for a in by_offset]
        cursor = offset + size
        bisect.insort(by_offset, (offset, size, s), key=lambda e: e[0])
        if commit:
            s.offset = offset
            s.predecessors = occupancy.place(offset, offset + size, s)
    return None


class _Occupancy:
    """Non-overlapping segments (lo, hi, storage): who used each byte range last."""

    def __init__(self):
        self.segments = []

    def place(self, lo, hi, storage):
        """Records `storage` on [lo, hi); returns the storages it displaces."""
        displaced = []
        kept = []
        for seg in self.segments:
            s_lo, s_hi, owner = seg
            if s_hi <= lo or hi <= s_lo:
                kept.append(seg)
                continue
            if owner not in displaced:
                displaced.append(owner)
            if s_lo < lo:
                kept.append((s_lo, lo, owner))
            if hi < s_hi:
                kept.append((hi, s_hi, owner))
        kept.append((lo, hi, storage))
        kept.sort(key=lambda e: e[0])
        self.segments = kept
        return displaced


def _first_fit(by_offset, size, capacity, bank, kind, start):
    """The lowest offset >= start where `size` bytes fit between the live reservations."""
    align = SBUF_ALIGN if kind == "sbuf" else PSUM_ALIGN
    candidate = (start + align - 1) // align * align
    for offset, used, _ in by_offset:
        if offset + used <= candidate:
            continue
        candidate = _bank_fix(candidate, size, bank)
        if candidate + size <= offset:
            break
        candidate = max(candidate, (offset + used + align - 1) // align * align)
    candidate = _bank_fix(candidate, size, bank)
    if candidate + size > capacity:
        return None
    return candidate


def _bank_fix(offset, size, bank):
    """PSUM: a tile within one bank must not straddle; a larger one starts on a bank."""
    if not bank:
        return offset
    if size > bank:
        return (offset + bank - 1) // bank * bank
    if offset // bank != (offset + size - 1) // bank:
        return (offset // bank + 1) * bank
    return offset
