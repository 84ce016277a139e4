"""Automatic dependencies: what the NKI compiler does so that kernel authors write no semaphores.

After allocation every access has a physical footprint: (first partition, end partition, first
byte, end byte) in the core's SBUF or PSUM, or a byte span of an HBM variable. Walking each
core's instructions in program order, an instruction depends on

  - the earlier writers of anything it reads (read after write),
  - the earlier readers and writers of anything it writes (write after read / after write),

where "earlier" includes the previous occupants of reused on-chip bytes (a storage starts with
the access records of the storages it displaced, alloc.py). A write that covers a record's
footprint retires that record: later accesses are ordered after the write, and so after it.

The C++ builder turns each (consumer, producer) pair into semaphores; per consumer only the
latest producer of each completion channel matters (a channel completes in order, sync.h), so
the pairs are thinned to one per channel here. Dependencies between HBM accesses of different
cores (SPMD programs) are not tracked: programs are independent, as in NKI.
"""

from trnsim_nki.lower import footprint


class Record:
    __slots__ = ("fp", "instr", "write")

    def __init__(self, fp, instr, write):
        self.fp = fp
        self.instr = instr
        self.write = write


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def _covers(a, b):
    return a[0] <= b[0] and b[1] <= a[1] and a[2] <= b[2] and b[3] <= a[3]


def channel(instr):
    """The completion channel of a producer (tools/kernel_builder/sync.h)."""
    if instr.opcode in ("dma_copy", "sendrecv"):
        return (instr.engine, instr.queue)
    if instr.opcode == "collective":
        return (instr.engine, "cc")
    return (instr.engine, None)


def _absolute(view):
    fp = footprint(view)
    s = view.storage
    if s.on_chip:
        return (fp[0], fp[1], fp[2] + s.offset, fp[3] + s.offset)
    return fp


def _clip(record, lo, hi):
    p0, p1, b0, b1 = record.fp
    if lo <= b0 and b1 <= hi:
        return record
    return Record((p0, p1, max(b0, lo), min(b1, hi)), record.instr, record.write)


def _records_of(storage, core):
    """[writes, reads by (channel, footprint)]: the access records of `core`'s instructions
    that later accesses of the storage by that core must follow (HBM storages are shared by
    the cores of an SPMD launch; each core's records are its own)."""
    if storage.records is None:
        storage.records = {}
    records = storage.records.get(core)
    if records is None:
        writes, reads = [], {}
        lo = storage.offset or 0
        hi = lo + storage.bytes_per_partition
        for pred in storage.predecessors:
            pred_records = (pred.records or {}).get(core)
            if pred_records:
                # Clipped to this storage's bytes: the rest belongs to the storages that took
                # the other bytes, and a clipped record can be retired by a write covering it.
                writes.extend(_clip(r, lo, hi) for r in pred_records[0]
                              if r.fp[2] < hi and lo < r.fp[3])
                for (key, _), r in pred_records[1].items():
                    if r.fp[2] < hi and lo < r.fp[3]:
                        clipped = _clip(r, lo, hi)
                        reads[(key, clipped.fp)] = clipped
        records = storage.records[core] = [writes, reads]
    return records


def compute(instrs):
    """Returns [(consumer, producer)] for one core's instruction list (program order)."""
    pairs = []
    for instr in instrs:
        producers = {}
        accesses = []
        for op in instr.operands:
            if not (op.read or op.write):
                continue
            fp = _absolute(op.tensor)
            writes, reads = _records_of(op.tensor.storage, instr.core)
            found = [r for r in writes if _overlap(r.fp, fp)]
            if op.write:
                found += [r for r in reads.values() if _overlap(r.fp, fp)]
            for r in found:
                producer = r.instr
                if producer is instr:
                    continue
                key = channel(producer)
                best = producers.get(key)
                if best is None or best.position < producer.position:
                    producers[key] = producer
            accesses.append((op, fp, writes, reads))
        key = channel(instr)
        for op, fp, writes, reads in accesses:
            if op.write:
                writes[:] = [r for r in writes if not _covers(fp, r.fp)]
                for k in [k for k, r in reads.items() if _covers(fp, r.fp)]:
                    del reads[k]
                writes.append(Record(fp, instr, True))
            elif op.read:
                # A later read of the same footprint by the same channel supersedes the older.
                reads[(key, fp)] = Record(fp, instr, False)
        for producer in producers.values():
            if producer.engine == instr.engine and producer.opcode not in _ASYNC and \
                    instr.opcode not in _ASYNC:
                continue  # program order on one engine's datapath
            pairs.append((instr, producer))
    return pairs


_ASYNC = ("dma_copy", "sendrecv", "collective")
