"""Dependencies of a core with register loops: deps.py's analysis over the loop tree.

deps.compute walks one program order: every access follows the earlier writers of what it
reads and the earlier readers and writers of what it writes, and a write that covers an
earlier access retires it (later accesses are ordered after the write, hence after it). Two
things change with loops (loop_plan.py's tree):

  - **Every loop body is walked twice** (recursively). Copy 0 stands for the first iteration,
    copy 1 for every later one, so a dependency of copy 1 on copy 0 is a carried one (iteration
    j on iteration j-1). Each access is a _Proxy: the Op and its copy in every enclosing loop.
  - **A loop may run zero times.** A write inside it retires nothing for what follows the
    loop: on leaving a loop, the access records from before it are merged back in (the
    records of one storage before the loop, plus those the loop added). Without that, a read
    after a loop would follow only a write inside it, which a zero-trip loop never makes.

Records live in a table of this analysis (not on the storages, as deps.py keeps them), seeded
from the records of the storages whose bytes a storage reuses (alloc.py's `predecessors`),
exactly as deps.py seeds them. Channels, footprints and the same-engine rule are deps.py's.
"""

from trnsim_nki import deps
from trnsim_nki.loop_plan import LoopNode


class Proxy:
    """One instance of an Op in the doubled program."""

    __slots__ = ("op", "copies", "position", "core", "engine", "opcode", "operands", "queue")

    def __init__(self, op, copies, position):
        self.op = op
        self.copies = copies  # ((LoopNode, copy), ...) outermost first
        self.position = position
        self.core = op.instr.core
        self.engine = op.engine
        self.opcode = op.opcode
        self.operands = op.operands
        self.queue = op.queue


def pairs(plan):
    """[(consumer Proxy, producer Proxy)] of a CorePlan, per consumer the latest producer of
    each completion channel."""
    return _Walk().run(plan.nodes)


class _Walk:
    def __init__(self):
        self.table = {}  # id(storage) -> [writes: [Record], reads: {(channel, fp): Record}]
        self.position = 0
        self.out = []

    def run(self, nodes):
        self._nodes(nodes, ())
        return self.out

    def _records(self, storage):
        records = self.table.get(id(storage))
        if records is None:
            writes, reads = [], {}
            lo = storage.offset or 0
            hi = lo + storage.bytes_per_partition
            for pred in storage.predecessors:
                seed = self.table.get(id(pred))
                if seed:
                    writes.extend(r for r in seed[0] if r.fp[2] < hi and lo < r.fp[3])
                    reads.update((k, r) for k, r in seed[1].items()
                                 if r.fp[2] < hi and lo < r.fp[3])
            records = self.table[id(storage)] = [writes, reads]
        return records

    def _nodes(self, nodes, copies):
        for n in nodes:
            if isinstance(n, LoopNode):
                self._loop(n, copies)
            else:
                self._access(Proxy(n, copies, self.position))
                self.position += 1

    def _loop(self, node, copies):
        for storage in _storages(node):  # seeded as at the loop's entry
            self._records(storage)
        before = {k: (list(w), dict(r)) for k, (w, r) in self.table.items()}
        for c in (0, 1):
            self._nodes(node.children, copies + ((node, c),))
        for k, (writes, reads) in before.items():  # the loop may not have run
            now = self.table[k]
            seen = {id(r) for r in now[0]}
            now[0].extend(r for r in writes if id(r) not in seen)
            for key, r in reads.items():
                now[1].setdefault(key, r)

    def _access(self, instr):
        """deps.compute's step for one instruction."""
        producers = {}
        accesses = []
        for op in instr.operands:
            if not (op.read or op.write):
                continue
            fp = deps._absolute(op.tensor)
            writes, reads = self._records(op.tensor.storage)
            found = [r for r in writes if deps._overlap(r.fp, fp)]
            if op.write:
                found += [r for r in reads.values() if deps._overlap(r.fp, fp)]
            for r in found:
                producer = r.instr
                if producer is instr:
                    continue
                key = deps.channel(producer)
                best = producers.get(key)
                if best is None or best.position < producer.position:
                    producers[key] = producer
            accesses.append((op, fp, writes, reads))
        key = deps.channel(instr)
        for op, fp, writes, reads in accesses:
            if op.write:
                writes[:] = [r for r in writes if not deps._covers(fp, r.fp)]
                for k in [k for k, r in reads.items() if deps._covers(fp, r.fp)]:
                    del reads[k]
                writes.append(deps.Record(fp, instr, True))
            elif op.read:
                reads[(key, fp)] = deps.Record(fp, instr, False)
        for producer in producers.values():
            if producer.engine == instr.engine and producer.opcode not in deps._ASYNC and \
                    instr.opcode not in deps._ASYNC:
                continue  # program order on one engine's datapath
            self.out.append((instr, producer))


def _storages(node):
    found = {}
    for n in node.children:
        if isinstance(n, LoopNode):
            for s in _storages(n):
                found[id(s)] = s
        else:
            for op in n.operands:
                found[id(op.tensor.storage)] = op.tensor.storage
    return found.values()
