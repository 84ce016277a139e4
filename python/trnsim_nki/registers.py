"""Virtual registers: nisa.register_alloc / register_move / register_load / register_store.

A VirtualRegister is one 32-bit value of the kernel. trnsim's engines each have 64 private
registers (docs/isa.md §3), so a virtual register lives in the same physical register `r<n>`
on every engine that reads it (numbered after tracing by live range: assign_numbers), and each
write of it (register_alloc(x), register_move, register_load, a loop's own updates) is executed
by every such engine; each reader reads its own engine's copy. Which engines those are is
known only when the whole kernel has been traced (loop_plan.py), so the writes are traced as
*register operations* (Instr with engine None and `control` set) that the plan replicates;
register_store, which writes memory once, runs on SP.

The value is not known while tracing: using a register in Python control flow, int() or
range() raises TypeError, as AWS's tracer front end does. `reg * k + c` (ints k, c) makes a
RegExpr, usable wherever a register offset is (nl.ds start, .ap(scalar_offset=)).
"""

from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiResourceError, NkiTypeError, NkiValueError, user_location
from trnsim_nki.tensor import Tensor

REGISTERS_PER_ENGINE = 64  # docs/isa.md §3 (AWS: 64 32-bit registers per engine sequencer)


class RegOp:
    """What a register operation does: kind "set" (dst = imm), "copy" (dst = src register),
    "load" (dst = the one element of operands[0]) or "store" (operands[0] = src)."""

    __slots__ = ("kind", "dst", "src", "imm")

    def __init__(self, kind, dst=None, src=None, imm=0):
        self.kind = kind
        self.dst = dst
        self.src = src
        self.imm = imm

    def reads(self):
        return [self.src] if self.src is not None else []


def _state(trace):
    """Per-trace register and loop bookkeeping (created on first use)."""
    from trnsim_nki import loops
    return loops.state(trace)


class VirtualRegister:
    """nisa.VirtualRegister: a register of the kernel (made by nisa.register_alloc). Its
    physical number `number` is chosen when the kernel is built (assign_numbers)."""

    __slots__ = ("ident", "number", "core", "frozen", "name", "site")

    def __init__(self, state=None, frozen=False):
        trace = tr.current()
        st = _state(trace)
        self.ident = len(st.registers[trace.core])
        st.registers[trace.core].append(self)
        self.number = None
        self.core = trace.core
        self.frozen = bool(frozen)
        self.name = ""
        self.site = user_location()
        if state is not None:
            register_move(self, state)

    def __repr__(self):
        number = f"r{self.number}" if self.number is not None else f"#{self.ident}"
        return f"VirtualRegister({number}{', frozen' if self.frozen else ''})"

    # ---- no value at trace time ------------------------------------------------------------
    def _no_value(self, *args):
        raise NkiTypeError("a register's value is not known while the kernel is traced: use it "
                           "as a loop bound, a while_loop condition or a dynamic offset "
                           "(.ap(scalar_offset=), nl.ds), not in Python control flow, int() "
                           "or range()")

    __bool__ = __int__ = __index__ = __float__ = __iter__ = __len__ = _no_value

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    # ---- affine offsets ----------------------------------------------------------------------
    def __add__(self, other):
        return RegExpr(self) + other

    __radd__ = __add__

    def __sub__(self, other):
        return RegExpr(self) - other

    def __mul__(self, other):
        return RegExpr(self) * other

    __rmul__ = __mul__


class RegExpr:
    """scale * reg + offset, with int scale and offset (a dynamic index expression)."""

    __slots__ = ("reg", "scale", "offset")

    def __init__(self, reg, scale=1, offset=0):
        self.reg = reg
        self.scale = scale
        self.offset = offset

    @staticmethod
    def _int(value, what):
        if isinstance(value, bool) or not isinstance(value, int):
            raise NkiTypeError(f"a register expression takes int {what}s, not {value!r} (one "
                               "register per offset: reg * k + c)")
        return value

    def __add__(self, other):
        return RegExpr(self.reg, self.scale, self.offset + self._int(other, "offset"))

    __radd__ = __add__

    def __sub__(self, other):
        return RegExpr(self.reg, self.scale, self.offset - self._int(other, "offset"))

    def __mul__(self, other):
        k = self._int(other, "scale")
        return RegExpr(self.reg, self.scale * k, self.offset * k)

    __rmul__ = __mul__

    def __bool__(self):
        self.reg._no_value()

    __int__ = __index__ = __bool__

    def __repr__(self):
        return f"{self.scale} * {self.reg!r} + {self.offset}"


def as_expr(value):
    """A RegExpr for a register or register expression, None for anything else."""
    if isinstance(value, VirtualRegister):
        return RegExpr(value)
    if isinstance(value, RegExpr):
        return value
    return None


def check_register(reg, api, what, trace=None):
    if not isinstance(reg, VirtualRegister):
        raise NkiTypeError(f"{api}: {what} must be a register from nisa.register_alloc(), not "
                           f"{type(reg).__name__}")
    trace = trace or tr.current()
    if reg.core != trace.core:
        raise NkiValueError(f"{api}: {reg!r} belongs to another SPMD program's core")
    return reg


def _writable(reg, api):
    check_register(reg, api, "dst")
    if reg.frozen:
        raise NkiValueError(f"{api}: {reg!r} is a loop's induction register, which the loop "
                            "controls (read-only: carry other loop state in SBUF)")


def _emit_write(trace, opcode, op, operands, api):
    instr = trace.emit(None, opcode, operands, [], api=api)
    instr.control = op
    from trnsim_nki import loops
    loops.note_register_write(trace, op.dst, instr)
    return instr


