"""Register loops while tracing: nl.fori_loop, nl.while_loop, nl.dynamic_range.

A register loop runs on the device: its body is traced **once** and each engine that executes
part of it runs its own copy of the loop, counting with its own copy of the loop's registers
(registers.py; the per-engine streams are made by loop_plan.py and synchronised by
loop_sync.py). While tracing, a Loop records the body's range of the core's instruction list
[begin, end) and its control:

  fori_loop(lower, upper, body, step)  i = lower; while i < upper: body(i); i += step
      lower/upper ints or registers, step a positive int; `i` is a new read-only register. If
      the body writes the upper register, the loop compares against a copy taken at entry
      (Python's range() evaluates its bounds once).
  while_loop(init, body)               while init != 0: init = body(init)
      checked before the first iteration; the register the body returns becomes the next
      condition (copied into `init` at the end of the body when it is another register).
  for i in dynamic_range(start, stop=None, step=1): ...   fori_loop with the for statement's
      body (a `break` out of it leaves the loop unfinished: an error when the kernel ends).

Tiles allocated in the body are one buffer for every iteration (NKI: allocated once, live for
the whole loop), so the body is not rotated: `prepare` extends the live range of every on-chip
storage the body touches to the loop's end. The trace-time state that assumes straight-line
code (which stationary the PE array holds) is forgotten at the loop's start and end, and a
matmul whose accumulate=None the tracer inferred as "overwrite" must have its sum read within
the body (checked at the loop's end: iteration 2 would otherwise have to accumulate).
"""

from trnsim_nki import registers
from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiError, NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.errors import user_location

# Instructions whose synchronisation counts each execution statically (trace.py): refused in
# a loop body.
_STATIC_SYNC = ("sendrecv", "core_barrier", "collective")


class ControlState:
    """A trace's registers and loops, per core."""

    def __init__(self, lnc):
        self.registers = [[] for _ in range(lnc)]  # every VirtualRegister, per core
        self.loops = [[] for _ in range(lnc)]  # every Loop, in the order they began
        self.open = [[] for _ in range(lnc)]  # the loops being traced, innermost last
        self.register_ops = [0] * lnc


def state(trace):
    if trace.control is None:
        trace.control = ControlState(trace.lnc)
    return trace.control


class Loop:
    """One register loop of one core's program."""

    def __init__(self, kind, core, parent, begin, loc, api):
        self.kind = kind  # "fori" or "while"
        self.core = core
        self.parent = parent
        self.begin = begin  # position of the body's first instruction
        self.end = None  # position after its last
        self.loc = loc
        self.api = api
        self.written = set()  # registers the body writes (ids)
        self.induction = None  # fori: the loop's register i
        self.lower = self.upper = None  # fori: int or VirtualRegister
        self.step = 1
        self.bound = None  # fori: the register compared against (upper or its entry copy)
        self.cond = None  # while: the condition register
        self.overwrites = []  # (multiply_moving, PSUM view, footprint) with accumulate inferred

    def __repr__(self):
        return f"{self.api} at line {self.loc[1]}"


def note_register_write(trace, reg, instr):
    st = state(trace)
    st.register_ops[trace.core] += 1
    for loop in st.open[trace.core]:
        loop.written.add(id(reg))


def note_inferred_overwrite(trace, instr, view, fp):
    """nc_matmul with accumulate=None that starts a new accumulation group inside a loop: the
    loop's end checks that the body consumed the group (else iteration 2 would accumulate)."""
    for loop in state(trace).open[trace.core]:
        loop.overwrites.append((instr, view, fp))


def _open(kind, api):
    trace = tr.current()
    st = state(trace)
    core = trace.core
    stack = st.open[core]
    loop = Loop(kind, core, stack[-1] if stack else None, len(trace.cores[core]),
                user_location(), api)
    st.loops[core].append(loop)
    stack.append(loop)
    trace.last_stationary[core] = None
    return trace, loop


def _close(trace, loop):
    stack = state(trace).open[loop.core]
    if not stack or stack[-1] is not loop:
        raise NkiError(f"{loop.api}: the loop ends while an inner loop is still open (a break "
                       "out of an nl.dynamic_range loop?)", location=loop.loc)
    loop.end = len(trace.cores[loop.core])
    stack.pop()
    for instr, view, fp in loop.overwrites:
        if trace.psum_initialised(view, fp):
            raise NkiValueError(
                "nisa.nc_matmul: with accumulate=None this matmul overwrites its PSUM tile, and "
                f"the {loop.api} body leaves the sum unread, so later iterations would "
                "accumulate onto it: one traced body cannot do both. Zero the PSUM tile before "
                "the loop and pass accumulate=True (or read it in the body)", location=instr.loc)
    trace.last_stationary[loop.core] = None


