"""The streams of a core whose program has register loops or register operations.

After tracing, a core's instruction list is one program order with loops marked on it
(loops.Loop: [begin, end) ranges, properly nested). This module turns it into a tree

    nodes := [Op | LoopNode]      LoopNode.children := nodes

where an Op is one instruction on one engine, and decides which engines run what:

  - a traced instruction runs on its engine;
  - a register write (registers.RegOp with engine None) runs on every engine that needs the
    register: the engines of the instructions that read it (register offsets in access
    patterns, register_store, register copies) and of the loops whose control reads it;
  - a loop runs on every engine that executes anything in its body (its own copy of the loop
    control, counting in its own registers), and its parent loops on those too.

These rules feed each other (a loop's engines need its bound register, which makes that
register's writes run there, which may put them in an outer loop ...), so they are iterated
to a fixed point over the five engines.

Each LoopNode has an entry and an exit Point per engine: the places where synchronisation
that crosses the loop's boundary waits and signals (loop_sync.py).
"""

from trnsim_nki.registers import VirtualRegister
from trnsim_nki.trace import ENGINES


class Point:
    """A place in one engine's stream that waits and signals: an Op, or a loop's entry
    (before its first iteration) or exit (after its last: a barrier). `order` sorts the points
    of one engine in program order (position in the core's list, then entry/exit/op)."""

    def __init__(self, engine, kind, order, node=None):
        self.engine = engine
        self.kind = kind  # "op", "entry" or "exit"
        self.order = order
        self.node = node  # the LoopNode of an entry/exit
        self.waits = []  # (semaphore, value, decrement: bool)
        self.updates = []  # (semaphore, "+=", value, "complete" | "read")
        self.drains = []  # exit: semaphores to take one leftover credit from (wait, -= 1)
        self.needed = False  # exit: emit the barrier even without updates

    def __repr__(self):
        return f"{self.engine}:{self.kind}{self.order}"


class Op(Point):
    """One instruction on one engine."""

    def __init__(self, instr, engine, loop):
        super().__init__(engine, "op", (instr.position, 2, 0))
        self.instr = instr
        self.loop = loop  # innermost LoopNode, or None
        self.opcode = instr.opcode
        self.operands = instr.operands
        self.queue = instr.queue
        self.index = -1

    def __repr__(self):
        return f"{self.engine}:{self.opcode.split()[-1]}@{self.instr.position}"


class LoopNode:
    def __init__(self, loop, parent):
        self.loop = loop
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.children = []
        self.engines = set()
        self._entry = {}
        self._exit = {}

    def entry(self, engine):
        if engine not in self._entry:
            self._entry[engine] = Point(engine, "entry", (self.loop.begin, 1, self.depth), self)
        return self._entry[engine]

    def exit(self, engine):
        if engine not in self._exit:
            self._exit[engine] = Point(engine, "exit", (self.loop.end, 0, -self.depth), self)
        return self._exit[engine]

    def control_registers(self):
        loop = self.loop
        if loop.kind == "while":
            return [loop.cond]
        return [r for r in (loop.induction, loop.lower, loop.upper, loop.bound)
                if isinstance(r, VirtualRegister)]

    def __repr__(self):
        return f"LoopNode({self.loop!r})"


class CorePlan:
    def __init__(self, core, nodes, loops, ops):
        self.core = core
        self.nodes = nodes  # top-level [Op | LoopNode]
        self.loops = loops  # every LoopNode, outer before inner
        self.ops = ops  # every Op in program order


def plan(trace, core):
    """The CorePlan of one core (after allocation)."""
    instrs = trace.cores[core]
    nodes, enclosing, loop_nodes = _tree(instrs, list(trace.control.loops[core]))
    needs = _engines(instrs, enclosing, loop_nodes)
    ops, ops_of = [], {}
    for instr, node in zip(instrs, enclosing):
        if instr.engine is not None:
            engines = [instr.engine]
        else:  # a register write: on every engine that needs the register (maybe none)
            engines = [e for e in ENGINES if e in needs.get(id(instr.control.dst), ())]
        ops_of[id(instr)] = [Op(instr, e, node) for e in engines]
        ops.extend(ops_of[id(instr)])

    def expand(children):
        out = []
        for c in children:
            out.extend([c] if isinstance(c, LoopNode) else ops_of[id(c)])
        return out

    nodes = expand(nodes)
    for n in loop_nodes:
        n.children = expand(n.children)
    return CorePlan(core, nodes, loop_nodes, ops)


def _tree(instrs, loops):
    """Top-level nodes, per instruction its innermost LoopNode (or None), every LoopNode.
    Instructions stand in the children lists until plan() replaces them with their Ops."""
    nodes = []
    stack = []  # open LoopNodes
    by_loop = {}
    loop_nodes = []
    enclosing = []
    li = 0

    def close(pos):
        while stack and stack[-1].loop.end <= pos:
            stack.pop()

    for pos in range(len(instrs) + 1):
        close(pos)
        while li < len(loops) and loops[li].begin <= pos:
            loop = loops[li]
            li += 1
            close(pos)
            parent = by_loop.get(id(loop.parent))
            while stack and stack[-1] is not parent:
                stack.pop()
            node = LoopNode(loop, parent)
            by_loop[id(loop)] = node
            loop_nodes.append(node)
            (parent.children if parent is not None else nodes).append(node)
            stack.append(node)
            close(pos)
        if pos == len(instrs):
            break
        node = stack[-1] if stack else None
        enclosing.append(node)
        (node.children if node is not None else nodes).append(instrs[pos])
    return nodes, enclosing, loop_nodes


def _reads(instr):
    """Registers a traced instruction reads."""
    regs = [op.tensor.reg for op in instr.operands
            if getattr(op.tensor, "reg", None) is not None]
    if instr.control is not None and instr.engine is not None:
        regs.extend(instr.control.reads())
    return regs


def _engines(instrs, enclosing, loop_nodes):
    """register id -> the engines that need it; LoopNode.engines filled; to a fixed point."""
    needs = {}

    def need(reg):
        return needs.setdefault(id(reg), set())

    def chain(node):
        while node is not None:
            yield node
            node = node.parent

    changed = True
    while changed:
        changed = False

        def grow(target, more):
            nonlocal changed
            if not more <= target:
                target |= more
                changed = True

        for instr, node in zip(instrs, enclosing):
            if instr.engine is not None:
                engines = {instr.engine}
                for reg in _reads(instr):
                    grow(need(reg), engines)
            else:
                op = instr.control
                engines = set(need(op.dst))
                if op.src is not None:
                    grow(need(op.src), engines)
            for n in chain(node):
                grow(n.engines, engines)
        for n in loop_nodes:
            for reg in n.control_registers():
                grow(need(reg), n.engines)
            if n.loop.kind == "fori":  # engines reading i after the loop run its control too
                grow(n.engines, need(n.loop.induction))
            if n.parent is not None:
                grow(n.parent.engines, n.engines)
    return needs
