"""The trace of one kernel call: the instructions it emitted, per core, and its storages.

Calling a kernel runs its Python body with tracer objects. Every nisa/nl operation appends an
Instr to the current core's list through `Trace.emit`; nothing is encoded until the whole body
has run, because on-chip addresses (alloc.py) and dependencies (deps.py) need every use of
every tile. Instr keeps its operands as views (tensor.py) and its scalar fields as text-form
fragments (docs/isa.md §10); lower.py turns both into instruction text.

One Trace is active per thread while a kernel body runs (`current()`).
"""

import threading

from trnsim_nki.errors import NkiError, user_location
from trnsim_nki.tensor import Storage, Tensor

ENGINES = ("pe", "act", "dve", "pool", "sp")

_active = threading.local()


def current():
    """The Trace of the kernel being traced on this thread."""
    trace = getattr(_active, "trace", None)
    if trace is None:
        raise NkiError("NKI operations can only be used inside a kernel being traced "
                       "(a function decorated with @nki.jit, called)")
    return trace


def active():
    return getattr(_active, "trace", None)


class Operand:
    """One operand slot of an instruction: its text key, the view, and how it is accessed.
    `split` (a view dim, or None): the view's free dims before and after it are lowered as
    separate dims (a reduction's axes keep their own dims; lower.ap_text)."""

    __slots__ = ("key", "tensor", "write", "read", "split")

    def __init__(self, key, tensor, write=False, read=True, split=None):
        self.key = key
        self.tensor = tensor
        self.write = write
        self.read = read
        self.split = split


class Instr:
    """One engine instruction before lowering."""

    __slots__ = ("core", "engine", "opcode", "operands", "fields", "loc", "position", "index",
                 "queue", "api", "prefix", "peer_dst", "control")

    def __init__(self, core, engine, opcode, operands, fields, loc, api, queue=None):
        self.core = core
        self.engine = engine
        self.opcode = opcode
        self.operands = operands  # list of Operand
        self.fields = fields  # list of text fragments after the operands ("op0=add", "first")
        self.loc = loc  # (filename, lineno) of the kernel line
        self.api = api  # the NKI call that made it ("nisa.tensor_tensor")
        self.queue = queue  # dma_copy/sendrecv: the DMA queue
        self.position = -1  # index in its core's instruction list
        self.index = -1  # index in its engine stream once emitted
        self.prefix = None  # debug_print: the prefix string
        self.peer_dst = False  # sendrecv: dst names the peer core's copy of the storage
        # Register operations (registers.RegOp): engine None until loop_plan.py replicates
        # them onto the engines that read the register.
        self.control = None