def _bound(value, api, what, trace):
    if isinstance(value, registers.VirtualRegister):
        return registers.check_register(value, api, what, trace)
    if isinstance(value, bool) or not isinstance(value, int):
        raise NkiTypeError(f"{api}: {what} must be an int or a register, not {value!r}")
    if not -2 ** 31 <= value < 2 ** 31:
        raise NkiValueError(f"{api}: {what}={value} does not fit a 32-bit register")
    return value


def _begin_fori(lower, upper, step, api):
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise NkiValueError(f"{api}: step must be a positive int known at trace time, not "
                            f"{step!r}")
    trace = tr.current()
    lower = _bound(lower, api, "lower", trace)
    upper = _bound(upper, api, "upper", trace)
    induction = registers.VirtualRegister(frozen=True)
    trace, loop = _open("fori", api)
    loop.induction, loop.lower, loop.upper, loop.step = induction, lower, upper, step
    return trace, loop


def _end_fori(trace, loop):
    _close(trace, loop)
    loop.bound = loop.upper
    if isinstance(loop.upper, registers.VirtualRegister) and id(loop.upper) in loop.written:
        loop.bound = registers.VirtualRegister()  # the bound as it was at entry


def fori_loop(lower, upper, body_fun, step=1):
    """nl.fori_loop: body_fun(i) for i in range(lower, upper, step), on the device."""
    api = "nl.fori_loop"
    if not callable(body_fun):
        raise NkiTypeError(f"{api}: body_fun must be callable")
    trace, loop = _begin_fori(lower, upper, step, api)
    body_fun(loop.induction)
    _end_fori(trace, loop)


def while_loop(init, body_fun):
    """nl.while_loop: while init != 0: init = body_fun(init), on the device."""
    api = "nl.while_loop"
    if not callable(body_fun):
        raise NkiTypeError(f"{api}: body_fun must be callable")
    registers.check_register(init, api, "init")
    if init.frozen:
        raise NkiValueError(f"{api}: init is a loop's induction register, which only its loop "
                            "may change; copy it first (nisa.register_move)")
    trace, loop = _open("while", api)
    loop.cond = init
    result = body_fun(init)
    if not isinstance(result, registers.VirtualRegister):
        raise NkiTypeError(f"{api}: body_fun must return the next condition register, not "
                           f"{type(result).__name__}", location=loop.loc)
    if result is not init:
        registers.register_move(init, result)
    _close(trace, loop)


class dynamic_range:  # noqa: N801 - NKI's name
    """`for i in nl.dynamic_range(start, stop=None, step=1)`: a fori_loop whose body is the
    for statement's (traced once: the for statement runs one Python iteration)."""

    def __init__(self, start, stop=None, step=1):
        if stop is None:
            start, stop = 0, start
        self._args = (start, stop, step)
        self._loop = None
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        if self._loop is None:
            self._trace, self._loop = _begin_fori(*self._args, "nl.dynamic_range")
            return self._loop.induction
        self._done = True
        _end_fori(self._trace, self._loop)
        raise StopIteration


# ---- after tracing -----------------------------------------------------------------------------

def uses_control(trace, core):
    """True when the core's program has register operations or loops (loop_plan.py builds
    its streams)."""
    st = trace.control
    return st is not None and bool(st.loops[core] or st.register_ops[core])


def prepare(trace):
    """Before allocation: every loop finished, nothing in a body that counts its executions
    statically, body tiles live for the whole loop, registers numbered."""
    st = trace.control
    if st is None:
        return
    for core, instrs in enumerate(trace.cores):
        for loop in st.open[core]:
            raise NkiError(f"{loop.api}: the loop was never finished (a break out of the for "
                           "statement leaves it open)", location=loop.loc)
        for loop in st.loops[core]:
            for instr in instrs[loop.begin:loop.end]:
                if instr.opcode.split()[-1] in _STATIC_SYNC or instr.opcode.startswith("wait "):
                    raise NkiNotImplementedError(
                        instr.api, f"inside a register loop ({loop}): its synchronisation "
                        "counts each execution once", location=instr.loc)
            if loop.parent is not None:
                continue
            for instr in instrs[loop.begin:loop.end]:
                for op in instr.operands:
                    s = op.tensor.storage
                    if s.on_chip and s.last_use is not None:
                        s.last_use = max(s.last_use, loop.end - 1)
    registers.assign_numbers(trace)
