"""Tiled matrix multiplication, previous NKI generation: C = A^T . B with A = lhsT [K, M] and
B = rhs [K, N] (the left operand passed transposed, K first), result [M, N] in lhsT's dtype,
accumulated in fp32 PSUM.
nisa.nc_matmul(stationary [K<=128, M<=128], moving [K<=128, N<=512]) returns
stationary^T @ moving as a PSUM tile; accumulation over K is written `acc += nisa.nc_matmul(...)`
into a PSUM tile made by nl.zeros (the legacy idiom; associative reductions may live in
nl.affine_range loops).

matmul_tiled_kernel / matmul_tiled
    The naive form: for every output tile and every K tile, both operand tiles are loaded in the
    innermost loop.
matmul_blocked_kernel / matmul_blocked (tiles_in_block_m=4)
    The blocked form (same structure as the current generation's matmul_blocked): a
    [128 (par_dim), K/128, 128 * tiles_in_block_m] block of lhsT stays in SBUF for a sweep over
    N; each [128, K/128, 512] rhs strip is loaded once per block. Each of these is ONE nl.load
    whose 3-D index is arange arithmetic (row = k * 128 + p); the lhsT block is assigned into
    an nl.ndarray declared with nl.par_dim, the rhs strip is the tile nl.load returns. One PSUM
    accumulator per 128-row output tile.

API used: nl.load / nl.store with basic slicing and with 3-D nl.arange index arithmetic,
nl.par_dim in tile shapes, nl.zeros in PSUM, nl.ndarray in SBUF with [...] assignment,
nisa.nc_matmul returning its result, `+=` into PSUM, nl.copy(psum, dtype=) back to SBUF.
"""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def _tile_sizes(lhsT, rhs):
    K, M = lhsT.shape
    K_rhs, N = rhs.shape
    assert K == K_rhs, f"contraction mismatch: {K} vs {K_rhs}"
    TK = nl.tile_size.pmax
    TM = nl.tile_size.gemm_stationary_fmax
    TN = min(N, nl.tile_size.gemm_moving_fmax)
    assert K % TK == 0 and M % TM == 0 and N % TN == 0, f"K={K}, M={M}, N={N} do not tile"
    return K, M, N, TK, TM, TN


def matmul_tiled_kernel(lhsT, rhs):
    K, M, N, TK, TM, TN = _tile_sizes(lhsT, rhs)
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.zeros((nl.par_dim(TM), TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                a_tile = nl.load(lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
                b_tile = nl.load(rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
                acc += nisa.nc_matmul(a_tile, b_tile)
            res = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], value=res)
    return out


def matmul_blocked_kernel(lhsT, rhs, tiles_in_block_m=4):
    K, M, N, TK, TM, TN = _tile_sizes(lhsT, rhs)
    KT = K // TK
    BM = min(M, TM * tiles_in_block_m)
    assert M % BM == 0, f"M={M} is not a multiple of the M block {BM}"
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    # Index expressions for one load of every K tile at once: element [p, k, j] of the loaded
    # tile comes from row k * TK + p of the operand (partition p, then K tile, then column).
    i_p = nl.arange(TK)[:, None, None]
    i_k = nl.arange(KT)[None, :, None]
    i_m = nl.arange(BM)[None, None, :]
    i_n = nl.arange(TN)[None, None, :]
    for mb in nl.affine_range(M // BM):
        a_blk = nl.ndarray((nl.par_dim(TK), KT, BM), dtype=lhsT.dtype, buffer=nl.sbuf)
        a_blk[...] = nl.load(lhsT[i_k * TK + i_p, mb * BM + i_m])
        for n in nl.affine_range(N // TN):
            b_strip = nl.load(rhs[i_k * TK + i_p, n * TN + i_n])
            for mt in nl.affine_range(BM // TM):
                acc = nl.zeros((nl.par_dim(TM), TN), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(KT):
                    acc += nisa.nc_matmul(a_blk[:, k, mt * TM:(mt + 1) * TM], b_strip[:, k, :])
                res = nl.copy(acc, dtype=out.dtype)
                row0 = mb * BM + mt * TM
                nl.store(out[row0:row0 + TM, n * TN:(n + 1) * TN], value=res)
    return out


matmul_tiled = nki.jit(matmul_tiled_kernel)
matmul_blocked = nki.jit(matmul_blocked_kernel)


def reference(lhsT, rhs):
    """lhsT^T @ rhs in float64 of the given (already rounded) inputs."""
    return np.asarray(lhsT, np.float64).T @ np.asarray(rhs, np.float64)
