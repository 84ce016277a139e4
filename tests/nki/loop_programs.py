"""Random straight-line and loop programs over a few SBUF tiles, as one NKI kernel and as a
NumPy interpreter (test_register_loops.py::test_random_programs).

A program is a tuple of steps; a step is an operation or a loop:
    ("load", dst, block, level)   tile dst = x[block] (level None), or x[i] with i the
                                  induction register of the enclosing loop at that level
    ("copy", dst, src, engine)    tile dst = tile src        (ACT activation, DVE/POOL copy)
    ("neg", dst, src, engine)     tile dst = -tile src       (DVE/POOL tensor_scalar)
    ("max" | "min", dst, a, b, engine)                      (DVE/POOL tensor_tensor)
    ("store", slot, src, engine)  out[TILES + slot] = tile src (a DMA issued by SP or ACT)
    ("loop", index, body)         for i in range(counts[index]): body   (nl.fori_loop; at most
                                  LOOPS loops, nested at most twice)
    ("final", engines)            the last step: out[k] = tile k, a DMA issued by engines[k]
Every value stays one of x's, so results are exact; a missing or misplaced dependency shows up
as a wrong tile. Loads are the only way new values come in, so the tiles are re-loaded often.
COUNT_SETS are the trip counts each program runs with (zero, one, several, mixed).
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

TILES = 4
SLOTS = 3
LOOPS = 5
BLOCKS = 6
R, F = 128, 32
COUNT_SETS = ([0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [3, 2, 3, 1, 2], [2, 0, 1, 3, 0])


def random_program(rng, depth=0, length=None, loops=None):
    top = loops is None
    loops = [0] if loops is None else loops
    length = int(rng.integers(3, 8)) if length is None else length
    steps = []
    for _ in range(length):
        kind = rng.choice(["load", "copy", "neg", "max", "min", "store", "loop"],
                          p=[0.22, 0.14, 0.12, 0.12, 0.12, 0.14, 0.14])
        t = [int(v) for v in rng.integers(0, TILES, size=3)]
        if kind == "loop":
            if depth >= 2 or loops[0] >= LOOPS:
                continue
            index = loops[0]
            loops[0] += 1
            steps.append(("loop", index, random_program(rng, depth + 1, None, loops)))
        elif kind == "load":
            level = int(rng.integers(0, depth)) if depth and rng.random() < 0.7 else None
            steps.append(("load", t[0], int(rng.integers(0, BLOCKS)), level))
        elif kind == "copy":
            steps.append(("copy", t[0], t[1], str(rng.choice(["act", "dve", "pool"]))))
        elif kind == "neg":
            steps.append(("neg", t[0], t[1], str(rng.choice(["dve", "pool"]))))
        elif kind in ("max", "min"):
            steps.append((str(kind), t[0], t[1], t[2], str(rng.choice(["dve", "pool"]))))
        else:
            steps.append(("store", int(rng.integers(0, SLOTS)), t[0],
                          str(rng.choice(["sp", "act"]))))
    if top:  # the final stores of the tiles: from SP, ACT or DVE
        steps.append(("final", tuple(str(e) for e in rng.choice(["sp", "act", "dve"], TILES))))
    return tuple(steps)


def reference(x, counts, program):
    tiles = [x[k].astype(np.float64) for k in range(TILES)]
    slots = [np.zeros((R, F)) for _ in range(SLOTS)]

    def run(steps, inductions):
        for step in steps:
            kind = step[0]
            if kind == "loop":
                for i in range(counts[step[1]]):
                    run(step[2], inductions + [i])
            elif kind == "load":
                _, dst, block, level = step
                tiles[dst] = x[block if level is None else inductions[level]].astype(np.float64)
            elif kind == "copy":
                tiles[step[1]] = tiles[step[2]].copy()
            elif kind == "neg":
                tiles[step[1]] = -tiles[step[2]]
            elif kind in ("max", "min"):
                fn = np.maximum if kind == "max" else np.minimum
                tiles[step[1]] = fn(tiles[step[2]], tiles[step[3]])
            elif kind == "store":
                slots[step[1]] = tiles[step[2]].copy()

    run(program, [])
    return np.stack(tiles + slots)


_ENGINES = {"act": nisa.engine.scalar, "dve": nisa.engine.vector, "pool": nisa.engine.gpsimd,
            "sp": nisa.engine.sync}


@nki.jit
def run_program(x, counts, program):
    """x [BLOCKS, R, F] fp32, counts [1, LOOPS] int32; returns the tiles and the slots."""
    out = nl.ndarray((TILES + SLOTS, R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    tiles = [nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf, name=f"t{k}")
             for k in range(TILES)]
    for k in range(TILES):
        nisa.dma_copy(dst=tiles[k], src=x[k])
    zero = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zero, value=0.0)
    for s in range(SLOTS):
        nisa.dma_copy(dst=out[TILES + s], src=zero)
    counts_sb = nl.ndarray((1, LOOPS), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=counts_sb, src=counts)

    def run(steps, inductions):
        for step in steps:
            kind = step[0]
            if kind == "loop":
                n = nisa.register_alloc()
                nisa.register_load(n, counts_sb[:, step[1]:step[1] + 1])
                body = step[2]
                nl.fori_loop(0, n, lambda i: run(body, inductions + [i]))
            elif kind == "load":
                _, dst, block, level = step
                src = x[block] if level is None else x.ap(
                    [[F, R], [1, F]], scalar_offset=inductions[level], indirect_dim=0)
                nisa.dma_copy(dst=tiles[dst], src=src)
            elif kind == "copy":
                _, dst, src, engine = step
                if engine == "act":
                    nisa.activation(dst=tiles[dst], op=nl.copy, data=tiles[src])
                else:
                    nisa.tensor_copy(dst=tiles[dst], src=tiles[src], engine=_ENGINES[engine])
            elif kind == "neg":
                _, dst, src, engine = step
                nisa.tensor_scalar(dst=tiles[dst], data=tiles[src], op0=nl.multiply,
                                   operand0=-1.0, engine=_ENGINES[engine])
            elif kind in ("max", "min"):
                _, dst, a, b, engine = step
                nisa.tensor_tensor(dst=tiles[dst], data1=tiles[a], data2=tiles[b],
                                   op=nl.maximum if kind == "max" else nl.minimum,
                                   engine=_ENGINES[engine])
            elif kind == "store":
                _, slot, src, engine = step
                nisa.dma_copy(dst=out[TILES + slot], src=tiles[src], engine=_ENGINES[engine])
            else:
                for k, engine in enumerate(step[1]):
                    nisa.dma_copy(dst=out[k], src=tiles[k], engine=_ENGINES[engine])

    run(program, [])
    return out
