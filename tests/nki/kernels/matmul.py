"""Tiled matrix multiplication on the Tensor Engine: C = A^T . B, with A = lhsT [K, M] and
B = rhs [K, N] both stored K-major (K, the contraction, is their first dimension), i.e. the
left operand of C = L . R is passed transposed (lhsT = L^T), as the PE wants it:
    result: [M, N] = lhsT^T @ rhs, in lhsT's dtype (float32 or bfloat16), accumulated in fp32
    PSUM over K.
nisa.nc_matmul(dst, stationary[K<=128, M<=128], moving[K<=128, N<=512]) computes
dst[M, N] = stationary^T @ moving, contracting over the partition dimension; so tiles are
K by 128 (nl.tile_size.pmax), M by 128 (gemm_stationary_fmax) and N by min(N, 512)
(gemm_moving_fmax, one 2 KiB PSUM bank of fp32 per partition).

matmul_naive(lhsT, rhs)
    For every output tile (m, n) and every K tile, loads both operand tiles inside the innermost
    loop: lhsT is read N/512 times over and rhs M/128 times, each tile a separate small DMA.
    nc_matmul's `accumulate` is left at its default (None: the first write to a PSUM location
    overwrites, later ones add), so this kernel also exercises that inference.
matmul_hoisted(lhsT, rhs)
    Hoists the loads out of the K loop: all K tiles of one 128-column strip of lhsT are loaded
    once per m, all K tiles of one rhs strip once per (m, n); explicit accumulate=(k > 0).
matmul_blocked(lhsT, rhs, tiles_in_block_m=4)
    The well-blocked version for large problems (the 4096^3 bf16 timing check): a block of
    lhsT [K, 128 * tiles_in_block_m] stays resident in SBUF (the stationary operands) for a
    whole sweep over N; each rhs strip [K, 512] (the moving operand, 512 wide) is loaded once
    per block with ONE dma_copy through a [128, K/128, 512] view; each 128-row output tile
    accumulates its K/128 matmuls in its own PSUM tile, allocated inside the loop so the
    allocator can rotate banks and the PE never waits for the copy-out of the previous tile.
    HBM traffic for M = N = K = 4096 bf16: lhsT once (32 MiB) + rhs M/512 = 8 times (256 MiB)
    + C (32 MiB), against 1.75 ms of PE time at 78.6 TFLOPS: ~190 GB/s, half of one core's
    DMA bandwidth.

API used: nl.tile_size, nl.ndarray (sbuf, psum, shared_hbm), HBM views (slicing, reshape_dim,
permute), nl.affine_range, nisa.dma_copy, nisa.nc_matmul, nisa.tensor_copy (PSUM -> SBUF,
with a cast to bf16 when the output is bf16).
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


def _tile_sizes(lhsT, rhs):
    """Checks the operands and returns (K, M, N, TILE_K, TILE_M, TILE_N)."""
    K, M = lhsT.shape
    K_rhs, N = rhs.shape
    assert K == K_rhs, f"contraction mismatch: lhsT has K={K}, rhs has K={K_rhs}"
    tile_k = nl.tile_size.pmax
    tile_m = nl.tile_size.gemm_stationary_fmax
    tile_n = min(N, nl.tile_size.gemm_moving_fmax)
    assert K % tile_k == 0, f"K={K} is not a multiple of {tile_k}"
    assert M % tile_m == 0, f"M={M} is not a multiple of {tile_m}"
    assert N % tile_n == 0, f"N={N} is not a multiple of {tile_n}"
    return K, M, N, tile_k, tile_m, tile_n


def _evacuate(acc, out, row0, col0):
    """Copies one PSUM accumulator tile to SBUF (casting to out.dtype) and stores it at
    out[row0:, col0:]. dma_copy cannot read PSUM (NKI 0.3.0), hence the SBUF hop."""
    rows, cols = acc.shape
    res = nl.ndarray((rows, cols), dtype=out.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out[row0:row0 + rows, col0:col0 + cols], src=res)


@nki.jit
def matmul_naive(lhsT, rhs):
    K, M, N, TK, TM, TN = _tile_sizes(lhsT, rhs)
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                a_tile = nl.ndarray((TK, TM), dtype=lhsT.dtype, buffer=nl.sbuf)
                b_tile = nl.ndarray((TK, TN), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a_tile, src=lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
                nisa.dma_copy(dst=b_tile, src=rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
                nisa.nc_matmul(dst=acc, stationary=a_tile, moving=b_tile)
            _evacuate(acc, out, m * TM, n * TN)
    return out


@nki.jit
def matmul_hoisted(lhsT, rhs):
    K, M, N, TK, TM, TN = _tile_sizes(lhsT, rhs)
    KT = K // TK
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        # a_strip[p, k, j] = lhsT[k * TK + p, m * TM + j]: every K tile of this column strip.
        a_strip = nl.ndarray((TK, KT, TM), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            nisa.dma_copy(dst=a_strip[:, k, :], src=lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
        for n in nl.affine_range(N // TN):
            b_strip = nl.ndarray((TK, KT, TN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(KT):
                nisa.dma_copy(dst=b_strip[:, k, :],
                              src=rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
            acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                nisa.nc_matmul(dst=acc, stationary=a_strip[:, k, :], moving=b_strip[:, k, :],
                               accumulate=(k > 0))
            _evacuate(acc, out, m * TM, n * TN)
    return out


def _k_tiled(t, col0, ncols, tile_k):
    """View of HBM t[:, col0:col0 + ncols] as [tile_k, K / tile_k, ncols]:
    element [p, k, j] is t[k * tile_k + p, col0 + j]. One dma_copy moves the whole strip."""
    strip = t[:, col0:col0 + ncols]
    return strip.reshape_dim(0, (t.shape[0] // tile_k, tile_k)).permute((1, 0, 2))


@nki.jit
def matmul_blocked(lhsT, rhs, tiles_in_block_m=4):
    K, M, N, TK, TM, TN = _tile_sizes(lhsT, rhs)
    KT = K // TK
    BM = min(M, TM * tiles_in_block_m)
    assert M % BM == 0, f"M={M} is not a multiple of the M block {BM}"
    m_tiles = BM // TM
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for mb in nl.affine_range(M // BM):
        # Stationary block, resident for the whole N sweep:
        # a_blk[p, k, j] = lhsT[k*TK + p, mb*BM + j].
        a_blk = nl.ndarray((TK, KT, BM), dtype=lhsT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_blk, src=_k_tiled(lhsT, mb * BM, BM, TK))
        for n in nl.affine_range(N // TN):
            # Moving strip, 512 wide, all of K: b_strip[p, k, j] = rhs[k*TK + p, n*TN + j].
            b_strip = nl.ndarray((TK, KT, TN), dtype=rhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_strip, src=_k_tiled(rhs, n * TN, TN, TK))
            for mt in nl.affine_range(m_tiles):
                acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(KT):
                    nisa.nc_matmul(dst=acc, stationary=a_blk[:, k, mt * TM:(mt + 1) * TM],
                                   moving=b_strip[:, k, :], accumulate=(k > 0))
                _evacuate(acc, out, mb * BM + mt * TM, n * TN)
    return out


def reference(lhsT, rhs):
    """lhsT^T @ rhs in float64 (the exact product of the given, already rounded, inputs up to
    float64 rounding); the caller rounds to the output dtype."""
    return np.asarray(lhsT, np.float64).T @ np.asarray(rhs, np.float64)


def flops(M, K, N):
    """Floating-point operations of one [M, K] x [K, N] product (a multiply and an add each)."""
    return 2 * M * K * N
