"""Synchronisation of a core with register loops (its CorePlan, loop_plan.py).

The C++ builder's automatic semaphores count each instruction once (tools/kernel_builder/
sync.h) and refuse streams with branches, so such a core is plumbed here, by hand:

1. **What depends on what.** loop_deps.py runs the tracer's footprint analysis over the
   program with every loop body written out twice (copy 0 for the first iteration, copy 1
   for every later one: a dependency of copy 1 on copy 0 is carried), remembering that a loop
   may run zero times.
2. **Where it is paid.** A (consumer, producer) pair belongs to the innermost loop whose
   iterations both share — or, when they are in different iterations of a loop, to that loop
   (carried). Both ends are then lifted to that loop's body: an end nested deeper becomes the
   entry of the child loop holding it on its engine (consumer: wait before that loop starts)
   or that loop's exit on its engine (producer: a `barrier` after the loop, which completes
   only when everything before it on the engine has). So every pair joins two points that
   execute equally often, zero times included.
3. **How.** Per consumer point, only the latest producer of each completion channel is kept
   (channels complete in order, deps.channel; a carried producer precedes an intra one).
     - Outside every loop, points execute once: one counting semaphore per channel, the
       producer `then S += 1 @complete`, the consumer `wait S >= n` for the n-th signal —
       the builder's own scheme.
     - In a loop, each pair gets a credit semaphore: the producer `then S += 1 @complete`, the
       consumer `wait S >= 1 ... then S -= 1 @read`. A carried pair is pre-credited once at
       the loop's entry on the consumer's engine (iteration 0 has no predecessor); when the
       loop is itself in a loop, the consumer's engine takes the one leftover credit back
       after the loop (a drain), so that every entry starts from 0.
   A lifted pair whose producer is an exit on the consumer's own engine needs no semaphore:
   the exit barrier already orders everything that follows it on that engine.
"""

from trnsim_nki import deps, loop_deps
from trnsim_nki.loop_plan import Op


class Semaphore:
    """A semaphore of the plan, numbered by the builder at emission."""

    __slots__ = ("what", "index")

    def __init__(self, what):
        self.what = what
        self.index = None

    def __repr__(self):
        return f"S[{self.index if self.index is not None else '?'}]({self.what})"


def _lift(proxy, level, consumer):
    if len(proxy.copies) > level:
        node = proxy.copies[level][0]
        return node.entry(proxy.engine) if consumer else node.exit(proxy.engine)
    return proxy.op


def _channel(point):
    if isinstance(point, Op):
        return deps.channel(point)
    return (point.engine, None)  # an exit barrier completes with its engine's datapath


def edges(plan, trace):
    """[(region LoopNode | None, carried, consumer point, producer point)], thinned."""
    found = {}
    for consumer, producer in loop_deps.pairs(plan):
        cc, pc = consumer.copies, producer.copies
        common = 0
        while common < min(len(cc), len(pc)) and cc[common][0] is pc[common][0]:
            common += 1
        split = next((i for i in range(common) if cc[i][1] != pc[i][1]), None)
        if split is None:
            region, carried, level = (cc[common - 1][0] if common else None), False, common
        else:
            region, carried, level = cc[split][0], True, split + 1
        cons = _lift(consumer, level, True)
        prod = _lift(producer, level, False)
        if prod.kind == "exit" and prod.engine == cons.engine:
            prod.needed = True  # its barrier orders the consumer: no semaphore
            continue
        # Thinning: per consumer point and producer channel, the latest producer.
        key = (id(region), id(cons), _channel(prod))
        rank = (not carried, prod.order)
        best = found.get(key)
        if best is None or best[0] < rank:
            found[key] = (rank, (region, carried, cons, prod))
    return [edge for _, edge in found.values()]


def assign(plan, trace):
    """Fills the points' waits and updates; returns the plan's Semaphores."""
    all_edges = edges(plan, trace)
    top = [(cons, prod) for region, _, cons, prod in all_edges if region is None]
    semaphores = _credits(plan, all_edges, top)
    channels = {}  # top level: channel -> (Semaphore, {producer point id: point})
    for cons, prod in top:
        sem, producers = channels.setdefault(
            _channel(prod), (Semaphore(f"channel {_channel(prod)}"), {}))
        producers[id(prod)] = prod
    ordinals = {}
    for sem, producers in channels.values():
        semaphores.append(sem)
        for n, prod in enumerate(sorted(producers.values(), key=lambda p: p.order), 1):
            prod.updates.append((sem, "+=", 1, "complete"))
            ordinals[id(prod)] = n
    waits = {}  # (consumer, semaphore) -> largest ordinal
    for cons, prod in top:
        sem = channels[_channel(prod)][0]
        key = (id(cons), id(sem))
        if key not in waits or waits[key][2] < ordinals[id(prod)]:
            waits[key] = (cons, sem, ordinals[id(prod)])
    for cons, sem, n in waits.values():
        cons.waits.append((sem, n, False))
    return semaphores


def _credits(plan, all_edges, top):
    """One credit semaphore per pair inside loops, reused across top-level loops.

    Once the consumer's engine B has left top-level loop L (and taken back a carried pair's
    leftover credit: a drain), the pair's semaphore is 0 and nothing signals it any more. A
    later top-level loop L2 may use it when every engine of L2 enters L2 after that point: the
    engine is B itself, or it waits, before entering L2, for a top-level signal B gives after L.
    So kernels can run any number of loops one after another within the 256 semaphores."""
    semaphores = []
    by_loop = {}
    for edge in all_edges:
        if edge[0] is not None:
            outer = edge[0]
            while outer.parent is not None:
                outer = outer.parent
            by_loop.setdefault(id(outer), []).append(edge)
    released = []  # (Semaphore, top-level LoopNode, consumer engine, drained at its exit)
    for loop in [n for n in plan.loops if n.parent is None]:
        free = [r for r in released
                if all(_after(top, r[1], r[2], loop, x) for x in loop.engines)]
        mine = []
        for region, carried, cons, prod in by_loop.get(id(loop), ()):
            if free:
                sem, old, engine, drained = free.pop()
                released.remove((sem, old, engine, drained))
                if not drained:  # its last credit must be back before reuse
                    old.exit(engine).drains.append(sem)
            else:
                sem = Semaphore(f"{region.loop!r}: {cons!r} after {prod!r}"
                                f"{' (previous iteration)' if carried else ''}")
                semaphores.append(sem)
            prod.updates.append((sem, "+=", 1, "complete"))
            cons.waits.append((sem, 1, True))
            drained = not carried
            if carried:
                region.entry(cons.engine).updates.append((sem, "+=", 1, "read"))
                if region.parent is not None:
                    region.exit(cons.engine).drains.append(sem)
                    drained = True
            mine.append((sem, loop, cons.engine, drained))
        released.extend(mine)
    return semaphores


def _after(top, loop, engine, later, x):
    """Whether engine x enters top-level loop `later` only after `engine` has left `loop`."""
    if x == engine:
        return True
    left = loop.exit(engine).order
    enter = later.entry(x).order
    return any(c.engine == x and c.order <= enter and p.engine == engine and p.order >= left
               for c, p in top)
