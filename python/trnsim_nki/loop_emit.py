"""Emitting a core with register loops: loop_plan's tree, loop_sync's semaphores, the builder.

Each engine's stream is the tree projected onto that engine:

  op                 its instruction, with the waits and updates loop_sync gave it
  loop (fori)        [entry: nop carrying the entry's waits and pre-credits]
                     reg_set ri = lower            (or = 0; reg_add ri += r_lower)
                     [reg_set rb = 0; reg_add rb += r_upper]   (bound copied at entry)
                     branch ri >= upper -> EXIT
               BODY: ...children...
                     reg_add ri += step
                     branch ri < upper -> BODY
               EXIT: [drains: wait, -= 1] [exit: barrier carrying the exit's updates]
  loop (while)       [entry] branch rc == 0 -> EXIT; BODY: ...; branch rc != 0 -> BODY; EXIT ...

Branch targets are the builder's labels. An instruction takes at most 4 waits and 4 updates
(docs/isa.md §9): when its own would exceed that, its waits (each with its credit decrement)
move to `nop`s just before it and the updates it cannot hold to `barrier`s just after it (a
barrier issues only once everything before it on the engine has completed, so its updates
mean what the instruction's own @complete would). Every stream ends with `barrier` (when it
issued DMAs) and `notify_end`, so the builder adds nothing of its own.
"""

import re

from trnsim_nki import loop_plan, loop_sync
from trnsim_nki.errors import NkiError, NkiResourceError
from trnsim_nki.lower import ap_text
from trnsim_nki.native import native
from trnsim_nki.trace import ENGINES
from trnsim_nki.registers import VirtualRegister

MAX_SYNC = 4  # waits, and updates, per instruction (docs/isa.md §9 rule 3)
_WAIT = re.compile(r"\bwait [SE]\[")
_THEN = re.compile(r"\bthen [SE]\[")


def emit_core(kb, trace, core, text_of):
    """Emits one core's streams; returns the debug-info entries of its instructions."""
    plan = loop_plan.plan(trace, core)
    semaphores = loop_sync.assign(plan, trace)
    mod = native()
    for sem in semaphores:
        try:
            sem.index = kb.alloc_semaphore(core)
        except mod.TrnsimError:
            raise NkiResourceError(
                f"out of semaphores: core {core}'s register loops and the instructions around "
                f"them need {len(semaphores)} (one per dependency inside a loop, one per "
                f"channel outside), more than the core's {trace.info.get('semaphores', 256)} "
                "minus those already used", location=plan.loops[0].loop.loc
                if plan.loops else None) from None
    debug = []
    for engine in ENGINES:
        _Stream(kb, core, engine, text_of, debug, mod).emit(plan.nodes)
    return debug


def _reg(value):
    return f"r{value.number}" if isinstance(value, VirtualRegister) else str(value)


