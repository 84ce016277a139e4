"""LayerNorm over the free dimension with the Vector Engine's batch-norm statistics:
out[r, :] = (x[r, :] - mean_r) * rsqrt(var_r + eps) * gamma + beta   (var: population variance).

layernorm(x, gamma, beta, eps=1e-5)
    x: [R, D], gamma, beta: [D], float32 or bfloat16 (one dtype). Rows on partitions, 128 at a
    time (the last tile may be partial). gamma and beta are broadcast over the partitions by DMA
    (stride-0 HBM views). Per tile:
      1. nisa.bn_stats on each chunk of <= nl.tile_size.bn_stats_fmax (512) columns, each writing
         its 6 statistics at its own offset of one [rows, 6 * chunks] fp32 tile (the layout the
         bn_aggr reference recommends);
      2. nisa.bn_aggr -> [rows, 2] = (mean, variance);
      3. nisa.activation(op=nl.rsqrt, data=var, bias=eps) -> rstd;
      4. nisa.tensor_scalar(x, op0=subtract, operand0=mean, op1=multiply, operand1=rstd);
      5. two nisa.tensor_tensor: * gamma, then + beta (cast to x.dtype).
    D need not be a multiple of 512 (the last chunk is shorter).

API used: nisa.bn_stats, nisa.bn_aggr, nisa.activation (rsqrt, scalar bias),
nisa.tensor_scalar with two vector operands, nisa.tensor_tensor, nl.sequential_range.
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

STATS_PER_CHUNK = 6   # bn_stats: (count, mean, var*count) for even and for odd elements


def _broadcast_rows(vec, rows):
    """SBUF [rows, D] tile whose every partition is the HBM vector vec [D]."""
    D = vec.shape[0]
    tile = nl.ndarray((rows, D), dtype=vec.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=vec.reshape((1, D)).broadcast(0, rows))
    return tile


@nki.jit
def layernorm(x, gamma, beta, eps=1e-5):
    R, D = x.shape
    assert gamma.shape == (D,) and beta.shape == (D,), "gamma and beta must be [D]"
    pmax = nl.tile_size.pmax
    fmax = nl.tile_size.bn_stats_fmax
    chunks = (D + fmax - 1) // fmax
    out = nl.ndarray((R, D), dtype=x.dtype, buffer=nl.shared_hbm)
    gamma_rows = _broadcast_rows(gamma, pmax)
    beta_rows = _broadcast_rows(beta, pmax)

    for t in nl.sequential_range((R + pmax - 1) // pmax):
        rows = min(pmax, R - t * pmax)
        r0 = t * pmax
        x_tile = nl.ndarray((rows, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[r0:r0 + rows, :])

        stats = nl.ndarray((rows, STATS_PER_CHUNK * chunks), dtype=nl.float32, buffer=nl.sbuf)
        for c in range(chunks):
            c0 = c * fmax
            width = min(fmax, D - c0)
            nisa.bn_stats(dst=stats[:, c * STATS_PER_CHUNK:(c + 1) * STATS_PER_CHUNK],
                          data=x_tile[:, c0:c0 + width])
        mean_var = nl.ndarray((rows, 2), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mean_var, data=stats)

        rstd = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd, op=nl.rsqrt, data=mean_var[:, 1:2], bias=eps)

        normed = nl.ndarray((rows, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=normed, data=x_tile, op0=nl.subtract, operand0=mean_var[:, 0:1],
                           op1=nl.multiply, operand1=rstd)
        scaled = nl.ndarray((rows, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=scaled, data1=normed, data2=gamma_rows[0:rows, :], op=nl.multiply)
        y_tile = nl.ndarray((rows, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y_tile, data1=scaled, data2=beta_rows[0:rows, :], op=nl.add)
        nisa.dma_copy(dst=out[r0:r0 + rows, :], src=y_tile)
    return out


def reference(x, gamma, beta, eps=1e-5):
    """LayerNorm in float64 of the given (already rounded) inputs, population variance."""
    x64 = np.asarray(x, np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    g = np.asarray(gamma, np.float64)[None, :]
    b = np.asarray(beta, np.float64)[None, :]
    return (x64 - mean) / np.sqrt(var + eps) * g + b
