"""On-device (register) loops whose trip count is a runtime value read from an input tensor.

The current reference (NKI 0.6.0, migration guide "Deprecated: dynamic nl.dynamic_range and
while loops") writes runtime-driven loops as nl.fori_loop / nl.while_loop with the body as a
callable; registers come from nisa.register_alloc and are filled by nisa.register_load from a
[1, 1] SBUF tensor; a loop register is read inside the body as a dynamic offset through
.ap(..., scalar_offset=reg, indirect_dim=...). Loop-carried values live in SBUF. The
deprecated `for i in nl.dynamic_range(reg)` and bare `while reg:` forms are not used: the
VirtualRegister reference says a tracing front end cannot run them.

Both kernels sum the first `count` blocks of x, where count is an int32 [1, 1] input read on the
device, so one compiled kernel serves every count:
    x: [NB, R, F] (R <= 128), count: [[c]] with 0 <= c <= NB;
    sum: [R, F] fp32 = sum_{i < c} x[i]   (0 when c == 0).
Block i is DMA'd from x.ap(pattern=[[F, R], [1, F]], scalar_offset=i, indirect_dim=0): the
register i scaled by x's dim-0 stride (R * F elements).

block_sum_fori(x, count) -> (sum, last)
    nl.fori_loop(0, n, body) with n = register_load(count); body(i) adds block i, and stores the
    induction register into an SBUF tensor with nisa.register_store: last = [[c - 1]], or [[-1]]
    (its initial value) when the loop runs zero times.
block_sum_while(x, count) -> (sum, remaining)
    nl.while_loop(r, body) with r = register_load(count): body(r) decrements the SBUF counter
    (int32 tensor_tensor subtract), reloads r from it, adds block r (blocks c-1 down to 0) and
    returns r as the next condition; a true while: with c == 0 the body never runs. remaining =
    the SBUF counter after the loop: [[0]].
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


def _block(x, reg):
    """HBM view of block `reg` (a VirtualRegister) of x [NB, R, F]: [R, F]."""
    _, R, F = x.shape
    return x.ap(pattern=[[F, R], [1, F]], scalar_offset=reg, indirect_dim=0)


def _load_count(count):
    """[1, 1] int32 SBUF copy of the count input, and a register holding its value."""
    count_sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=count_sb, src=count)
    reg = nisa.register_alloc()
    nisa.register_load(reg, count_sb)
    return count_sb, reg


def _check(x, count):
    NB, R, F = x.shape
    assert R <= nl.tile_size.pmax, f"block rows {R} exceed {nl.tile_size.pmax}"
    assert count.shape == (1, 1), f"count must be [1, 1], got {count.shape}"
    return NB, R, F


@nki.jit
def block_sum_fori(x, count):
    NB, R, F = _check(x, count)
    total = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    last = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.shared_hbm)

    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    last_sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=last_sb, value=-1)
    _, n = _load_count(count)

    def body(i):
        blk = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=_block(x, i))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)
        nisa.register_store(last_sb, i)

    nl.fori_loop(0, n, body)

    nisa.dma_copy(dst=total, src=acc)
    nisa.dma_copy(dst=last, src=last_sb)
    return total, last


@nki.jit
def block_sum_while(x, count):
    NB, R, F = _check(x, count)
    total = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    remaining = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.shared_hbm)

    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    one = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=one, value=1)
    counter, r = _load_count(count)

    def body(cur):
        # cur = blocks still to add; step it down first, so that it names the block to add.
        nisa.tensor_tensor(dst=counter, data1=counter, data2=one, op=nl.subtract)
        nisa.register_load(cur, counter)
        blk = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=_block(x, cur))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)
        return cur

    nl.while_loop(r, body)

    nisa.dma_copy(dst=total, src=acc)
    nisa.dma_copy(dst=remaining, src=counter)
    return total, remaining


def reference_sum(x, c):
    """Sum of the first c blocks in float64 (the kernel adds them in fp32: see the tolerance)."""
    x64 = np.asarray(x, np.float64)
    return x64[:c].sum(axis=0) if c > 0 else np.zeros(x64.shape[1:])
