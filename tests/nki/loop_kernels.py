"""Kernels of test_register_loops.py (register loops of the NKI tracer, docs/nki.md "Register
loops"), each with a NumPy reference. Counts are int32 [1, 1] inputs read on the device, so one
compiled kernel serves every count; blocks hold multiples of 1/8, so every sum is exact in fp32.

Each kernel is built so that a missing dependency of one kind makes it wrong (the test drops
that kind and checks): a DMA that would overwrite a tile still being read (carried), a read
before the write it needs in the same iteration (intra), a loop started before a producer
outside it finished (entry), a store after a loop before the loop's last write (exit), and a
nested loop re-entered with a credit left over (drain).
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


def _count(t):
    """A register holding the int32 [1, 1] input t."""
    sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=sb, src=t)
    reg = nisa.register_alloc()
    nisa.register_load(reg, sb)
    return reg


def _block(x, reg):
    """[R, F] block `reg` of x [NB, R, F]."""
    _, R, F = x.shape
    return x.ap([[F, R], [1, F]], scalar_offset=reg, indirect_dim=0)


def block_sums(x, c):
    """Sum of the first c blocks of x [NB, ...] (zeros for c = 0)."""
    x64 = np.asarray(x, np.float64)
    return x64[:c].sum(axis=0) if c > 0 else np.zeros(x64.shape[1:])


# ---- loop-carried, intra-iteration and exit dependencies --------------------------------------

@nki.jit
def pipelined_sum(x, count):
    """sum[R, F] = sum_{i < count} 2 * x[i]: SP loads block i into one tile (one buffer for
    every iteration), ACT doubles it into a second, DVE adds that to the sum. Iteration i+1's
    load must wait for ACT's read of iteration i (carried), ACT for the load and DVE for ACT
    (intra), and ACT's copy of the sum after the loop for DVE's last add (exit)."""
    NB, R, F = x.shape
    out = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    n = _count(count)

    def body(i):
        blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=_block(x, i))
        dbl = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=dbl, op=nl.copy, data=blk, scale=2.0)
        nisa.tensor_tensor(dst=acc, data1=acc, data2=dbl, op=nl.add)

    nl.fori_loop(0, n, body)
    res = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=res, op=nl.copy, data=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


# ---- entry dependencies --------------------------------------------------------------------------

@nki.jit
def entry_sum(y):
    """out = 4 * (2 * y) with a constant-bound loop: ACT makes base = 2 * y once it has loaded
    y (late: it waits for the DMA), then DVE adds base four times. DVE's loop must not start
    before ACT wrote base (an entry dependency: paid before the loop, once)."""
    R, F = y.shape
    out = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    ysb = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ysb, src=y)
    base = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=base, op=nl.copy, data=ysb, scale=2.0)

    def body(i):
        nisa.tensor_tensor(dst=acc, data1=acc, data2=base, op=nl.add)

    nl.fori_loop(0, 4, body)
    nisa.dma_copy(dst=out, src=acc)
    return out


# ---- zero-trip loops ---------------------------------------------------------------------------

@nki.jit
def zero_trip_overwrite(u, count):
    """out = u[:, :64] for count 0, else 2.0 everywhere. POOL copies u into t late (after a
    1 MiB load); the loop's DVE add overwrites all of t (reading v, which POOL writes in the
    loop); ACT copies t after the loop. When the loop runs zero times, ACT must still wait for
    POOL's copy: the loop's write, which would have ordered it, never happens."""
    R, W = u.shape
    F = 64
    out = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    # v and res are placed first, so that they do not reuse u's bytes (which would order them
    # after POOL's copy for another reason).
    v = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=v, value=1.0, engine=nisa.engine.gpsimd)
    res = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=res, value=0.0, engine=nisa.engine.vector)
    n = _count(count)
    usb = nl.ndarray((R, W), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=usb, src=u)
    t = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=t, src=usb[:, 0:F], engine=nisa.engine.gpsimd)

    def body(i):
        nisa.memset(dst=v, value=1.0, engine=nisa.engine.gpsimd)
        nisa.tensor_tensor(dst=t, data1=v, data2=v, op=nl.add)

    nl.fori_loop(0, n, body)
    nisa.activation(dst=res, op=nl.copy, data=t)
    nisa.dma_copy(dst=out, src=res)
    return out


# ---- nested loops (drains) -------------------------------------------------------------------

@nki.jit
def nested_sums(x, n_outer, n_inner):
    """x [A, B, R, F]: out[a] = sum_{b < n_inner} x[a, b] for a < n_outer, 0 for the other a.
    The outer loop copies row a of x to HBM scratch, the inner loop loads its blocks into one
    tile: the inner loop's carried credits must be drained before the next outer iteration."""
    A, B, R, F = x.shape
    out = nl.ndarray((A, R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    zero = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zero, value=0.0)
    for a in range(A):
        nisa.dma_copy(dst=out[a], src=zero)
    no = _count(n_outer)
    ni = _count(n_inner)
    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    row = nl.ndarray((B, R, F), dtype=nl.float32, buffer=nl.hbm)

    def outer(a):
        nisa.memset(dst=acc, value=0.0)
        nisa.dma_copy(dst=row, src=x.ap([[R * F, B], [F, R], [1, F]], scalar_offset=a,
                                        indirect_dim=0))

        def inner(b):
            blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=blk, src=_block(row, b))
            dbl = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=dbl, op=nl.copy, data=blk, scale=1.0)
            nisa.tensor_tensor(dst=acc, data1=acc, data2=dbl, op=nl.add)

        nl.fori_loop(0, ni, inner)
        nisa.dma_copy(dst=out.ap([[F, R], [1, F]], scalar_offset=a, indirect_dim=0), src=acc)

    nl.fori_loop(0, no, outer)
    return out


