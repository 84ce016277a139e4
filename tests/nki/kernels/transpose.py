"""2-D transpose: out[C, R] = x[R, C]^T, bit-exact.

transpose_pe(x)
    Tensor Engine transpose through PSUM: each [<=128, <=128] tile of x is loaded to SBUF,
    nisa.nc_transpose(engine=nisa.engine.tensor) writes its transpose to a PSUM tile of the same
    dtype (the reference requires dst.dtype == data.dtype and, on the PE, SBUF in / PSUM out),
    nisa.tensor_copy brings it back to SBUF and a DMA stores it at the mirrored tile position.
    Edge tiles are partial in both dimensions. Any dtype (the suite runs float32 and bfloat16);
    bit-exact from NeuronCore-v3 on (nc_transpose reference).
transpose_dma(x)
    DMA transpose: nisa.dma_transpose(dst, src, axes=(1, 0)) from HBM straight into an SBUF tile.
    The reference limits it to 2-byte dtypes and src.shape[-1] <= 128 (so <= 128 columns of x
    per transpose, which become the destination partitions); for the hardware-DGE form it also
    requires src.shape[0] == 16 for a 2-D source. This kernel satisfies all of them: it moves
    16 rows x <= 128 columns per dma_transpose, so R must be a multiple of 16.

API used: nisa.nc_transpose, nisa.tensor_copy, nisa.dma_transpose, nisa.dma_copy, nl.ndarray in
sbuf / psum / shared_hbm, nl.static_range, range().
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

DMA_TRANSPOSE_ROWS = 16


@nki.jit
def transpose_pe(x):
    R, C = x.shape
    pmax = nl.tile_size.pmax
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.static_range((R + pmax - 1) // pmax):
        rows = min(pmax, R - i * pmax)
        for j in nl.static_range((C + pmax - 1) // pmax):
            cols = min(pmax, C - j * pmax)
            x_tile = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x_tile, src=x[i * pmax:i * pmax + rows, j * pmax:j * pmax + cols])
            t_psum = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.psum)
            nisa.nc_transpose(dst=t_psum, data=x_tile, engine=nisa.engine.tensor)
            t_tile = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=t_tile, src=t_psum)
            nisa.dma_copy(dst=out[j * pmax:j * pmax + cols, i * pmax:i * pmax + rows], src=t_tile)
    return out


@nki.jit
def transpose_dma(x):
    R, C = x.shape
    pmax = nl.tile_size.pmax
    assert R % DMA_TRANSPOSE_ROWS == 0, f"R={R} is not a multiple of {DMA_TRANSPOSE_ROWS}"
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in range((C + pmax - 1) // pmax):
        cols = min(pmax, C - j * pmax)
        # t_tile[c, r] = x[r, j * pmax + c]: columns of x on partitions.
        t_tile = nl.ndarray((cols, R), dtype=x.dtype, buffer=nl.sbuf)
        for r0 in range(0, R, DMA_TRANSPOSE_ROWS):
            nisa.dma_transpose(dst=t_tile[:, r0:r0 + DMA_TRANSPOSE_ROWS],
                               src=x[r0:r0 + DMA_TRANSPOSE_ROWS, j * pmax:j * pmax + cols],
                               axes=(1, 0))
        nisa.dma_copy(dst=out[j * pmax:j * pmax + cols, :], src=t_tile)
    return out


def reference(x):
    return np.ascontiguousarray(np.asarray(x).T)
