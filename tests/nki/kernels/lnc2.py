"""LNC=2: one logical core = two physical NeuronCores sharing an HBM stack; each runs the kernel
as program nl.program_id(0) of nl.num_programs(0) == 2 (launched as kernel[2](...) with
NEURON_LOGICAL_NC_CONFIG=2; get-started/about/lnc.rst).

matmul_split_k_lnc2[2](lhsT, rhs) -> (out_sendrecv, out_barrier)
    C[M, N] = lhsT^T @ rhs (lhsT [K, M], rhs [K, N], M <= 128, N <= 512, K a multiple of 256)
    with the contraction split over the two cores: core r multiplies rows
    [r*K/2, (r+1)*K/2) of both operands into a partial [M, N] fp32 (PSUM, then SBUF). The two
    partials are then summed on both cores in two independent ways, each core storing its half
    of the columns of each result:
      out_sendrecv: nisa.sendrecv(src=mine, dst=theirs, send_to_rank=peer,
                    recv_from_rank=peer, pipe_id=0) exchanges the partials SBUF to SBUF
                    (NeuronCore-v3+, LNC=2 only; src and dst: SBUF, same shape and dtype);
                    total = mine + theirs.
      out_barrier:  each core writes its partial to its slot of a shared_hbm scratch
                    [2, M, N], nisa.core_barrier(data=scratch, cores=(0, 1)) (the reference's
                    use case: both cores wrote disjoint parts of a shared HBM tensor and both
                    read all of it after), then each reads the peer's slot; total = mine + peer.
    mine + theirs on core 0 and theirs + mine on core 1 are the same fp32 sums (addition is
    commutative), so each result is one well-defined fp32 array whichever core wrote a column.
    Without a working exchange or barrier a core adds stale or foreign data and the check fails.

Argument order: nisa.sendrecv is the one nisa call whose first parameter is not dst
(`sendrecv(src, dst, send_to_rank, recv_from_rank, pipe_id, dma_engine=...)` in the reference);
this kernel passes every argument by keyword.
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_split_k_lnc2(lhsT, rhs):
    K, M = lhsT.shape
    K_rhs, N = rhs.shape
    P = nl.tile_size.pmax
    assert K == K_rhs, f"contraction mismatch: {K} vs {K_rhs}"
    assert M <= nl.tile_size.gemm_stationary_fmax and N <= nl.tile_size.gemm_moving_fmax
    assert N % 2 == 0, f"N={N} must split into two column halves"
    assert nl.num_programs(0) == 2, "launch with kernel[2](...) (LNC=2)"
    assert K % (2 * P) == 0, f"K={K} must split into two halves of whole 128-row tiles"
    rank = nl.program_id(0)
    peer = 1 - rank
    k_half = K // 2
    n_half = N // 2

    out_sendrecv = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    out_barrier = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    scratch = nl.ndarray((2, M, N), dtype=nl.float32, buffer=nl.shared_hbm)

    # This core's partial product over its half of K.
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    for kt in nl.affine_range(k_half // P):
        k0 = rank * k_half + kt * P
        a_tile = nl.ndarray((P, M), dtype=lhsT.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((P, N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=lhsT[nl.ds(k0, P), :])
        nisa.dma_copy(dst=b_tile, src=rhs[nl.ds(k0, P), :])
        nisa.nc_matmul(dst=acc, stationary=a_tile, moving=b_tile, accumulate=(kt > 0))
    mine = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=mine, src=acc)

    # Path 1: SBUF-to-SBUF exchange between the two cores.
    theirs = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.sendrecv(src=mine, dst=theirs, send_to_rank=peer, recv_from_rank=peer, pipe_id=0)
    total = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=total, data1=mine, data2=theirs, op=nl.add)
    nisa.dma_copy(dst=out_sendrecv[:, nl.ds(rank * n_half, n_half)],
                  src=total[:, nl.ds(rank * n_half, n_half)])

    # Path 2: through shared HBM, ordered by a core barrier.
    nisa.dma_copy(dst=scratch[rank], src=mine)
    nisa.core_barrier(data=scratch, cores=(0, 1))
    peer_part = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=peer_part, src=scratch[peer])
    total_hbm = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=total_hbm, data1=mine, data2=peer_part, op=nl.add)
    nisa.dma_copy(dst=out_barrier[:, nl.ds(rank * n_half, n_half)],
                  src=total_hbm[:, nl.ds(rank * n_half, n_half)])
    return out_sendrecv, out_barrier


def reference(lhsT, rhs):
    """lhsT^T @ rhs in float64 of the given (already rounded) inputs."""
    return np.asarray(lhsT, np.float64).T @ np.asarray(rhs, np.float64)