def nested_reference(x, no, ni):
    out = np.zeros(x.shape[:1] + x.shape[2:])
    for a in range(no):
        out[a] = block_sums(x[a], ni)
    return out


# ---- more than four waits or updates on one instruction ---------------------------------------

@nki.jit
def fan_out(x, count):
    """out[k] = (k + 1) * sum_{i < count} x[i], k < 5: five DVE adds read each loaded block,
    so the load signals five consumers and waits for five readers of the previous block."""
    NB, R, F = x.shape
    out = nl.ndarray((5, R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    accs = nl.ndarray((R, 5, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=accs, value=0.0)
    n = _count(count)

    def body(i):
        blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=_block(x, i))
        for k in range(5):
            nisa.scalar_tensor_tensor(dst=accs[:, k, :], data=blk, op0=nl.multiply,
                                      operand0=float(k + 1), op1=nl.add, operand1=accs[:, k, :])

    nl.fori_loop(0, n, body)
    for k in range(5):
        nisa.dma_copy(dst=out[k], src=accs[:, k, :])
    return out


@nki.jit
def fan_in(x, count):
    """x [NB, R, 5 * F]: out[i] = 3 * x[i] for i < count (the other blocks stay as `init`):
    DVE writes the tripled block into one tile that five DMAs on five channels (four SP queues
    and ACT) store piecewise, so the next iteration's write waits on five channels."""
    NB, R, W = x.shape
    F = W // 5
    out = nl.ndarray((NB, R, W), dtype=nl.float32, buffer=nl.shared_hbm)
    zero = nl.ndarray((R, W), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zero, value=0.0)
    for i in range(NB):
        nisa.dma_copy(dst=out[i], src=zero)
    n = _count(count)

    def body(i):
        blk = nl.ndarray((R, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=_block(x, i))
        tri = nl.ndarray((R, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=tri, data=blk, op0=nl.multiply, operand0=3.0)
        for k in range(5):
            engine = nisa.engine.scalar if k == 4 else nisa.engine.unknown
            nisa.dma_copy(dst=out.ap([[W, R], [1, F]], offset=k * F, scalar_offset=i,
                                     indirect_dim=0),
                          src=tri[:, k * F:(k + 1) * F], engine=engine)

    nl.fori_loop(0, n, body)
    return out


# ---- while loops, registers, dynamic_range, nl.ds, matmul, SPMD --------------------------------

@nki.jit
def countdown(count):
    """[[1 + 2 + ... + c, c]]: a while loop on an SBUF counter whose body returns a new
    register each time (copied into the condition register)."""
    out = nl.ndarray((1, 2), dtype=nl.int32, buffer=nl.shared_hbm)
    ctr = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ctr, src=count)
    total = nl.ndarray((1, 2), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=total, value=0)
    one = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=one, value=1)
    r = nisa.register_alloc()
    nisa.register_load(r, ctr)

    def body(cur):
        nisa.tensor_tensor(dst=total[:, 0:1], data1=total[:, 0:1], data2=ctr, op=nl.add)
        nisa.tensor_tensor(dst=total[:, 1:2], data1=total[:, 1:2], data2=one, op=nl.add)
        nisa.tensor_tensor(dst=ctr, data1=ctr, data2=one, op=nl.subtract)
        nxt = nisa.register_alloc()
        nisa.register_load(nxt, ctr)
        return nxt

    nl.while_loop(r, body)
    nisa.dma_copy(dst=out, src=total)
    return out


@nki.jit
def registers_io(value):
    """[[7, v, v, 7]] from register_alloc(7), register_load straight from HBM, register_move
    and register_store, without a loop."""
    out = nl.ndarray((1, 4), dtype=nl.int32, buffer=nl.shared_hbm)
    res = nl.ndarray((1, 4), dtype=nl.int32, buffer=nl.sbuf)
    seven = nisa.register_alloc(7)
    v = nisa.register_alloc()
    nisa.register_load(v, value)
    copy = nisa.register_alloc()
    nisa.register_move(copy, v)
    nisa.register_store(res[:, 0:1], seven)
    nisa.register_store(res[:, 1:2], v)
    nisa.register_store(res[:, 2:3], copy)
    nisa.register_move(copy, seven)
    nisa.register_store(res[:, 3:4], copy)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def ranged_sum(x, count):
    """for i in nl.dynamic_range(1, count): acc += x[i] (blocks 1 .. count - 1)."""
    NB, R, F = x.shape
    out = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    n = _count(count)
    for i in nl.dynamic_range(1, n):
        blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=_block(x, i))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def doubled_columns(x, count):
    """x [R, N * 64]: column block i of out = 2 * that of x for i < count, else 0; nl.ds with
    a register expression (i * 64) on the HBM input and on an SBUF tile's free dim."""
    R, W = x.shape
    F = 64
    out = nl.ndarray((R, W), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.ndarray((R, W), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=res, value=0.0)
    n = _count(count)

    def body(i):
        t = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, nl.ds(i * F, F)])
        nisa.tensor_scalar(dst=res[:, nl.ds(i * F, F)], data=t, op0=nl.multiply, operand0=2.0)

    nl.fori_loop(0, n, body)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_sum(a, b, count):
    """C[M, N] = sum_{i < count} a[i]^T b[i] (a [NB, K, M], b [NB, K, N]): the PSUM tile is
    zeroed before the loop and every matmul accumulates into it."""
    NB, K, M = a.shape
    N = b.shape[2]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.memset(dst=ps, value=0.0)
    n = _count(count)

    def body(i):
        ta = nl.ndarray((K, M), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((K, N), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=_block(a, i))
        nisa.dma_copy(dst=tb, src=_block(b, i))
        nisa.nc_matmul(dst=ps, stationary=ta, moving=tb, accumulate=True)

    nl.fori_loop(0, n, body)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_inferred(a, b, count):
    """matmul_sum with accumulate=None and no zeroing: ambiguous in a loop (an error)."""
    NB, K, M = a.shape
    N = b.shape[2]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    n = _count(count)

    def body(i):
        ta = nl.ndarray((K, M), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((K, N), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=_block(a, i))
        nisa.dma_copy(dst=tb, src=_block(b, i))
        nisa.nc_matmul(dst=ps, stationary=ta, moving=tb)

    nl.fori_loop(0, n, body)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def program_sums(x, count):
    """kernel[G]: program p sums the first `count` blocks of x[p] (x [G, NB, R, F])."""
    P, NB, R, F = x.shape
    out = nl.ndarray((P, R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.program_id(0)
    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    n = _count(count)

    def body(i):
        blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=x[p].ap([[F, R], [1, F]], scalar_offset=i, indirect_dim=1))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)

    nl.fori_loop(0, n, body)
    nisa.dma_copy(dst=out[p], src=acc)
    return out


@nki.jit
def exchanged_sums(x, count):
    """kernel[2], x [2, NB, R, F]: program p sums the first `count` blocks of x[p] in a loop,
    sends the sum to the peer core (nisa.sendrecv after the loop) and returns both sums added."""
    P, NB, R, F = x.shape
    out = nl.ndarray((P, R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.program_id(0)
    acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    n = _count(count)

    def body(i):
        blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=x[p].ap([[F, R], [1, F]], scalar_offset=i, indirect_dim=1))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)

    nl.fori_loop(0, n, body)
    peer = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.sendrecv(src=acc, dst=peer, send_to_rank=1 - p, recv_from_rank=1 - p, pipe_id=0)
    total = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=total, data1=acc, data2=peer, op=nl.add)
    nisa.dma_copy(dst=out[p], src=total)
    return out