class _Stream:
    def __init__(self, kb, core, engine, text_of, debug, mod):
        self.kb = kb
        self.core = core
        self.engine = engine
        self.text_of = text_of
        self.debug = debug
        self.mod = mod
        self.count = 0
        self.issued_async = False

    # ---- the tree --------------------------------------------------------------------------
    def emit(self, nodes):
        self._nodes(nodes)
        if self.count:
            where = ("(end)", "<kernel>", 0)
            if self.issued_async:
                self._line("barrier", *where)
            self._line("notify_end code=0", *where)

    def _nodes(self, nodes):
        for n in nodes:
            if isinstance(n, loop_plan.LoopNode):
                if self.engine in n.engines:
                    self._loop(n)
            elif n.engine == self.engine:
                self._op(n)

    def _loop(self, node):
        loop = node.loop
        where = (loop.api, loop.loc[0], loop.loc[1])
        self._point(node.entry(self.engine), where)
        exit_label = self.kb.new_label(self.core, self.engine, f"exit{loop.begin}")
        body_label = self.kb.new_label(self.core, self.engine, f"body{loop.begin}")
        if loop.kind == "fori":
            i = _reg(loop.induction)
            if isinstance(loop.lower, VirtualRegister):
                self._lines([f"reg_set {i} = 0", f"reg_add {i} += {_reg(loop.lower)}"], *where)
            else:
                self._line(f"reg_set {i} = {loop.lower}", *where)
            if loop.bound is not loop.upper:
                b = _reg(loop.bound)
                self._lines([f"reg_set {b} = 0", f"reg_add {b} += {_reg(loop.upper)}"], *where)
            bound = _reg(loop.bound)
            self._branch(f"branch {i} >= {bound} -> 0", exit_label, where)
            self.kb.bind_label(self.core, self.engine, body_label)
            self._nodes(node.children)
            self._line(f"reg_add {i} += {loop.step}", *where)
            self._branch(f"branch {i} < {bound} -> 0", body_label, where)
        else:
            c = _reg(loop.cond)
            self._branch(f"branch {c} == 0 -> 0", exit_label, where)
            self.kb.bind_label(self.core, self.engine, body_label)
            self._nodes(node.children)
            self._branch(f"branch {c} != 0 -> 0", body_label, where)
        self.kb.bind_label(self.core, self.engine, exit_label)
        self._point(node.exit(self.engine), where)

    def _point(self, point, where):
        """An entry's or exit's own synchronisation instructions."""
        if point.kind == "entry" and (point.waits or point.updates):
            self._synced(["nop"], point.waits, point.updates, where)
        if point.kind == "exit":  # drains first: what the barrier signals follows them
            if point.drains:
                self._waits([(sem, 1, True) for sem in point.drains], where)
            if point.updates or point.needed:
                self._barriers(point.updates or [None], where)

    def _op(self, op):
        instr = op.instr
        where = (instr.api, instr.loc[0], instr.loc[1])
        if instr.opcode in ("dma_copy", "sendrecv", "collective"):
            self.issued_async = True
        if instr.prefix is not None:  # debug_print: the builder's own call, no sync fields
            self._waits(op.waits, where)
            src = ap_text(instr.operands[0].tensor, instr.api)
            op.index = self._call(lambda: self.kb.debug_print(self.core, self.engine,
                                                              instr.prefix, src), "debug_print",
                                  where)
            if op.updates:
                self._barriers(op.updates, where)
            return
        op.index = self._synced(self._texts(op), op.waits, op.updates, where)
        instr.index = op.index

    def _texts(self, op):
        instr = op.instr
        ctl = instr.control
        if ctl is None:
            return [self.text_of(instr)]
        if ctl.kind == "set":
            return [f"reg_set {_reg(ctl.dst)} = {ctl.imm}"]
        if ctl.kind == "copy":
            d, s = _reg(ctl.dst), _reg(ctl.src)
            return [f"reg_set {d} = 0", f"reg_add {d} += {s}"] if d != s else ["nop"]
        view = instr.operands[0].tensor
        if ctl.kind == "load":
            return [f"reg_load {_reg(ctl.dst)} src={ap_text(view, instr.api)}"]
        return [f"reg_store {_reg(ctl.src)} dst={ap_text(view, instr.api)}"]

    # ---- synchronisation fields -------------------------------------------------------------
    def _synced(self, texts, waits, updates, where):
        """Emits texts (waits and their decrements on the first, updates on the last);
        returns the first's index."""
        decrements = [(sem, "-=", 1, "read") for sem, _, dec in waits if dec]
        texts = list(texts)
        single = len(texts) == 1
        first_updates = decrements + (list(updates) if single else [])
        fits = (len(_WAIT.findall(texts[0])) + len(waits) <= MAX_SYNC and
                len(_THEN.findall(texts[0])) + len(first_updates) <= MAX_SYNC and
                (single or len(_THEN.findall(texts[-1])) + len(updates) <= MAX_SYNC))
        if fits:
            texts[0] = _with(texts[0], waits, first_updates)
            if not single:
                texts[-1] = _with(texts[-1], [], updates)
            return self._lines(texts, *where)
        self._waits(waits, where)
        room = MAX_SYNC - len(_THEN.findall(texts[-1]))
        texts[-1] = _with(texts[-1], [], updates[:room])
        first = self._lines(texts, *where)
        if updates[room:]:
            self._barriers(updates[room:], where)
        return first

    def _waits(self, waits, where):
        """nops carrying the waits (and the credit decrements), MAX_SYNC per nop."""
        for k in range(0, len(waits), MAX_SYNC):
            chunk = waits[k:k + MAX_SYNC]
            self._line(_with("nop", chunk, [(s, "-=", 1, "read") for s, _, d in chunk if d]),
                       *where)

    def _barriers(self, updates, where):
        """barriers carrying the updates, MAX_SYNC per barrier ([None]: one bare barrier)."""
        for k in range(0, len(updates), MAX_SYNC):
            chunk = [u for u in updates[k:k + MAX_SYNC] if u is not None]
            self._line(_with("barrier", [], chunk), *where)

    # ---- the builder ----------------------------------------------------------------------------
    def _lines(self, texts, api, filename, line):
        first = None
        for text in texts:
            index = self._line(text, api, filename, line)
            first = index if first is None else first
        return first

    def _line(self, text, api, filename, line):
        return self._call(lambda: self.kb.emit(self.core, self.engine, text), text,
                          (api, filename, line))

    def _branch(self, text, label, where):
        return self._call(lambda: self.kb.emit_branch(self.core, self.engine, text, label),
                          text, where)

    def _call(self, fn, text, where):
        api, filename, line = where
        try:
            index = fn()
        except self.mod.TrnsimError as e:
            raise NkiError(f"{api}: the ISA refuses the instruction: {e}\n  {text}",
                           location=(filename, line)) from None
        self.count += 1
        self.debug.append({"core": self.core, "engine": self.engine, "index": index,
                           "opcode": _mnemonic(text),
                           "api": api, "file": filename, "line": line})
        return index


def _with(text, waits, updates):
    """text with `wait S[i] >= v` prefixes and `then S[i] op v @when` suffixes."""
    prefix = "".join(f"wait S[{sem.index}] >= {value} " for sem, value, _ in waits)
    suffix = "".join(f" then S[{sem.index}] {op} {value} @{when}"
                     for sem, op, value, when in updates)
    return prefix + text + suffix


def _mnemonic(text):
    return _WAITS_PREFIX.sub("", text).split()[0]


_WAITS_PREFIX = re.compile(r"^(wait [SE]\[\d+\] \S+ \d+ )+")