class Trace:
    """Everything one kernel call emitted."""

    def __init__(self, chip, chip_info, lnc, grid, legacy=False):
        self.chip = chip
        self.info = chip_info
        self.lnc = lnc
        self.grid = tuple(grid)
        self.legacy = legacy
        self.cores = [[] for _ in range(lnc)]
        self.storages = []
        self.hbm_args = []
        self.program = (0,) * len(self.grid)
        self.core = 0
        self._dma_queue = [0] * lnc
        self._shared = {}  # (site, ordinal within the program) -> Storage (shared_hbm)
        self._shared_ordinal = 0
        self._psum_matmul = {}  # storage ident -> list of (p0, p1, b0, b1) written by matmul
        self._next_ident = 0
        self._site_counts = {}  # (core, site) -> storages made there so far
        self._write_epoch = {}  # storage ident -> writes so far (nc_matmul's stationary reuse)
        self.last_stationary = [None] * lnc  # what each core's PE array holds
        self.last_writer_engine = {}  # storage ident -> engine of its latest writer
        self.semaphores = []  # symbolic semaphores ("@barrier", "@pipe0"), same on every core
        self._pipe_receives = {}  # (core, pipe) -> sendrecvs so far
        self.outputs = []
        self.control = None  # loops.ControlState once the kernel uses registers or loops

    # ---- programs ---------------------------------------------------------------------------
    def begin_program(self, program, core):
        self.program = program
        self.core = core
        self._shared_ordinal = 0

    # ---- storages ---------------------------------------------------------------------------
    def new_storage(self, buffer, shape, dtype, name, role=None, site=None):
        site = site or user_location()
        ident = self._next_ident
        self._next_ident += 1
        if buffer.kind == "hbm" and buffer.name == "shared_hbm" and role is None:
            key = (site, self._shared_ordinal)
            self._shared_ordinal += 1
            found = self._shared.get(key)
            if found is not None:
                if found.shape != tuple(shape) or found.dtype is not dtype:
                    raise NkiError("a shared_hbm tensor must have the same shape and dtype in "
                                   "every SPMD program")
                return found
            storage = Storage(buffer, shape, dtype, name, None, site, ident, role="scratch")
            self._shared[key] = storage
        else:
            core = self.core if buffer.kind != "hbm" else None
            storage = Storage(buffer, shape, dtype, name, core, site, ident,
                              role=role or ("scratch" if buffer.kind == "hbm" else None))
            key = (core, site)
            storage.site_ordinal = self._site_counts.get(key, 0)
            self._site_counts[key] = storage.site_ordinal + 1
        self.storages.append(storage)
        return storage

    def tensor(self, buffer, shape, dtype, name="", role=None):
        return Tensor(self.new_storage(buffer, shape, dtype, name, role=role))

    # ---- instructions -----------------------------------------------------------------------
    def emit(self, engine, opcode, operands, fields=(), api="", queue=None):
        loc = user_location()
        instr = Instr(self.core, engine, opcode, operands, list(fields), loc, api, queue)
        core = self.cores[self.core]
        instr.position = len(core)
        core.append(instr)
        for op in operands:
            storage = op.tensor.storage
            if op.write:
                self._write_epoch[storage.ident] = self._write_epoch.get(storage.ident, 0) + 1
                self.last_writer_engine[storage.ident] = engine
            if storage.on_chip and storage.core != self.core:
                raise NkiError(f"{api}: {storage!r} belongs to another SPMD program's core")
            if storage.first_use is None:
                storage.first_use = instr.position
            storage.last_use = instr.position
        return instr

    def write_epoch(self, storage):
        return self._write_epoch.get(storage.ident, 0)

    def semaphore(self, symbol):
        """A semaphore with the same index on every core, named `symbol` until build time."""
        if symbol not in self.semaphores:
            self.semaphores.append(symbol)
        return symbol

    def barrier_semaphore(self, engine):
        """One barrier semaphore per engine: core_barrier counts arrivals per semaphore, and
        one engine issues its barriers in the same order on both cores (docs/isa.md §7.9)."""
        return self.semaphore(f"@barrier_{engine}")

    def sendrecv(self, src, dst, pipe, api):
        """nisa.sendrecv on LNC=2: a core barrier that orders this core's earlier use of dst
        (so the peer may overwrite it), the transfer into the peer's copy of dst (the storage
        made at the same line, the same time, by the peer's program), then a wait for the
        peer's transfer into ours, which later readers of dst depend on."""
        self.emit("sp", "core_barrier", [Operand(None, dst, write=True, read=True)],
                  [f"sem={self.barrier_semaphore('sp')}"], api=api)
        sem = self.semaphore(f"@pipe{pipe}")
        instr = self.emit("sp", "sendrecv", [Operand("dst", dst, write=False, read=False),
                                             Operand("src", src)],
                          ["queue=0", f"peer_sem={sem}"], api=api, queue=0)
        instr.peer_dst = True
        key = (self.core, pipe)
        count = self._pipe_receives.get(key, 0) + 1
        self._pipe_receives[key] = count
        self.emit("sp", f"wait S[{sem}] >= {count} nop", [Operand(None, dst, write=True,
                                                                  read=False)], [], api=api)
        return instr

    def next_dma_queue(self, queues):
        q = self._dma_queue[self.core]
        self._dma_queue[self.core] = (q + 1) % queues
        return q

    # ---- matmul accumulation groups (accumulate=None) ----------------------------------------
    def psum_initialised(self, view, footprint):
        """True when a matmul already wrote part of this PSUM region since it was last read by
        another engine: NKI's accumulate=None then accumulates."""
        for region in self._psum_matmul.get(view.storage.ident, ()):
            if _overlap(region, footprint):
                return True
        return False

    def psum_matmul_written(self, view, footprint):
        self._psum_matmul.setdefault(view.storage.ident, []).append(footprint)

    def psum_consumed(self, view, footprint):
        regions = self._psum_matmul.get(view.storage.ident)
        if regions:
            self._psum_matmul[view.storage.ident] = [
                r for r in regions if not _overlap(r, footprint)]

    # ---- legacy generation hook (trnsim_nki.legacy_tiles: `t[...] = op(...)`) -----------------
    def retarget(self, instr, operand, view, read=False):
        """Points the write operand of an emitted instruction at `view` instead of the fresh
        tile it wrote (which the caller then retires); `read` makes the write accumulate."""
        operand.tensor = view
        operand.read = read
        storage = view.storage
        self._write_epoch[storage.ident] = self._write_epoch.get(storage.ident, 0) + 1
        if storage.first_use is None or storage.first_use > instr.position:
            storage.first_use = instr.position
        if storage.last_use is None or storage.last_use < instr.position:
            storage.last_use = instr.position


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


class TraceScope:
    """with TraceScope(trace): ... makes `trace` current on this thread."""

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        if getattr(_active, "trace", None) is not None:
            raise NkiError("a kernel cannot be called while another kernel is being traced "
                           "(call the inner function directly: it is traced inline)")
        _active.trace = self.trace
        return self.trace

    def __exit__(self, *exc):
        _active.trace = None
        return False