def _one_element(t, api, what):
    if not isinstance(t, Tensor):
        raise NkiTypeError(f"{api}: {what} must be a one-element tensor, not "
                           f"{type(t).__name__}")
    if t.size != 1:
        raise NkiValueError(f"{api}: {what} must hold exactly one element (shape [1] or [1, 1]), "
                            f"not {list(t.shape)}")
    if t.buffer.kind == "psum":
        raise NkiValueError(f"{api}: {what} must be in SBUF or HBM, not PSUM")
    if t.dtype.isa not in ("int32", "uint32"):
        raise NkiTypeError(f"{api}: {what} must be int32 or uint32 (a register holds 32-bit "
                           f"integers), not {t.dtype.name}")
    if getattr(t, "reg", None) is not None:
        raise NkiValueError(f"{api}: {what} cannot itself have a register offset")


# ---- nki.isa ----------------------------------------------------------------------------------

def register_alloc(x=None):
    """nisa.register_alloc(x=None): a new register, set to the int x when given."""
    if x is not None and (isinstance(x, bool) or not isinstance(x, int)):
        raise NkiTypeError(f"nisa.register_alloc: x must be an int or None, not {x!r}")
    reg = VirtualRegister()
    if x is not None:
        register_move(reg, x)
    return reg


def register_move(dst, src):
    """nisa.register_move(dst, src): dst = src (an int, or another register)."""
    api = "nisa.register_move"
    trace = tr.current()
    _writable(dst, api)
    if isinstance(src, VirtualRegister):
        check_register(src, api, "src", trace)
        return _emit_write(trace, "reg_copy", RegOp("copy", dst, src=src), [], api)
    if isinstance(src, bool) or not isinstance(src, int):
        raise NkiTypeError(f"{api}: src must be an int or a register, not {src!r}")
    if not -2 ** 31 <= src < 2 ** 32:
        raise NkiValueError(f"{api}: {src} does not fit a 32-bit register")
    return _emit_write(trace, "reg_set", RegOp("set", dst, imm=src), [], api)


def register_load(dst, src):
    """nisa.register_load(dst, src): dst = the one int32/uint32 element of src (SBUF or HBM),
    read by every engine that uses dst (each after src's writer)."""
    api = "nisa.register_load"
    trace = tr.current()
    _writable(dst, api)
    _one_element(src, api, "src")
    return _emit_write(trace, "reg_load", RegOp("load", dst),
                       [tr.Operand("src", src)], api)


def register_store(dst, src):
    """nisa.register_store(dst, src): the one element of dst (SBUF or HBM) = src, on SP."""
    api = "nisa.register_store"
    trace = tr.current()
    _one_element(dst, api, "dst")
    check_register(src, api, "src", trace)
    instr = trace.emit("sp", "reg_store", [tr.Operand("dst", dst, write=True, read=False)], [],
                       api=api)
    instr.control = RegOp("store", src=src)
    return instr


# ---- physical registers --------------------------------------------------------------------------

def assign_numbers(trace):
    """Gives every register a physical number r0..r63, the same on every engine of its core.

    A register is live from its first to its last use in the core's program order (an access
    pattern offset, a register operation, a loop's control), widened to the whole of the
    outermost loop around any use (its value must survive every iteration); registers whose
    live ranges do not overlap share a number, so a kernel may make any number of loops one
    after another. More than 64 live at once is an NkiResourceError."""
    st = trace.control
    if st is None:
        return
    for core, instrs in enumerate(trace.cores):
        regs = st.registers[core]
        if not regs:
            continue
        spans = {}

        def use(reg, lo, hi=None):
            hi = lo if hi is None else hi
            a, b = spans.get(reg.ident, (lo, hi))
            spans[reg.ident] = (min(a, lo), max(b, hi))

        for instr in instrs:
            for op in instr.operands:
                reg = getattr(op.tensor, "reg", None)
                if reg is not None:
                    use(reg, instr.position)
            ctl = instr.control
            if ctl is not None:
                for reg in (ctl.dst, ctl.src):
                    if reg is not None:
                        use(reg, instr.position)
        outermost = []
        for loop in st.loops[core]:
            for reg in _control_registers(loop):
                use(reg, loop.begin, max(loop.begin, loop.end - 1))
            if loop.parent is None:
                outermost.append(loop)
        for ident, (lo, hi) in list(spans.items()):
            for loop in outermost:  # live across every iteration of a loop it is used in
                if loop.begin <= hi and lo < max(loop.end, loop.begin + 1):
                    lo, hi = min(lo, loop.begin), max(hi, loop.end - 1)
            spans[ident] = (lo, hi)
        _linear_scan(regs, spans)


def _control_registers(loop):
    if loop.kind == "while":
        return [loop.cond]
    return [r for r in (loop.induction, loop.lower, loop.upper, loop.bound)
            if isinstance(r, VirtualRegister)]


def _linear_scan(regs, spans):
    live = []  # (end, number)
    free = list(range(REGISTERS_PER_ENGINE))
    for ident in sorted(spans, key=lambda k: (spans[k][0], k)):
        lo, hi = spans[ident]
        for entry in [e for e in live if e[0] < lo]:
            live.remove(entry)
            free.append(entry[1])
        if not free:
            reg = regs[ident]
            raise NkiResourceError(
                f"out of registers: {REGISTERS_PER_ENGINE + 1} registers are live at once here "
                f"(an engine has {REGISTERS_PER_ENGINE}, docs/isa.md §3; each register loop "
                "also holds one for its induction variable while it runs)", location=reg.site)
        free.sort()
        number = free.pop(0)
        regs[ident].number = number
        live.append((hi, number))
